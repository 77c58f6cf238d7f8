import Foundation
import LMDB
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

/// The writer reads records from LMDB on demand: opening loads none, the cache follows
/// what writes touch, and a damaged record fails the write that reads it, not the open.
@Suite("Store: opening loads nothing; records read on demand")
struct StoreRecordCacheTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    static func cached(_ store: Store) -> Int { store.state.withLock { $0.records.cachedCount } }

    @Test("opening reads no record; a write holds only the records it touched")
    func openingLoadsNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let options = StoreSpec.options(replica: 1)
        var store = try Store(directory: directory.path, options: options)
        let files = try store.write { tx in
            let folder = try tx.insert(Folder(name: "Drafts"))
            return try (0..<2_000).map { try tx.insert(File(name: "file \($0)"), under: folder) }
        }
        try store.close()
        store = try Store(directory: directory.path, options: options)
        defer { try? store.close() }
        #expect(Self.cached(store) == 0)
        #expect(try store.read { tx in try tx.record(File.self, files[7]).name } == "file 7")
        #expect(Self.cached(store) == 0, "a read reads its snapshot, not the writer's cache")
        try store.write { tx in try tx.update(files[42], as: File.self) { $0.status = "ready" } }
        #expect((1...3).contains(Self.cached(store)))
        #expect(try store.read { tx in try tx.record(File.self, files[42]).status } == "ready")
        // A query in a write sees the committed records and the session's changes.
        let (count, readyInWrite) = try store.write { tx in
            try tx.update(files[43], as: File.self) { $0.status = "ready" }
            _ = try tx.insert(File(name: "new", status: "ready"))
            return (try tx.all(File.self).count, try tx.all(File.self) { $0.status == "ready" }.map(\.value.name).sorted())
        }
        #expect(count == 2_001)
        #expect(readyInWrite == ["file 42", "file 43", "new"])
        #expect(try store.statistics().recordCount == 2_002)
    }

    @Test("opening reads the meta record only: reads never load the writer's state, the first write does")
    func openingDefersTheTree() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let options = StoreSpec.options(replica: 1)
        var store = try Store(directory: directory.path, options: options)
        let (folder, file) = try store.write { tx in
            let folder = try tx.insert(Folder(name: "Drafts"))
            let file = try tx.insert(File(name: "Ode"), under: folder)
            try tx.insert("The sea", at: 0, in: file.text("content"))
            return (folder, file)
        }
        let version = store.version
        try store.close()
        store = try Store(directory: directory.path, options: options)
        defer { try? store.close() }
        let isLoaded = { store.state.withLock { $0.isLoaded } }
        #expect(!isLoaded())
        let read = try store.read { tx in
            (tx.children(of: folder), try tx.string(of: file.text("content")), tx.path(of: file), tx.version)
        }
        #expect(read.0 == [file] && read.1 == "The sea" && read.2 == [folder, file] && read.3 == version)
        #expect(store.version == version)
        #expect(!isLoaded(), "reads and the version read LMDB, not the writer's state")
        try store.write { tx in try tx.move(file, to: nil) }
        #expect(isLoaded())
        #expect(try store.read { tx in (tx.children(of: nil), tx.children(of: folder)) } == ([folder, file], []))
        #expect(try store.changes().count == 2)
    }

    @Test("a write that touches more records than the cache keeps leaves it empty after the commit")
    func cacheTrimmed() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        try store.write { tx in
            for index in 0...RecordCache.limit { try tx.insert(Folder(name: "f \(index)")) }
        }
        #expect(Self.cached(store) == 0)
        #expect(try store.read { tx in tx.children(of: nil).count } == RecordCache.limit + 1)
    }

    @Test("a record read that fails for a moment (readers full) is not remembered as absent")
    func transientFailureNotCached() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let a = replicas[0]
        let file = try a.write { tx in try tx.insert(File(name: "Ode", status: "draft", rating: 5)) }
        try StoreSpec.send(a, to: replicas[1])
        let b = try replicas.reopen(1)  // nothing cached
        try a.write { tx in try tx.update(file, as: File.self) { $0.status = "ready" } }
        let missing = try a.changes(since: b.version)

        var held: [HeldReader] = []
        while held.count < 1_000 {
            do { held.append(HeldReader(try b.environment.beginRead())) } catch { break }
        }
        #expect(held.count < 1_000, "LMDB's reader table filled up")
        let failed = #expect(throws: LMDBError.self) { try b.write { tx in _ = try tx.get(File.self, file) } }
        #expect(failed?.code == .readersFull, "\(String(describing: failed))")
        held.removeAll()

        #expect(try b.write { tx in try tx.get(File.self, file) } == File(name: "Ode", status: "draft", rating: 5))
        try b.apply(missing)
        #expect(try b.read { tx in try tx.get(File.self, file) } == File(name: "Ode", status: "ready", rating: 5))
    }

    @Test("a damaged record fails the write that reads it, naming the database; the store is unchanged")
    func damagedRecord() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let options = StoreSpec.options(replica: 1)
        var store = try Store(directory: directory.path, options: options)
        let (good, bad) = try store.write { tx in (try tx.insert(Folder(name: "Good")), try tx.insert(Folder(name: "Bad"))) }
        try store.close()
        try MaintenanceSpec.damage(directory.path) { _, layout, tx in
            try tx.put([0xFF, 0x00, 0x01], forKey: StoreLayout.recordKey(bad), in: layout.records)
        }
        store = try Store(directory: directory.path, options: options)  // opens: nothing read yet
        defer { try? store.close() }
        let version = store.version
        let error = #expect(throws: StoreError.self) {
            try store.write { tx in try tx.update(bad, as: Folder.self) { $0.name = "Worse" } }
        }
        #expect(error.map { "\($0)".contains("records") } == true, "\(String(describing: error))")
        #expect(store.version == version)
        try store.write { tx in try tx.update(good, as: Folder.self) { $0.name = "Better" } }
        #expect(try store.read { tx in try tx.record(Folder.self, good).name } == "Better")
        #expect(throws: StoreError.self) { try store.read { tx in try tx.get(Folder.self, bad) } }
    }
}

/// A read transaction held in an array (it is noncopyable).
private final class HeldReader {
    let transaction: ReadTransaction
    init(_ transaction: consuming ReadTransaction) { self.transaction = transaction }
}
