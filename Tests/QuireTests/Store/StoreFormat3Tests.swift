import Foundation
import Quire
import QuireApps
import QuireTestSupport
import Testing

/// Stores of format 3 (before wall-clock times) are read as they are: their changes have
/// time 0, unknown; changes made from then on have times, and the store says the
/// current format (5).
@Suite("Store format: a format-3 store")
struct StoreFormat3Tests {
    /// Tests/QuireTests/Fixtures: a store made by the Quire of 2026-12-02 at commit 40a9da0
    /// (format 3) with `quire project create Novel --type prose`,
    /// `quire touch "Novel/Your Prose/Draft/Chapter One"`, a `quire write` of 2,416
    /// characters and five `quire write`s that each added one character; each close folded
    /// the keystroke changes into a run (format 3's run entry, without times).
    /// `format-3-store-text.txt` is the chapter's text.
    @Test("a format-3 store opens, reads its chapter, verifies healthy, its changes have unknown times; new changes have times that survive reopening and export")
    func readsAndKeepsTimesFromThenOn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, expected) = try StoreFormat2Tests.copyOfStore(format: 3, in: directory)
        #expect(try StoreFormat2Tests.formatVersion(of: path) == 3)

        var options = Store.Options()
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        options.clock = { now }
        let store = try Store(directory: path, options: options)
        let chapter = try store.read { tx in try #require(tx.all(File.self).first { $0.value.name == "Chapter One" }).id }
        let content = chapter.text(File.contentField)
        #expect(try store.read { tx in try tx.string(of: content) } == expected)
        #expect(try store.verify().isHealthy)
        let old = try store.changes()
        #expect(old.count == 8)
        #expect(old.allSatisfy { $0.time == 0 && $0.date == nil })
        #expect(try store.read { tx in try tx.history(of: content) }.allSatisfy { $0.time == 0 })
        // A date before any timed change: the old changes count as made before it.
        #expect(try store.read { tx in try tx.version(at: now.addingTimeInterval(-60)) } == store.version)

        for (offset, character) in "typed".unicodeScalars.enumerated() {
            try store.write { tx in try tx.insert(String(character), at: expected.unicodeScalars.count + offset, in: content) }
        }
        try store.close()
        #expect(try StoreFormat2Tests.formatVersion(of: path) == 5)

        let reopened = try Store(directory: path)
        defer { try? reopened.close() }
        let changes = try reopened.changes()
        #expect(changes.map(\.time) == Array(repeating: 0, count: 8) + Array(repeating: 1_780_000_000, count: 5))
        #expect(try reopened.read { tx in try tx.string(of: content) } == expected + "typed")
        #expect(try reopened.read { tx in try tx.string(of: content, at: try tx.version(at: now.addingTimeInterval(-1))) } == expected)
        #expect(try reopened.verify().isHealthy)
        // A new replica gets the whole history: the old changes without times, the new with.
        let other = try Store(directory: directory.path + "/other.quire")
        defer { try? other.close() }
        _ = try other.importDelta(try #require(try reopened.exportDelta()))
        #expect(try other.read { tx in try tx.string(of: content) } == expected + "typed")
        #expect(try other.changes().map(\.time) == changes.map(\.time))
    }

    @Test("the first change with a time rewrites the meta record to say the current format (5), before the store is closed: a store copied (or left by a crash) after one keystroke is refused by a format-3 build, not misread")
    func firstTimedChangeSaysCurrentFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, expected) = try StoreFormat2Tests.copyOfStore(format: 3, in: directory)
        let store = try Store(directory: path)
        defer { try? store.close() }
        let chapter = try store.read { tx in try #require(tx.all(File.self).first { $0.value.name == "Chapter One" }).id }
        try store.write { tx in try tx.insert("x", at: expected.unicodeScalars.count, in: chapter.text(File.contentField)) }
        #expect(try store.changes().last?.time ?? 0 > 0, "the keystroke's log entry ends with its time")
        // What is on disk now, as a crash would leave it.
        let copy = directory.path + "/copy.quire"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path + "/data.mdb", toPath: copy + "/data.mdb")
        #expect(try StoreFormat2Tests.formatVersion(of: copy) == 5)
    }
}
