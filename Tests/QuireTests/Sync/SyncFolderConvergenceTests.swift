import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Synchronization
import Testing

@Suite("Sync folder: replicas converge through one folder")
struct SyncFolderConvergenceTests {
    private typealias File = StoreSpec.File

    @Test("the first sync writes <replica>/<first>-<last>.qdelta and ack; an empty store adopts the lineage")
    func layout() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b) = (replicas[0], replicas[1])
        let file = try a.write { tx in try tx.insert(File(name: "Ode", status: "draft", rating: 1)) }
        try a.write { tx in try tx.insert("Hello", at: 0, in: file.text("content")) }
        let first = try a.sync(folder: folder.path)
        let end = a.version[a.replica]
        #expect(first.written == ["\(a.replica)/0-\(end - 1).qdelta"])
        #expect(try SyncSpec.entries(folder.path, a.replica.description) == ["0-\(end - 1).qdelta", "ack"])
        let ack = String(decoding: try SyncSpec.read(folder.appending("\(a.replica)/ack")), as: UTF8.self)
        #expect(ack == "quire-ack 1\nstore \(a.storeID)\n\(a.replica) \(end)\n")
        // Nothing new: nothing written, the acknowledgement is left as it is.
        let again = try a.sync(folder: folder.path)
        #expect(again.written.isEmpty && again.imported.isEmpty && again.skipped.isEmpty && again.ignored.isEmpty)

        let joined = try b.sync(folder: folder.path)
        #expect(joined.imported.map(\.path) == first.written)
        #expect(joined.merged.applied.count == 2)
        #expect(b.storeID == a.storeID)
        #expect(try StoreSpec.dump(b) == StoreSpec.dump(a))

        try b.write { tx in try tx.insert(" world", at: 5, in: file.text("content")) }
        let sent = try b.sync(folder: folder.path)
        #expect(sent.written == ["\(b.replica)/0-0.qdelta"])
        let received = try a.sync(folder: folder.path)
        #expect(received.imported.map(\.path) == sent.written)
        #expect(try a.read { tx in try tx.string(of: file.text("content")) } == "Hello world")
    }

    @Test("three replicas editing records, texts and the tree offline converge, synced in random orders",
          arguments: [UInt64(1), 7, 42, 2024])
    func randomOrders(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let stores = (0..<3).map { replicas[$0] }
        try stores[0].write { tx in
            let top = try tx.insert(StoreSpec.Folder(name: "Project"))
            let file = try tx.insert(File(name: "Start", status: "draft", rating: 0), under: top)
            try tx.insert("Once upon a time. ", at: 0, in: file.text("content"))
        }
        try stores[0].sync(folder: folder.path)
        try stores[1].sync(folder: folder.path)
        try stores[2].sync(folder: folder.path)
        #expect(Set(stores.map(\.storeID)).count == 1)

        for _ in 0..<8 {
            for store in stores {
                for _ in 0..<Int(random.next() % 5) { try SyncSpec.randomEdit(store, &random) }
            }
            for index in (0..<Int(2 + random.next() % 4)).map({ _ in Int(random.next() % 3) }) {
                let report = try stores[index].sync(folder: folder.path)
                #expect(report.skipped.isEmpty, "\(report.skipped)")
            }
        }
        // Two full passes: everyone writes, then everyone reads what the others wrote.
        for _ in 0..<2 {
            for store in stores.shuffled(using: &random) { try store.sync(folder: folder.path) }
        }
        let reference = try StoreSpec.dump(stores[0])
        for store in stores.dropFirst() {
            #expect(store.version == stores[0].version)
            #expect(try StoreSpec.dump(store) == reference)
        }
        #expect(reference.records.count > 2)
    }

    @Test("syncs of one store from several threads, while it is written, write no overlapping files and lose nothing")
    func concurrentSyncs() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b) = (replicas[0], replicas[1])
        let path = folder.path
        try a.write { tx in try tx.insert(File(name: "Log", status: "draft", rating: 0)) }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            do {
                for step in 0..<10 {
                    if index % 2 == 0 {
                        try a.sync(folder: path)
                    } else {
                        try a.write { tx in try tx.insert(File(name: "Entry \(index)-\(step)", status: "draft", rating: step)) }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        try a.sync(folder: path)
        let names = try SyncSpec.deltaFiles(path, of: a.replica)
        var next: UInt64 = 0
        for name in names {
            #expect(SyncSpec.first(of: name) == next, "\(names)")
            next = UInt64(name.dropFirst(String(SyncSpec.first(of: name)).count + 1).prefix { $0 != "." })! + 1
        }
        #expect(next == a.version[a.replica])
        try b.sync(folder: path)
        #expect(try StoreSpec.dump(b) == StoreSpec.dump(a))
    }
}
