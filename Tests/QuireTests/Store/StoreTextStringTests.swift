import Foundation
import LMDB
@testable import Quire
import QuireApps
import QuireCore
import QuireTestSupport
import Testing

/// Each text snapshot's characters are kept beside it in `text-strings` (format 5), so a
/// store opened after it was closed shows a text without decoding its history; anything
/// logged since the checkpoint makes the read decode the text instead.
@Suite("Store: the string of each text snapshot")
struct StoreTextStringTests {
    private typealias File = StoreSpec.File

    /// A file whose text, typed in `writes` writes, spans several chunks (over 4,080
    /// bytes), with characters of one to four UTF-8 bytes.
    private static func typeFile(into store: Store, writes: Int = 80) throws -> (text: TextID, expected: String) {
        let file = try store.write { tx in try tx.insert(File(name: "Ode")) }
        let text = file.text("content")
        var expected = ""
        for index in 0..<writes {
            let line = "line \(index): é ✓ 🌊 the sea is calm tonight, the tide is full, the moon lies fair.\n"
            try store.write { tx in try tx.insert(line, at: expected.unicodeScalars.count, in: text) }
            expected += line
        }
        return (text, expected)
    }

    /// The joined `text-strings` value of `text`, read with LMDB.
    private static func storedString(_ path: String, _ text: TextID) throws -> [UInt8]? {
        var joined: [UInt8]?
        try MaintenanceSpec.damage(path) { _, layout, tx in
            for entry in try tx.entries(in: try #require(layout.textStrings), range: .prefix(StoreLayout.textKey(text))) {
                joined = (joined ?? []) + entry.value
            }
        }
        return joined
    }

    @Test("a closed store keeps each snapshot's string, in chunks; reopened, the text reads from it, and verify finds a string that differs from its snapshot")
    func readsFromString() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var store = try Store(directory: directory.path)
        let (text, expected) = try Self.typeFile(into: store)
        try store.close()

        #expect(try Self.storedString(directory.path, text) == Array(expected.utf8))
        #expect(try MaintenanceSpec.keys(directory.path) { $0.textStrings! }.count >= 2, "a string over 4,080 bytes is cut into chunks")
        store = try Store(directory: directory.path)
        #expect(try store.read { tx in try tx.string(of: text) } == expected)
        #expect(try store.verify().isHealthy)
        try store.close()

        // The read takes the string, not the snapshot: a string that differs from its
        // snapshot is what it shows — and what verify reports.
        try MaintenanceSpec.damage(directory.path) { _, layout, tx in
            let strings = try #require(layout.textStrings)
            _ = try tx.removeAll(in: strings, range: .prefix(StoreLayout.textKey(text)))
            try tx.put(Array("decoy".utf8), forKey: StoreLayout.textKey(text), in: strings)
        }
        store = try Store(directory: directory.path)
        defer { try? store.close() }
        #expect(try store.read { tx in try tx.string(of: text) } == "decoy")
        let problems = try store.verify().problems
        #expect(problems.contains { $0.database == "text-strings" && $0.key == "\(text)" && $0.problem.contains("differs") }, "\(problems)")
    }

    @Test("a change logged after the checkpoint — by a write, or left by a crash — is read from the text, not the older string")
    func changeAfterCheckpoint() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var store = try Store(directory: directory.path)
        let (text, expected) = try Self.typeFile(into: store, writes: 3)
        try store.close()

        store = try Store(directory: directory.path)
        try store.write { tx in try tx.insert("!", at: expected.unicodeScalars.count, in: text) }
        #expect(try store.read { tx in try tx.string(of: text) } == expected + "!")
        // The file as a crash would leave it: the keystroke logged, no checkpoint since.
        let copy = directory.path + "/copy.quire"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: directory.path + "/data.mdb", toPath: copy + "/data.mdb")
        try store.close()
        #expect(try Self.storedString(copy, text) == Array(expected.utf8), "the copy's string is the older one")
        let crashed = try Store(directory: copy)
        defer { try? crashed.close() }
        #expect(try crashed.read { tx in try tx.string(of: text) } == expected + "!")
        #expect(try crashed.read { tx in try tx.length(of: text) } == expected.unicodeScalars.count + 1)
    }

    @Test("a string that is not UTF-8 makes the read throw, naming text-strings; the store is left as it was")
    func damagedString() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var store = try Store(directory: directory.path)
        let (text, _) = try Self.typeFile(into: store, writes: 2)
        try store.close()
        try MaintenanceSpec.damage(directory.path) { _, layout, tx in
            try tx.put([0x61, 0xFF, 0x62], forKey: StoreLayout.textKey(text), in: try #require(layout.textStrings))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb"))
        store = try Store(directory: directory.path, options: { var options = Store.Options(); options.access = .readOnly; return options }())
        let error = #expect(throws: StoreError.self) { try store.read { tx in try tx.string(of: text) } }
        #expect(error.map { "\($0)".contains("text-strings") } == true, "\(String(describing: error))")
        try store.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb")) == before)
    }

    @Test("a store without strings (format 4 and older) reads its texts from their snapshots, and its next checkpoint writes the string")
    func storeWithoutStrings() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var store = try Store(directory: directory.path)
        let (text, expected) = try Self.typeFile(into: store, writes: 3)
        try store.close()
        try MaintenanceSpec.damage(directory.path) { _, layout, tx in try tx.removeAll(in: try #require(layout.textStrings)) }

        store = try Store(directory: directory.path)
        #expect(try store.read { tx in try tx.string(of: text) } == expected)
        #expect(try store.verify().isHealthy)
        try store.write { tx in try tx.insert("?", at: 0, in: text) }
        try store.close()
        #expect(try Self.storedString(directory.path, text) == Array(("?" + expected).utf8))
    }

    @Test("a format-3 store opened read-only, which has no text-strings database and cannot get one, reads and verifies")
    func readOnlyOldStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, expected) = try StoreFormat2Tests.copyOfStore(format: 3, in: directory)
        var options = Store.Options()
        options.access = .readOnly
        let store = try Store(directory: path, options: options)
        let chapter = try store.read { tx in try #require(tx.all(QuireApps.File.self).first { $0.value.name == "Chapter One" }).id }
        #expect(try store.read { tx in try tx.string(of: chapter.text(QuireApps.File.contentField)) } == expected)
        try store.close()
        #expect(try Store.verify(directory: path).isHealthy)
        #expect(try StoreFormat2Tests.formatVersion(of: path) == 3, "nothing was written")
    }

    /// The string a read transaction gives, and the one the writer decodes.
    private static func both(_ store: Store, _ text: TextID) throws -> (read: String, decoded: String) {
        let read = try store.read { tx in try tx.string(of: text) }
        let decoded = try store.write { tx in try tx.string(of: text) }
        return (read, decoded)
    }

    @Test("after merges leaving changes pending, a record deleted and restored by undo, and compaction, each reopened store reads what the writer decodes")
    func readMatchesDecode() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let paths = ["a", "b", "c"].map { directory.path + "/\($0).quire" }
        var a = try Store(directory: paths[0], options: StoreSpec.options(replica: 1))
        var b = try Store(directory: paths[1], options: StoreSpec.options(replica: 2))
        var c = try Store(directory: paths[2], options: StoreSpec.options(replica: 3))
        let file = try a.write { tx in try tx.insert(File(name: "Ode")) }
        let text = file.text("content")
        try a.write { tx in try tx.insert("hello", at: 0, in: text) }
        try StoreSpec.send(a, to: b)
        try StoreSpec.send(a, to: c)
        try a.write { tx in try tx.insert("!", at: 5, in: text) }
        try StoreSpec.send(a, to: b)
        try b.write { tx in try tx.insert(" world", at: 6, in: text) }
        // c gets b's change without a's it depends on: pending.
        let onlyB = try b.changes(since: c.version).filter { $0.id.replica == ReplicaID(2) }
        _ = try c.apply(onlyB)
        try c.write { tx in try tx.insert(">", at: 0, in: text) }
        for (index, store) in [a, b, c].enumerated() {
            try store.close()
            let reopened = try Store(directory: paths[index], options: StoreSpec.options(replica: UInt64(index + 1)))
            let (read, decoded) = try Self.both(reopened, text)
            #expect(read == decoded, "replica \(index + 1)")
            try reopened.close()
        }
        a = try Store(directory: paths[0], options: StoreSpec.options(replica: 1))
        b = try Store(directory: paths[1], options: StoreSpec.options(replica: 2))
        c = try Store(directory: paths[2], options: StoreSpec.options(replica: 3))
        try StoreSpec.send(a, to: c)  // the pending change applies now
        try c.write { tx in try tx.delete(file) }
        try c.write { tx in _ = try tx.undo() }
        try c.write { tx in try tx.delete(0..<1, in: text) }
        try c.compact(to: directory.path + "/copy.quire")
        var (read, decoded) = try Self.both(c, text)
        #expect(read == decoded)
        try c.close()
        let copy = try Store(directory: directory.path + "/copy.quire", options: StoreSpec.options(replica: 3))
        (read, decoded) = try Self.both(copy, text)
        #expect(read == decoded)
        #expect(try copy.verify().isHealthy)
        try copy.close()
        c = try Store(directory: paths[2], options: StoreSpec.options(replica: 3))
        (read, decoded) = try Self.both(c, text)
        #expect(read == decoded)
        try c.close()
        try a.close()
        try b.close()
    }

    @Test("a format-3 store whose meta record is damaged past its format is refused by a read-write open, which adds no text-strings database: its file is left as it was")
    func refusedOpenLeavesFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, _) = try StoreFormat2Tests.copyOfStore(format: 3, in: directory)
        do {
            var configuration = Environment.Configuration()
            configuration.maxDatabases = 16
            let environment = try Environment(path: path, configuration: configuration)
            defer { try? environment.close() }
            let meta = try environment.openDatabase(named: "meta", options: [])
            try environment.write { tx in try tx.put([3], forKey: Key("store"), in: meta) }  // format 3, then nothing
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))
        #expect(throws: (any Error).self) { _ = try Store(directory: path) }
        let after = try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))
        #expect(after == before, "a refused open wrote to the store's file")
    }
}
