import Foundation
import LMDB
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Store: identity and change log")
struct StoreChangeLogTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    @Test("first open creates a replica ID and a store ID that persist across reopening")
    func identityPersists() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let other = try TemporaryDirectory()
        defer { other.remove() }

        let first = try Store(directory: directory.path)
        let replica = first.replica, storeID = first.storeID
        #expect(replica.rawValue != 0)
        try first.write { tx in _ = try tx.insert(Folder(name: "Drafts")) }
        try first.close()

        let reopened = try Store(directory: directory.path)
        #expect(reopened.replica == replica)
        #expect(reopened.storeID == storeID)
        #expect(reopened.version[replica] > 0)
        try reopened.close()

        let unrelated = try Store(directory: other.path)
        #expect(unrelated.replica != replica)
        #expect(unrelated.storeID != storeID)
        try unrelated.close()
    }

    @Test("a second Store on one directory in one process is refused with alreadyOpen")
    func secondOpenRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Store(directory: directory.path)
        let error = #expect(throws: LMDBError.self) { _ = try Store(directory: directory.path) }
        #expect(error?.code == .alreadyOpen)
        // The first store keeps working, and once closed the directory opens again.
        try store.write { tx in _ = try tx.insert(Folder(name: "Still here")) }
        let replica = store.replica
        try store.close()
        let again = try Store(directory: directory.path)
        #expect(again.replica == replica)
        #expect(try again.read { tx in try tx.all(Folder.self).map(\.name) } == ["Still here"])
        try again.close()
    }

    @Test("a write that changes nothing makes no change and leaves the version alone")
    func emptyWrite() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let id = try store.write { tx throws in
            let id = try tx.insert(File(name: "Ode", rating: 3))
            try tx.insert("Hello", at: 0, in: id.text("content"))
            return id
        }
        let changes = try store.changes()
        let version = store.version
        #expect(changes.count == 1)

        try store.write { _ in }
        try store.write { tx in try tx.update(id, as: File.self) { $0.name = "Ode" } }
        try store.write { tx in try tx.replace(id, with: File(name: "Ode", rating: 3)) }
        try store.write { tx in try tx.setString("Hello", in: id.text("content")) }
        let read: String = try store.write { tx in try tx.string(of: id.text("content")) }
        #expect(read == "Hello")

        #expect(try store.changes() == changes)
        #expect(store.version == version)
        try replicas.reopen(0)
        #expect(try replicas[0].changes() == changes)
        #expect(replicas[0].version == version)
    }

    @Test("each changing write is one change: contiguous counters from 0, increasing Lamport times")
    func contiguousChanges() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let folder = try store.write { tx in try tx.insert(Folder(name: "Drafts")) }
        let file = try store.write { tx throws in
            let file = try tx.insert(File(name: "Ode"), under: folder)
            try tx.insert("Hello", at: 0, in: file.text("content"))
            try tx.insert(" world", at: 5, in: file.text("content"))
            return file
        }
        try store.write { tx in try tx.update(file, as: File.self) { $0.status = "ready" } }
        try store.write { tx in try tx.delete(file) }
        try store.write { tx in try tx.delete(0..<1, in: file.text("content")) }

        let changes = try store.changes()
        #expect(changes.count == 5)
        #expect(changes.allSatisfy { $0.id.replica == store.replica && $0.count > 0 })
        #expect(changes.first?.id.counter == 0)
        for (previous, next) in zip(changes, changes.dropFirst()) {
            #expect(next.id.counter == previous.endCounter, "counters of \(next) follow \(previous)")
            #expect(next.lamport > previous.lamport, "\(next) is later than \(previous)")
        }
        // An insert is a tree operation and a field write; the second write adds text.
        #expect(changes[0].count == 2)
        #expect(changes[1].count == 3)
        #expect(store.version == VersionVector([store.replica: changes.last!.endCounter]))
        #expect(changes.allSatisfy { $0.dependencies == VersionVector() })
        // changes(since:) starts after what the caller has.
        let since = try store.changes(since: VersionVector([store.replica: changes[2].endCounter]))
        #expect(since == Array(changes[3...]))
    }

    @Test("a change made after a merge depends on the merged replicas' versions and is later than them")
    func dependenciesAfterMerge() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let (a, b, c) = (replicas[0], replicas[1], replicas[2])
        for _ in 0..<3 { try b.write { tx in _ = try tx.insert(Folder(name: "B")) } }
        try c.write { tx in _ = try tx.insert(Folder(name: "C")) }
        try a.write { tx in _ = try tx.insert(Folder(name: "A1")) }
        #expect(try a.changes().last?.dependencies == VersionVector())

        try StoreSpec.send(b, to: a)
        try StoreSpec.send(c, to: a)
        let merged = try b.changes() + c.changes()
        try a.write { tx in _ = try tx.insert(Folder(name: "A2")) }
        let own = try a.changes(since: VersionVector([b.replica: 100, c.replica: 100, a.replica: 2]))
        #expect(own.count == 1)
        let change = try #require(own.first)
        #expect(change.id == ChangeID(replica: a.replica, counter: 2))
        #expect(change.dependencies == VersionVector([b.replica: b.version[b.replica], c.replica: c.version[c.replica]]))
        #expect(change.lamport > merged.map(\.lamport).max()!)
        #expect(a.version == VersionVector([a.replica: 4, b.replica: b.version[b.replica], c.replica: c.version[c.replica]]))

        // Nothing learned since: the next change depends on nothing new.
        try a.write { tx in _ = try tx.insert(Folder(name: "A3")) }
        #expect(try lastOwnDependencies(of: a) == VersionVector())
        // More of one replica only: the next change names that replica alone.
        try b.write { tx in _ = try tx.insert(Folder(name: "B4")) }
        try StoreSpec.send(b, to: a)
        try a.write { tx in _ = try tx.insert(Folder(name: "A4")) }
        #expect(try lastOwnDependencies(of: a) == VersionVector([b.replica: b.version[b.replica]]))
        try a.write { tx in _ = try tx.insert(Folder(name: "A5")) }
        #expect(try lastOwnDependencies(of: a) == VersionVector())
    }

    /// The dependencies of `store`'s own latest change.
    private func lastOwnDependencies(of store: Store) throws -> VersionVector? {
        try store.changes().filter { $0.id.replica == store.replica }.max { $0.id.counter < $1.id.counter }?.dependencies
    }
}

@Suite("Store: closing")
struct StoreClosingTests {
    @Test("after close, writes, change queries and merges throw and nothing is written")
    func callsAfterClose() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let id = try a.write { tx in try tx.insert(StoreSpec.Folder(name: "Before")) }
        try b.write { tx in _ = try tx.insert(StoreSpec.Folder(name: "Other")) }
        let changes = try a.changes()
        let incoming = try b.changes()
        try a.close()
        let writeError = #expect(throws: (any Error).self) {
            try a.write { tx in try tx.update(id, as: StoreSpec.Folder.self) { $0.name = "After" } }
        }
        #expect(throws: (any Error).self) { try a.changes() }
        #expect(throws: (any Error).self) { try a.apply(incoming) }
        #expect("\(writeError.map { "\($0)" } ?? "")".contains("closed"), "\(String(describing: writeError))")
        let reopened = try replicas.reopen(0)
        #expect(try reopened.changes() == changes)
        #expect(try reopened.read { tx in try tx.record(StoreSpec.Folder.self, id).name } == "Before")
    }
}
