import Dispatch
import Foundation
@testable import Quire
import QuireTestSupport
import Synchronization
import Testing

/// Each thread keeps one snapshot object per store it reads and reuses it from read to
/// read (`ThreadReads`): what one read saw, noted or kept must never reach the next, a
/// kept snapshot must not keep its store alive, and a store made where a freed one lived
/// must never be served the freed one's snapshot.
@Suite("Store: the thread's reused snapshots")
struct StoreThreadSnapshotTests {
    typealias Folder = StoreSpec.Folder

    @Test("a thread reading more stores than it keeps snapshots of reads each store's own data, in any order")
    func manyStores() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let count = ThreadReads.capacity + 4
        var stores: [Store] = []
        defer { for store in stores { try? store.close() } }
        for index in 0..<count {
            let store = try Store(directory: directory.path + "/\(index)", options: StoreSpec.options(replica: UInt64(index + 1)))
            stores.append(store)
            try store.write { tx in _ = try tx.insert(Folder(name: "store \(index)")) }
        }
        var order = Array(0..<count)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<3 {
            for index in order {
                let names = try stores[index].read { tx in
                    try tx.children(of: nil).map { try tx.record(Folder.self, $0).name }
                }
                #expect(names == ["store \(index)"])
            }
            order.shuffle(using: &random)
        }
    }

    @Test("each read sees its own commit, not the one the reused snapshot saw before")
    func eachReadItsOwnCommit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Store(directory: directory.path, options: StoreSpec.options(replica: 1))
        defer { try? store.close() }
        var versions: [VersionVector] = []
        for index in 0..<5 {
            try store.write { tx in _ = try tx.insert(Folder(name: "folder \(index)")) }
            let (count, version) = try store.read { tx in (tx.children(of: nil).count, tx.version) }
            #expect(count == index + 1)
            #expect(store.version == version, "outside a read, the store's own version")
            versions.append(version)
        }
        #expect(Set(versions).count == 5)
    }

    @Test("the thread's snapshot does not keep its store alive")
    func storeIsFreed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        weak var freed: Store?
        do {
            let store = try Store(directory: directory.path, options: StoreSpec.options(replica: 1))
            freed = store
            try store.write { tx in _ = try tx.insert(Folder(name: "Drafts")) }
            #expect(try store.read { tx in tx.children(of: nil).count } == 1)
            try store.close()
        }
        #expect(freed == nil)
    }

    @Test("stores made after others were freed, likely at their addresses, read their own data")
    func freedStoresSuccessors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for index in 0..<40 {
            let store = try Store(directory: directory.path + "/\(index)", options: StoreSpec.options(replica: UInt64(index + 1)))
            try store.write { tx in _ = try tx.insert(Folder(name: "store \(index)")) }
            let names = try store.read { tx in try tx.children(of: nil).map { try tx.record(Folder.self, $0).name } }
            #expect(names == ["store \(index)"])
            try store.close()
        }
    }

    @Test("threads reading one store at once each read through their own snapshot")
    func threadsReadAtOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Store(directory: directory.path, options: StoreSpec.options(replica: 1))
        defer { try? store.close() }
        let ids = try store.write { tx in try (0..<50).map { try tx.insert(Folder(name: "folder \($0)")) } }
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<200 {
                let index = (thread * 37 + round) % ids.count
                let read = try? store.read { tx in try tx.record(Folder.self, ids[index]).name }
                // A nested read is refused on this thread only, whatever the others run.
                let nested = Result { try store.read { _ in try store.read { _ in 0 } } }
                if read != "folder \(index)" || (try? nested.get()) != nil { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}
