import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Merge report: overlapping concurrent edits of a text")
struct OverlappingEditsTests {
    typealias File = StoreSpec.File

    /// Two stores, a file with `base` as its content on both, and a folder for delta files.
    final class Devices {
        let replicas: Replicas
        let folder: TemporaryDirectory
        let content: TextID
        var laptop: Store { replicas[0] }
        var phone: Store { replicas[1] }

        init(base: String) throws {
            replicas = try Replicas(2)
            folder = try TemporaryDirectory()
            let file = try replicas[0].write { tx in try tx.insert(File(name: "Ode")) }
            content = file.text("content")
            try replicas[0].write { tx in try tx.insert(base, at: 0, in: file.text("content")) }
            _ = try exchange()
        }

        /// Writes each store's delta for the other to a file, then imports both files.
        func exchange() throws -> (intoLaptop: MergeReport, intoPhone: MergeReport) {
            let forPhone = folder.path + "/for-phone.quiredelta", forLaptop = folder.path + "/for-laptop.quiredelta"
            try Data(try laptop.exportDelta(since: phone.version) ?? []).write(to: URL(fileURLWithPath: forPhone))
            try Data(try phone.exportDelta(since: laptop.version) ?? []).write(to: URL(fileURLWithPath: forLaptop))
            func load(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
            let fromPhone = try load(forLaptop), fromLaptop = try load(forPhone)
            let intoLaptop = fromPhone.isEmpty ? MergeReport() : try laptop.importDelta(fromPhone)
            let intoPhone = fromLaptop.isEmpty ? MergeReport() : try phone.importDelta(fromLaptop)
            return (intoLaptop, intoPhone)
        }

        func text(_ store: Store) throws -> String { try store.read { tx in try tx.string(of: content) } }

        /// The passages a report flags, read from `store`'s merged text.
        func passages(_ report: MergeReport, in store: Store) throws -> [String] {
            try store.read { tx throws in
                try report.overlappingEdits.map { edit in
                    #expect(edit.text == content)
                    #expect(try tx.string(of: edit.text, in: edit.utf16Range, unit: .utf16) == tx.string(of: edit.text, in: edit.range))
                    return try tx.string(of: edit.text, in: edit.range)
                }
            }
        }

        func rewrite(_ store: Store, _ old: String, with new: String) throws {
            try store.write { tx in
                let current = try tx.string(of: content)
                try tx.setString(current.replacingOccurrences(of: old, with: new), in: content)   // the smallest edit
            }
        }

        func close() {
            replicas.close()
            folder.remove()
        }
    }

    @Test("two devices rewriting one sentence offline: both imports report the garbled passage, in the merged text")
    func overlappingRewrites() throws {
        let devices = try Devices(base: "The sea 🌊 said X. Then the night came.")
        defer { devices.close() }
        try devices.rewrite(devices.laptop, "said X", with: "said white cliffs, said A")
        try devices.rewrite(devices.phone, "said X", with: "said B")
        let (intoLaptop, intoPhone) = try devices.exchange()
        let merged = try devices.text(devices.laptop)
        #expect(try devices.text(devices.phone) == merged)
        #expect(merged.hasPrefix("The sea 🌊 said ") && merged.hasSuffix(". Then the night came."))
        for (report, store) in [(intoLaptop, devices.laptop), (intoPhone, devices.phone)] {
            let passages = try devices.passages(report, in: store)
            #expect(passages.count == 1, "\(report.overlappingEdits)")
            let passage = passages.first ?? ""
            // Everything both sides wrote, interleaved, and nothing untouched.
            #expect(passage.count == "white cliffs, said AB".count)
            #expect(Set(passage) == Set("white cliffs, said AB"))
            #expect(merged.contains(passage))
            #expect(!passage.contains("sea") && !passage.contains("Then"))
        }
        // The passage's place: right after "said ", in scalars and UTF-16 (the 🌊 counts 1 and 2).
        let edit = try #require(intoLaptop.overlappingEdits.first)
        #expect(edit.range.lowerBound == "The sea 🌊 said ".unicodeScalars.count)
        #expect(edit.utf16Range.lowerBound == "The sea 🌊 said ".utf16.count)
    }

    @Test("disjoint concurrent edits of one text, and edits made after seeing the other side's, are not reported")
    func disjointAndSequentialNotReported() throws {
        let devices = try Devices(base: "The sea said X. Then the night came.")
        defer { devices.close() }
        try devices.rewrite(devices.laptop, "sea", with: "ocean")
        try devices.rewrite(devices.phone, "night", with: "dawn")
        try devices.phone.write { tx in try tx.insert("!", at: try tx.length(of: devices.content), in: devices.content) }
        var (intoLaptop, intoPhone) = try devices.exchange()
        #expect(try devices.text(devices.laptop) == "The ocean said X. Then the dawn came.!")
        #expect(intoLaptop.overlappingEdits.isEmpty && intoPhone.overlappingEdits.isEmpty)
        #expect(intoLaptop.changedTexts == [devices.content])

        // The phone rewrites what the laptop just wrote, having seen it: an update, not a clash.
        try devices.rewrite(devices.phone, "The ocean said X", with: "The ocean said Y")
        (intoLaptop, intoPhone) = try devices.exchange()
        #expect(try devices.text(devices.laptop) == "The ocean said Y. Then the dawn came.!")
        #expect(intoLaptop.overlappingEdits.isEmpty && intoPhone.overlappingEdits.isEmpty)
    }

    @Test("two inserts at one place and an insert where the other side deleted overlap; two deletions of the same words do not")
    func boundaryCases() throws {
        let devices = try Devices(base: "one two three four five")
        defer { devices.close() }
        try devices.rewrite(devices.laptop, "one ", with: "one A ")          // both insert after "one "
        try devices.rewrite(devices.phone, "one ", with: "one B ")
        try devices.rewrite(devices.laptop, " three", with: "")              // both delete " three"
        try devices.rewrite(devices.phone, " three", with: "")
        try devices.rewrite(devices.laptop, " five", with: " 5")             // laptop rewrites what the phone deletes
        try devices.rewrite(devices.phone, " five", with: "")
        let (intoLaptop, intoPhone) = try devices.exchange()
        let merged = try devices.text(devices.laptop)
        // The laptop's smallest edit kept the space before "five"; the phone deleted it.
        #expect(merged == "one A B two four5" || merged == "one B A two four5")
        for (report, store) in [(intoLaptop, devices.laptop), (intoPhone, devices.phone)] {
            #expect(try devices.passages(report, in: store) == [String(merged.dropFirst(4).prefix(4)), "5"])
        }
    }
}
