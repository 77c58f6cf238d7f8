import Foundation
import LMDB
import Quire
import QuireApps
import QuireTestSupport
import Testing

/// Stores of format 2 (before change runs and chunked snapshots) are read as they are and
/// move to the current format with their next write.
@Suite("Store format: a format-2 store")
struct StoreFormat2Tests {
    /// Tests/QuireTests/Fixtures: a store made by the Quire of 2026-12-02 (format 2) with
    /// `quire project create Novel --type prose`, `quire touch "Novel/Your Prose/Draft/Chapter One"`,
    /// a `quire write` of 5,680 characters (its snapshot one value of two pages) and five
    /// `quire write`s that each added one character (five single changes in the log);
    /// `format-2-store-text.txt` is the chapter's text.
    static let fixtures = StoreFormatTests.fixtures

    /// A copy of the fixture store `format-N-store` in `directory`, and the chapter's
    /// expected text (`format-N-store-text.txt`).
    static func copyOfStore(format: Int = 2, in directory: TemporaryDirectory) throws -> (path: String, text: String) {
        let path = directory.path + "/novel.quire"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let data = try Data(contentsOf: fixtures.appendingPathComponent("format-\(format)-store/data.mdb"))
        try data.write(to: URL(fileURLWithPath: path + "/data.mdb"))
        let text = try String(contentsOf: fixtures.appendingPathComponent("format-\(format)-store-text.txt"), encoding: .utf8)
        return (path, text)
    }

    /// The format version in the store's meta record (its first byte, a varint below 128),
    /// read with LMDB.
    static func formatVersion(of path: String) throws -> UInt8? {
        let environment = try Environment(path: path)
        defer { try? environment.close() }
        let meta = try environment.openDatabase(named: "meta", options: [])
        // The meta record, under the key "store" (StoreLayout.metaKey).
        return try environment.read { tx in try tx.value(forKey: Key("store"), in: meta)?.first }
    }

    @Test("a format-2 store opens, reads its chapter, verifies healthy, and after typing with folds says format 5 (times and text strings kept from then on) and reads the same")
    func readsAndMovesOn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, expected) = try Self.copyOfStore(in: directory)
        #expect(try Self.formatVersion(of: path) == 2)

        let store = try Store(directory: path)
        let chapter = try store.read { tx in try #require(tx.all(File.self).first { $0.value.name == "Chapter One" }).id }
        let content = chapter.text(File.contentField)
        #expect(try store.read { tx in try tx.string(of: content) } == expected)
        #expect(try store.verify().isHealthy)
        // Keystrokes, one change each: enough for a fold (every 1,000 commits) and a
        // snapshot longer than one chunk at close.
        let typed = String(repeating: "type ", count: 260)
        for (offset, character) in typed.unicodeScalars.enumerated() {
            try store.write { tx in try tx.insert(String(character), at: expected.unicodeScalars.count + offset, in: content) }
        }
        try store.close()
        #expect(try Self.formatVersion(of: path) == 5)

        let reopened = try Store(directory: path)
        defer { try? reopened.close() }
        let statistics = try reopened.statistics()
        #expect(statistics.changeCount == 8 + typed.unicodeScalars.count)
        // Folded into runs (at 1,000 commits and at close), each at most a page.
        #expect(statistics.changeLogEntries < 20, "\(statistics.changeLogEntries) log entries")
        #expect(try reopened.read { tx in try tx.string(of: content) } == expected + typed)
        #expect(try reopened.verify().isHealthy)
        // A new replica gets the whole history, runs and the format-2 single changes alike.
        let other = try Store(directory: directory.path + "/other.quire")
        defer { try? other.close() }
        _ = try other.importDelta(try #require(try reopened.exportDelta()))
        #expect(try other.read { tx in try tx.string(of: content) } == expected + typed)
    }

    @Test("the delta file the format-2 store would export is what a format-3 store imports: the fixture's own history")
    func historyOfFixture() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, expected) = try Self.copyOfStore(in: directory)
        let store = try Store(directory: path, options: { var options = Store.Options(); options.access = .readOnly; return options }())
        defer { try? store.close() }
        let changes = try store.changes()
        #expect(changes.count == 8)
        let fresh = try Store(directory: directory.path + "/fresh.quire")
        defer { try? fresh.close() }
        _ = try fresh.importDelta(try #require(try store.exportDelta()))
        #expect(try fresh.read { tx in try tx.all(File.self).count } == 1)
        let file = try fresh.read { tx in try #require(tx.all(File.self).first).id }
        #expect(try fresh.read { tx in try tx.string(of: file.text(File.contentField)) } == expected)
    }
}
