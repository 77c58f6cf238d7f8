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

/// The writer reads the hierarchy whole only to merge another replica's moves: typing,
/// field writes, local moves and reads inside writes go to LMDB one node or folder at a
/// time.
@Suite("Store: the writer reads the hierarchy on demand")
struct WriterHierarchyOnDemandTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    @Test("typing, field writes, creating, moving, deleting and restoring never read the tree whole: an unrelated damaged node stops none of them; a merge of another replica's move reads it, fails naming tree.nodes and changes nothing")
    func writesWithoutTheTree() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (drafts, ode, other) = try replicas[0].write { tx in
            let drafts = try tx.insert(Folder(name: "Drafts"))
            let ode = try tx.insert(File(name: "Ode"), under: drafts)
            try tx.insert("sea", at: 0, in: ode.text("content"))
            return (drafts, ode, try tx.insert(Folder(name: "Other")))
        }
        try StoreSpec.sync(replicas[0], replicas[1])
        try replicas[0].close()
        // A node no local write below touches: reading the whole tree would meet it.
        try MaintenanceSpec.damage(replicas.directories[0].path) { _, layout, tx in
            try tx.put([0xFF], forKey: TreeStorageLayout.nodeKey(other.node), in: layout.tree.nodes)
        }
        let store = try replicas.reopen(0)

        try store.write { tx in try tx.insert("The ", at: 0, in: ode.text("content")) }
        try store.write { tx in try tx.update(ode, as: File.self) { $0.status = "ready" } }
        let (ready, hymn) = try store.write { tx in
            let ready = try tx.insert(Folder(name: "Ready"))
            return (ready, try tx.insert(File(name: "Hymn"), under: drafts, at: 0))
        }
        try store.write { tx in try tx.move(ode, to: ready) }
        try store.write { tx in try tx.delete(hymn) }
        try store.write { tx in try tx.restore(hymn) }
        try store.write { tx in try tx.reorder(ready, to: 0) }
        let seen = try store.write { tx in
            (try tx.get(File.self, ode)?.status, tx.parent(of: ode), tx.isDeleted(hymn), tx.children(of: drafts),
             tx.children(of: nil))
        }
        #expect(seen.0 == "ready" && seen.1 == ready && !seen.2 && seen.3 == [hymn] && seen.4 == [ready, drafts, other])
        #expect(store.lockedState.loadedTree == nil)

        try replicas[1].write { tx in _ = try tx.insert(Folder(name: "Theirs")) }
        let before = try store.read { tx in (tx.version, tx.children(of: nil)) }
        let error = #expect(throws: (any Error).self) { try StoreSpec.send(replicas[1], to: store) }
        #expect(error.map { "\($0)".contains("tree.nodes") } == true, "\(String(describing: error))")
        let after = try store.read { tx in (tx.version, tx.children(of: nil), try tx.string(of: ode.text("content"))) }
        #expect(after.0 == before.0 && after.1 == before.1 && after.2 == "The sea")
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
            _ = try tx._state.hierarchyToChange()  // what a merge of moves reads first
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
        // Two notes after the memo, in one write: this process lists Inbox's children (and
        // keeps the list for its next writes).
        let kept = try app.write { tx in
            [try tx.insert(TypistNote(name: "one"), under: inbox), try tx.insert(TypistNote(name: "two"), under: inbox)]
        }
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
        // The next hierarchy change here starts from the other process's commit, not from
        // the children of Inbox this process listed before it.
        let third = try app.write { tx in try tx.insert(TypistNote(name: "third"), under: inbox, at: 1) }
        #expect(try app.read { tx in tx.children(of: inbox) } == [kept[0], third, kept[1]])
        try app.write { tx in try tx.move(note, to: inbox, at: 0) }
        #expect(try app.read { tx in tx.children(of: inbox) } == [note, kept[0], third, kept[1]])
        try app.close()
    }

    @Test("random creates, moves, reorders and deletes, several per write, some rolled back: on LMDB and in memory both match a plain model of ordered lists, and verify finds the store healthy",
          arguments: [1, 2, 3])
    func randomLocalMoves(seed: UInt64) throws {
        // Two stores of one replica ID: the same steps make the same IDs in both.
        let (onLMDB, inMemory) = (try Replicas(1), try Replicas(1))
        defer { onLMDB.close(); inMemory.close() }
        let stores = [onLMDB[0], inMemory[0]]
        var random = SplitMix64(seed: seed)
        var model = OrderedTreeModel()
        for batch in 0..<40 {
            let steps = (0..<Int(random.next() % 6 + 1)).map { _ in OrderedTreeModel.Step.random(using: &random) }
            let rolledBack = batch % 7 == 3
            var outcomes: [[RecordID]] = []
            var next = model
            for (index, store) in stores.enumerated() {
                next = model
                outcomes.append(try Self.run(steps, on: store, model: &next, inMemory: index == 1, rollBack: rolledBack))
            }
            model = next
            #expect(outcomes[0] == outcomes[1], "batch \(batch): the two paths made different records")
            for store in stores {
                let listed = try store.read { tx in model.parents.map { tx.children(of: $0) } + [tx.trash] }
                #expect(listed == model.parents.map { model.children[$0] ?? [] } + [model.children[OrderedTreeModel.trash] ?? []],
                        "batch \(batch)")
            }
        }
        #expect(model.nodes.count > 40)
        #expect(try onLMDB[0].read { tx in tx.version } == inMemory[0].read { tx in tx.version })
        for replicas in [onLMDB, inMemory] {
            let report = try replicas.reopen(0).verify()
            #expect(report.isHealthy, "\(report.problems.prefix(3))")
        }
    }

    /// Runs `steps` in one write of `store` — with the tree read whole first when
    /// `inMemory`, else on LMDB — applying each to `model` too; a step the store refuses
    /// (a cycle) must be one the model refuses. `rollBack` throws at the end.
    /// - Returns: The records created.
    private static func run(
        _ steps: [OrderedTreeModel.Step], on store: Store, model: inout OrderedTreeModel, inMemory: Bool, rollBack: Bool
    ) throws -> [RecordID] {
        struct RollBack: Error {}
        var created: [RecordID] = []
        var working = model
        do {
            try store.write { tx in
                if inMemory { _ = try tx._state.hierarchyToChange() }
                working = model
                created = []
                for step in steps {
                    switch working.resolve(step) {
                    case .create(let parent, let index):
                        let id = try tx.insert(Folder(name: "n\(working.nodes.count)"), under: parent, at: index)
                        working.place(id, under: parent, at: index)
                        created.append(id)
                    case .move(let node, let parent, let index):
                        guard !working.isInside(parent, node) else {
                            #expect(throws: StoreError.self) { try tx.move(node, to: parent, at: index) }
                            continue
                        }
                        try tx.move(node, to: parent, at: index)
                        working.place(node, under: parent, at: index)
                    case .delete(let node):
                        try tx.delete(node)
                        working.place(node, under: OrderedTreeModel.trash, at: nil)
                    case nil:
                        continue
                    }
                }
                if rollBack { throw RollBack() }
            }
        } catch is RollBack {
            return created
        }
        model = working
        return created
    }
}

/// What the hierarchy should be after local moves: each parent's children in order, a
/// move inserting at its index among the siblings without the node itself.
private struct OrderedTreeModel {
    /// The trash's key in ``children`` (the top level's is `nil`).
    static let trash = RecordID(NodeID.deletedRoot)
    var nodes: [RecordID] = []
    var parentOf: [RecordID: RecordID?] = [:]
    var children: [RecordID?: [RecordID]] = [:]
    /// Every parent to compare: the top level and each node.
    var parents: [RecordID?] { [nil] + nodes }

    /// A step drawn at random, resolved against the model when it runs.
    struct Step {
        var kind: UInt64, node: UInt64, parent: UInt64, index: UInt64

        static func random(using random: inout SplitMix64) -> Step {
            Step(kind: random.next() % 10, node: random.next(), parent: random.next(), index: random.next())
        }
    }

    enum Resolved {
        case create(under: RecordID?, at: Int?)
        case move(RecordID, to: RecordID?, at: Int?)
        case delete(RecordID)
    }

    func resolve(_ step: Step) -> Resolved? {
        let parent = step.parent % 4 == 0 || nodes.isEmpty ? nil : nodes[Int(step.parent / 4 % UInt64(nodes.count))]
        func index(among count: Int) -> Int? { step.index % 5 == 0 ? nil : Int(step.index / 5 % UInt64(count + 1)) }
        if step.kind < 5 || nodes.isEmpty { return .create(under: parent, at: index(among: children[parent]?.count ?? 0)) }
        let node = nodes[Int(step.node % UInt64(nodes.count))]
        if step.kind == 9 { return .delete(node) }
        let siblings = (children[parent] ?? []).filter { $0 != node }
        return .move(node, to: parent, at: index(among: siblings.count))
    }

    /// Whether `parent` is `node` or inside its subtree.
    func isInside(_ parent: RecordID?, _ node: RecordID) -> Bool {
        var current = parent
        while let visited = current, visited != Self.trash {
            if visited == node { return true }
            current = parentOf[visited] ?? nil
        }
        return false
    }

    mutating func place(_ node: RecordID, under parent: RecordID?, at index: Int?) {
        if let old = parentOf[node] {
            children[old]?.removeAll { $0 == node }
        } else {
            nodes.append(node)
        }
        parentOf[node] = .some(parent)
        children[parent, default: []].insert(node, at: index ?? children[parent, default: []].count)
    }
}
