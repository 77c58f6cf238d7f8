import Foundation
import LMDB
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

/// The record types `store-test-typist mover` reads.
private struct TypistNote: Record {
    static let typeName = "note"
    var name: String
}

private struct TypistFolder: Record {
    static let typeName = "folder"
    var name: String
}

/// The writer reads the hierarchy whole only for a transaction that changes it: typing,
/// field writes and reads inside writes go to LMDB one node at a time.
@Suite("Store: the writer reads the hierarchy on demand")
struct WriterHierarchyOnDemandTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    @Test("after open, typing and field writes neither read the tree whole nor need it sound; the first move does, and a damaged tree fails it, naming tree.nodes, changing nothing")
    func writesWithoutTheTree() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let options = StoreSpec.options(replica: 1)
        var store = try Store(directory: directory.path, options: options)
        let (drafts, ode, other) = try store.write { tx in
            let drafts = try tx.insert(Folder(name: "Drafts"))
            let ode = try tx.insert(File(name: "Ode"), under: drafts)
            try tx.insert("sea", at: 0, in: ode.text("content"))
            return (drafts, ode, try tx.insert(Folder(name: "Other")))
        }
        try store.close()
        // A node no write below touches: reading the whole tree would meet it.
        try MaintenanceSpec.damage(directory.path) { _, layout, tx in
            try tx.put([0xFF], forKey: TreeStorageLayout.nodeKey(other.node), in: layout.tree.nodes)
        }
        store = try Store(directory: directory.path, options: options)
        defer { try? store.close() }

        try store.write { tx in try tx.insert("The ", at: 0, in: ode.text("content")) }
        try store.write { tx in try tx.update(ode, as: File.self) { $0.status = "ready" } }
        let seen = try store.write { tx in
            (try tx.get(File.self, ode)?.status, tx.parent(of: ode), tx.isDeleted(ode), tx.children(of: drafts))
        }
        #expect(seen.0 == "ready" && seen.1 == drafts && !seen.2 && seen.3 == [ode])
        #expect(store.lockedState.loadedTree == nil)

        let opened = store
        let error = #expect(throws: (any Error).self) {
            try opened.write { tx in
                try tx.insert("!", at: 7, in: ode.text("content"))
                _ = try tx.insert(File(name: "Hymn"), under: drafts)
            }
        }
        #expect(error.map { "\($0)".contains("tree.nodes") } == true, "\(String(describing: error))")
        let after = try store.read { tx in (try tx.string(of: ode.text("content")), tx.children(of: drafts)) }
        #expect(after.0 == "The sea" && after.1 == [ode])
    }

    @Test("a write's reads of the hierarchy before and after it reads the tree whole agree, and a restore works as the first hierarchy change")
    func answersBeforeAndAfterLoading() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let early = try StoreSnapshotReadTests.buildRichStore(replicas[0], replicas[1])
        let store = try replicas.reopen(0)
        let (fromLMDB, wasLoaded) = try store.write { tx in
            (try StoreSnapshotReadTests.report(tx, early: early), store.lockedState.loadedTree != nil)
        }
        #expect(!wasLoaded)
        let (fromMemory, isLoaded) = try store.write { tx in
            _ = try tx._state.hierarchyToChange()  // what a hierarchy change reads first
            return (try StoreSnapshotReadTests.report(tx, early: early), store.lockedState.loadedTree != nil)
        }
        #expect(isLoaded)
        #expect(fromLMDB.lines.contains { $0.contains("deleted true from index") })
        for (lmdbLine, memoryLine) in zip(fromLMDB.lines, fromMemory.lines) where lmdbLine != memoryLine {
            Issue.record("from LMDB: \(lmdbLine)\nin memory: \(memoryLine)")
        }
        #expect(fromLMDB == fromMemory)

        // A restore, the first hierarchy change after a reopen, finds the place from LMDB.
        let reopened = try replicas.reopen(0)
        let found = try reopened.read { tx -> (RecordID, RecordPlace)? in
            for deleted in tx.trash {
                if let place = tx.deletedFrom(deleted) { return (deleted, place) }
            }
            return nil
        }
        let (deleted, place) = try #require(found)
        try reopened.write { tx in try tx.restore(deleted) }
        let restored = try reopened.read { tx in (tx.parent(of: deleted), tx.isDeleted(deleted)) }
        #expect(restored.0 == place.parent && !restored.1)
    }

    @Test("another process's move reaches events(under:) with where the node came from, here where the tree was never read",
          .timeLimit(.minutes(1)))
    func otherProcessMoveWithoutTheTree() async throws {
        let typist = try BuiltProducts.executable(named: "store-test-typist")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("store")
        let setup = try Store(directory: path)
        let (inbox, archive, note) = try setup.write { tx in
            let inbox = try tx.insert(TypistFolder(name: "Inbox"))
            let archive = try tx.insert(TypistFolder(name: "Archive"))
            return (inbox, archive, try tx.insert(TypistNote(name: "memo"), under: inbox))
        }
        try setup.close()

        let app = try Store(directory: path)
        let fromInbox = app.events(under: inbox)
        let mover = try RunningProcess(typist, ["mover", path, "memo", "Archive"])
        let result = mover.finish()
        #expect(result.status == 0, "\(result.standardError)")

        // Polling brings the other process's commit; the loop ends at its event.
        var moved: StoreEvent.Move?
        for await event in fromInbox where event.origin == .otherProcess {
            moved = event.moves[note]
            break
        }
        #expect(moved == StoreEvent.Move(from: .under(inbox), to: .under(archive)))
        #expect(app.lockedState.loadedTree == nil)
        // The next hierarchy change here starts from the other process's commit.
        try app.write { tx in try tx.move(note, to: inbox, at: 0) }
        #expect(try app.read { tx in tx.children(of: inbox) } == [note])
        try app.close()
    }
}
