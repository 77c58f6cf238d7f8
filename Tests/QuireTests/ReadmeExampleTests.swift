import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

/// The README's record type (`Note` is taken in this target).
private struct DiaryNote: Record {
    static let typeName = "note"
    var title: String
}

@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's example runs and prints what it says")
    func readmeExample() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let laptop = try Store(directory: directory.appending("Laptop.quire"))
        let phone = try Store(directory: directory.appending("Phone.quire"))   // a new, empty replica
        defer { try? laptop.close(); try? phone.close() }

        let note = try laptop.write { tx in
            let note = try tx.insert(DiaryNote(title: "Diary"))
            try tx.insert("Dear diary, today", at: 0, in: note.text("body"))
            return note
        }
        try phone.importDelta(laptop.exportDelta()!)   // the phone joins the laptop's store
        let body = note.text("body")

        // Offline on both…
        try laptop.write { tx in try tx.insert(" it rained", at: try tx.length(of: body), in: body) }
        try phone.write { tx in
            try tx.insert("👋 ", at: 0, unit: .utf16, in: body)              // an NSRange location
            try tx.update(note, as: DiaryNote.self) { $0.title = "Rainy day" }
        }

        // …then exchange delta files, in either order.
        let fromPhone = try phone.exportDelta(since: laptop.version)!
        #expect(fromPhone.count < 120)   // its first file: store ID and names spelled out
        try laptop.importDelta(fromPhone)
        try phone.importDelta(laptop.exportDelta(since: phone.version)!)
        for store in [laptop, phone] {
            let (title, text) = try store.read { tx in (try tx.record(DiaryNote.self, note).title, try tx.string(of: body)) }
            #expect("\(title): \(text)" == "Rainy day: 👋 Dear diary, today it rained")
        }
    }

    @Test("the README's setup command updates the package lists before installing every package CI installs")
    func readmeSetupCommand() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let setup = try #require(readme.split(separator: "\n").first { $0.contains("apt-get install") }.map(String.init))
        // A fresh Debian box has empty package lists: install finds nothing before an update.
        let update = try #require(setup.range(of: "apt-get update &&"), "\(setup)")
        let install = try #require(setup.range(of: "apt-get install -y "))
        #expect(update.upperBound <= install.lowerBound, "\(setup)")
        let ci = try String(contentsOf: root.appendingPathComponent(".ci/run"), encoding: .utf8)
        let packages = try #require(ci.split(separator: "\n").first { $0.hasPrefix("packages=(") })
            .dropFirst("packages=(".count).dropLast().split(separator: " ")
        #expect(!packages.isEmpty)
        for package in packages {
            #expect(setup.contains(" \(package)"), "the README's setup does not install \(package): \(setup)")
        }
        #expect(setup.hasSuffix("&& swift run -c release quire demo"))
    }
}
