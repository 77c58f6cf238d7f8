import Foundation
import LMDB
import Quire
import QuireCore
import QuireTestSupport
import Testing

/// The change log keeps keystroke changes as runs: folded every 1,000 commits and at a
/// checkpoint, logged as runs when merged; each entry at most one LMDB page.
@Suite("Store: change runs in the log")
struct StoreChangeRunLogTests {
    typealias File = StoreSpec.File

    /// Types `count` keystrokes (one change each) at the end of `text`, returning the
    /// changes each write made, read back from the log right after it.
    private static func type(_ count: Int, into text: TextID, of store: Store, seed: UInt64 = 1) throws -> [Change] {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1  // a linear congruential generator
        var made: [Change] = []
        var length = try store.read { tx in try tx.string(of: text) }.unicodeScalars.count
        for index in 0..<count {
            let before = store.version
            if index % 7 == 6, length > 0 {
                try store.write { tx in try tx.delete(length - 1..<length, in: text) }  // a backspace
                length -= 1
            } else {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let letter = String(UnicodeScalar(UInt8(97 + Int((state >> 33) % 26))))
                try store.write { tx in try tx.insert(letter, at: length, in: text) }
                length += 1
            }
            made += try store.changes(since: before)
        }
        return made
    }

    /// The values of the store's `changes` database, read with LMDB (the store closed).
    private static func logEntries(at path: String) throws -> [[UInt8]] {
        let environment = try Environment(path: path)
        defer { try? environment.close() }
        let changes = try environment.openDatabase(named: "changes", options: [])
        return try environment.read { tx in try tx.entries(in: changes).map(\.value) }
    }

    @Test("2,500 keystrokes, one change each, are folded into runs of at most a page; every change comes back with its ID, Lamport time and operations")
    func foldedKeystrokes() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let file = try store.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        let made = try Self.type(2_500, into: text, of: store)
        #expect(made.count == 2_500)
        let typed = try store.read { tx in try tx.string(of: text) }
        let reopened = try replicas.reopen(0)
        let changes = try reopened.changes().filter { $0.id.counter > 0 }  // after the file's creation
        #expect(changes == made)
        #expect(try reopened.read { tx in try tx.string(of: text) } == typed)
        let statistics = try reopened.statistics()
        #expect(statistics.changeCount == 2_501)
        #expect(statistics.changeLogEntries <= 10, "\(statistics.changeLogEntries) entries for 2,501 changes")
        #expect(try reopened.verify().isHealthy)
        try reopened.close()
        let entries = try Self.logEntries(at: replicas.directories[0].path)
        #expect(entries.count == statistics.changeLogEntries)
        #expect(entries.allSatisfy { $0.count <= 4_080 }, "entries of \(entries.map(\.count).max() ?? 0) bytes")
    }

    @Test("a run topped up after the checkpoint (it now reaches across it) is read back whole after a crash")
    func runAcrossCheckpoint() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let file = try replicas[0].write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        _ = try Self.type(10, into: text, of: replicas[0])
        // Closing checkpoints and folds the ten keystrokes into one small run before it.
        let store = try replicas.reopen(0)
        _ = try Self.type(1_000, into: text, of: store, seed: 2)  // the 1,000th commit folds
        let typed = try store.read { tx in try tx.string(of: text) }
        // A copy of the file as a crash would leave it: no checkpoint at close.
        let crashed = try TemporaryDirectory()
        defer { crashed.remove() }
        try FileManager.default.copyItem(
            atPath: replicas.directories[0].path + "/data.mdb", toPath: crashed.path + "/data.mdb")
        let copy = try Store(directory: crashed.path)
        defer { try? copy.close() }
        #expect(try copy.statistics().changeLogEntries <= 4)
        #expect(try copy.read { tx in try tx.string(of: text) } == typed)
        #expect(try copy.verify().isHealthy)
    }

    @Test("an imported keystroke history is logged as runs; importing it again changes nothing; its history reads back as it was made")
    func importedRuns() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let file = try a.write { tx in try tx.insert(File(name: "Chapter")) }
        _ = try Self.type(3_000, into: file.text("content"), of: a)
        let delta = try #require(try a.exportDelta())
        let report = try b.importDelta(delta)
        #expect(report.applied.count == 3_001)
        let statistics = try b.statistics()
        #expect(statistics.changeCount == 3_001)
        #expect(statistics.changeLogEntries <= 10, "\(statistics.changeLogEntries) entries for 3,001 changes")
        let again = try b.importDelta(delta)
        #expect(again.applied.isEmpty)
        #expect(again.alreadyKnown.count == 3_001)
        #expect(try b.changes() == a.changes())
        let reopened = try replicas.reopen(1)
        #expect(try reopened.changes() == a.changes())
        #expect(try reopened.read { tx in try tx.string(of: file.text("content")) } == a.read { tx in try tx.string(of: file.text("content")) })
        #expect(try reopened.verify().isHealthy)
    }

    @Test("another history under the same replica ID is refused against a logged run, and the store is left as it was")
    func cloneAgainstLoggedRun() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let file = try a.write { tx in try tx.insert(File(name: "Chapter")) }
        // A copy of replica 1's store as it was then, which types other keystrokes.
        let cloneDirectory = try TemporaryDirectory()
        defer { cloneDirectory.remove() }
        try FileManager.default.copyItem(atPath: replicas.directories[0].path + "/data.mdb", toPath: cloneDirectory.path + "/data.mdb")
        _ = try Self.type(1_500, into: file.text("content"), of: a)
        _ = try b.importDelta(try #require(try a.exportDelta()))
        let clone = try Store(directory: cloneDirectory.path, options: StoreSpec.options(replica: 1))
        defer { try? clone.close() }
        _ = try Self.type(40, into: file.text("content"), of: clone, seed: 9)
        let before = try b.changes()
        let error = #expect(throws: StoreError.self) { _ = try b.importDelta(try #require(try clone.exportDelta())) }
        #expect(error?.description.contains("cloned replica") == true, "\(String(describing: error))")
        #expect(try b.changes() == before)
    }
}
