import Foundation
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Delta files: payloads deflated with zlib")
struct DeltaCompressionTests {
    private typealias File = StoreSpec.File

    /// Tests/QuireTests/Fixtures.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The text of the fixture delta-v2-handwritten-deflate.qdelta: what
    /// ``typeFixtureHistory(into:)`` leaves in the file's content, built with plain strings.
    static func fixtureText() -> String {
        var scalars = Array(String(repeating: "A line of verse, ünïcödé — and more. ", count: 12).unicodeScalars)
        let typed = "The quick brown fox jumps over the lazy dog; état, naïve, 日本語. "
        for (index, scalar) in typed.unicodeScalars.enumerated() where index < 60 { scalars.append(scalar) }
        scalars.removeSubrange(10..<30)
        scalars.insert(contentsOf: "[edited]".unicodeScalars, at: 5)
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        return String(text)
    }

    /// The history of the fixture: a folder and a file, its text written whole, then 60
    /// keystrokes of one change each, a deletion, an insertion and a rename.
    static func typeFixtureHistory(into store: Store) throws {
        let file = try store.write { tx in
            let folder = try tx.insert(StoreSpec.Folder(name: "Old format"))
            let file = try tx.insert(File(name: "Deflated by hand", status: "draft", rating: 1), under: folder)
            try tx.insert(String(repeating: "A line of verse, ünïcödé — and more. ", count: 12), at: 0, in: file.text("content"))
            return file
        }
        let content = file.text("content")
        let typed = "The quick brown fox jumps over the lazy dog; état, naïve, 日本語. "
        for (index, scalar) in typed.unicodeScalars.enumerated() where index < 60 {
            try store.write { tx in try tx.insert(String(scalar), at: try tx.length(of: content), in: content) }
        }
        try store.write { tx in try tx.delete(10..<30, in: content) }
        try store.write { tx in try tx.insert("[edited]", at: 5, in: content) }
        try store.write { tx in try tx.update(file, as: File.self) { $0.name = "Renamed" } }
    }

    @Test("TEMPORARY: write the fixture with the hand-written compressor")
    func writeFixture() throws {
        guard ProcessInfo.processInfo.environment["QUIRE_WRITE_FIXTURE"] != nil else { return }
        let replicas = try Replicas(1)
        defer { replicas.close() }
        try Self.typeFixtureHistory(into: replicas[0])
        #expect(try replicas[0].read { tx in try tx.string(of: tx.children(of: tx.children(of: nil)[0])[0].text("content")) } == Self.fixtureText())
        let delta = try #require(try replicas[0].exportDelta())
        #expect(delta[2] & 1 == 1, "the payload is deflated")
        try Data(delta).write(to: Self.fixtures.appendingPathComponent("delta-v2-handwritten-deflate.qdelta"))
    }
}
