@_spi(Testing) import LMDB
@_spi(Testing) import Quire
import QuireCore
import QuireTestSupport
import Testing

/// Opens a tree in `directory`, runs `body`, and closes the environment.
private func withTree<R>(
    in directory: TemporaryDirectory, replica: UInt64 = 1, faults: FaultInjector? = nil,
    _ body: (PersistentTree) throws -> R
) throws -> R {
    var configuration = Environment.Configuration()
    configuration.mapSize = 8 << 20
    configuration.durability = .noSync
    configuration.faultInjector = faults
    let environment = try Environment(path: directory.path, configuration: configuration)
    defer { try? environment.close() }
    let tree = try PersistentTree(environment: environment, replica: ReplicaID(replica), seed: replica)
    return try body(tree)
}

/// Everything observable about a tree, for equality checks.
private struct Observed: Equatable, Sendable {
    var parents: [NodeID: NodeID] = [:]
    var children: [NodeID: [NodeID]] = [:]
    var metadata: [NodeID: [UInt8]] = [:]
    var operations: [TreeOperation] = []
    var clock: UInt64 = 0
    var nextCounter: UInt64 = 0

    init(_ tree: PersistentTree) {
        self = tree.read { tree in
            var observed = Observed()
            for node in tree.nodeIDs {
                observed.parents[node] = tree.parent(of: node)
                observed.metadata[node] = tree.metadata(of: node)
            }
            for node in tree.nodeIDs + [.root, .deletedRoot] { observed.children[node] = tree.children(of: node) }
            observed.operations = tree.operations
            observed.clock = tree.clock
            observed.nextCounter = tree.nextCounter
            return observed
        }
    }

    private init() {}
}

/// Operations of a second replica: folders and concurrent moves of the first replica's nodes.
private func remoteOperations(sharing operations: [TreeOperation], count: Int) throws -> [TreeOperation] {
    var peer = try ReplicatedTree(replica: ReplicaID(2), seed: 99)
    peer.apply(operations)
    var made: [TreeOperation] = []
    var nodes = peer.nodeIDs
    for step in 0..<count {
        if step % 3 == 0 || nodes.count < 2 {
            let created = try peer.create(under: nodes.isEmpty ? .root : nodes[step % nodes.count], metadata: Array("p\(step)".utf8))
            nodes.append(created.node)
            made.append(created)
        } else {
            let node = nodes[(step * 7) % nodes.count], parent = nodes[(step * 13) % nodes.count]
            if let move = try? peer.move(node, to: parent, at: 0) { made.append(move) }
        }
    }
    return made
}

@Suite("PersistentTree")
struct PersistentTreeTests {
    @Test("reopening yields the same tree, and the stored children index lists every node's children in order")
    func reopen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let before = try withTree(in: directory) { (tree: PersistentTree) throws in
            let local = try tree.perform { tree in
                var made: [TreeOperation] = []
                let projects = try tree.create(under: .root, metadata: Array("Projects".utf8))
                made.append(projects)
                for index in 0..<20 { made.append(try tree.create(under: projects.node, at: index % 3, metadata: Array("f\(index)".utf8))) }
                made.append(try tree.delete(made[3].node))
                return made
            }
            try tree.apply(try remoteOperations(sharing: local, count: 40))
            let observed = Observed(tree)
            for (node, children) in observed.children {
                #expect(try tree.storedChildren(of: node) == children, "children of \(node)")
            }
            #expect(try tree.storedLogCount() == observed.operations.count)
            return observed
        }
        let after = try withTree(in: directory) { (tree: PersistentTree) throws in
            let observed = Observed(tree)
            for (node, children) in observed.children { #expect(try tree.storedChildren(of: node) == children) }
            // The reopened tree keeps working: a new local move is newer than everything.
            _ = try tree.perform { tree in try tree.move(observed.children[.root]!.first!, to: .deletedRoot) }
            return observed
        }
        #expect(after == before)
    }

    @Test("a batch whose write throws midway leaves the previous state, in memory and after reopening")
    func abortedBatch() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (before, remote) = try withTree(in: directory) { (tree: PersistentTree) throws in
            let local = try tree.perform { tree in
                try (0..<10).map { index in try tree.create(under: .root, metadata: Array("n\(index)".utf8)) }
            }
            let remote = try remoteOperations(sharing: local, count: 30)
            // Local moves newer than part of the batch, so applying it undoes and redoes them.
            _ = try tree.perform { tree in try tree.move(local[0].node, to: local[1].node) }
            let before = Observed(tree)
            tree.failNextWrite(afterRecords: 5)
            #expect(throws: PersistentTree.InjectedFailure.self) { try tree.apply(remote) }
            #expect(Observed(tree) == before)
            // A body that throws leaves nothing behind either.
            struct Oops: Error {}
            #expect(throws: Oops.self) {
                try tree.perform { tree in
                    _ = try tree.create(under: .root)
                    throw Oops()
                }
            }
            #expect(Observed(tree) == before)
            return (before, remote)
        }
        try withTree(in: directory) { (tree: PersistentTree) throws in
            #expect(Observed(tree) == before)
            // The same batch applies cleanly afterwards.
            let report = try tree.apply(remote)
            #expect(report.applied + report.skipped.count == remote.count)
        }
    }

    @Test("a failed commit leaves the previous state, in memory and after reopening")
    func failedCommit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let faults = FaultInjector()
        let before = try withTree(in: directory, faults: faults) { tree in
            _ = try tree.perform { tree in try tree.create(under: .root, metadata: Array("kept".utf8)) }
            let before = Observed(tree)
            faults.fail(.commit, with: .ioError)
            #expect(throws: LMDBError.self) {
                try tree.perform { tree in try tree.create(under: .root, metadata: Array("lost".utf8)) }
            }
            #expect(Observed(tree) == before)
            return before
        }
        try withTree(in: directory) { tree in #expect(Observed(tree) == before) }
    }

    @Test("opening reads the stored state and does not replay the log")
    func openDoesNotReplay() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (node, layoutName) = try withTree(in: directory) { (tree: PersistentTree) throws in
            (try tree.perform { tree in try tree.create(under: .root).node }, tree.name)
        }
        // Plant a log entry that a replay would act on (moving the node to the trash).
        var configuration = Environment.Configuration()
        configuration.durability = .noSync
        let environment = try Environment(path: directory.path, configuration: configuration)
        let log = try environment.openDatabase(named: layoutName + ".log")
        let planted = TreeOperation(
            id: OperationID(replica: ReplicaID(7), counter: 0), lamport: 50, node: node, parent: .deletedRoot,
            position: PositionKey([1]), metadata: [])
        var entry = planted.encoded
        entry.append(1)  // "applied", no old state
        try environment.write { tx in try tx.put(entry, forKey: Key(UInt64(50), UInt64(7)), in: log) }
        try environment.close()
        try withTree(in: directory) { (tree: PersistentTree) throws in
            #expect(tree.read { $0.parent(of: node) } == .root)
            #expect(tree.read { $0.logCount } == 2)
        }
    }

    @Test("a store is refused to another replica, and a damaged record is reported, not crashed on")
    func refusals() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try withTree(in: directory) { tree in _ = try tree.perform { tree in try tree.create(under: .root) } }
        #expect(throws: TreeStoreError.replicaMismatch(stored: ReplicaID(1), requested: ReplicaID(2))) {
            try withTree(in: directory, replica: 2) { _ in }
        }
        let environment = try Environment(path: directory.path)
        let log = try environment.openDatabase(named: "tree.log")
        try environment.write { tx in try tx.put([0x80], forKey: Key(UInt64(99), UInt64(1)), in: log) }
        try environment.close()
        #expect {
            try withTree(in: directory) { _ in }
        } throws: { error in
            guard case TreeStoreError.corruptRecord(let database, _)? = error as? TreeStoreError else { return false }
            return database == "tree.log"
        }
    }

    @Test("log truncation drops stable entries from disk, survives reopening, and re-delivered old operations are duplicates")
    func truncation() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (local, before) = try withTree(in: directory) { (tree: PersistentTree) throws in
            let local = try tree.perform { tree in
                try (0..<10).map { index in try tree.create(under: .root, metadata: Array("n\(index)".utf8)) }
            }
            var received = VersionVector()
            for operation in local { received.record(operation.id) }
            // Replica 2 has seen everything and its clock is past it.
            let acknowledgement = TreeAcknowledgement(replica: ReplicaID(2), version: received, clock: 10)
            #expect(try tree.truncateLog(acknowledgements: [acknowledgement], received: received) == 10)
            #expect(try tree.storedLogCount() == 0)
            return (local, Observed(tree))
        }
        try withTree(in: directory) { (tree: PersistentTree) throws in
            let reopened = Observed(tree)
            #expect(reopened.parents == before.parents && reopened.children == before.children)
            #expect(tree.read { $0.truncatedThrough } == local.last?.timestamp)
            #expect(try tree.apply(local).duplicates == 10)
            #expect(try tree.storedLogCount() == 0)
        }
    }

    @Test("a node never moved costs no log entry; once it moves its creation is logged; reopening and a late older move give the same tree")
    func creationsHeldByNodeRecords() throws {
        let directory = try TemporaryDirectory()
        let nodes = try withTree(in: directory) { tree in
            let nodes = try tree.perform { tree in
                let folder = try tree.create(under: .root).node
                return try [folder] + (0..<100).map { _ in try tree.create(under: folder).node }
            }
            let logDatabase = try tree.environment.openDatabase(named: tree.name + ".log")
            let rawLog = { try tree.environment.read { tx in try tx.count(in: logDatabase) } }
            #expect(try rawLog() == 0)
            #expect(try tree.storedLogCount() == 101)
            try tree.perform { tree in
                for node in nodes[1...10] { try tree.move(node, to: nodes[0], at: 0) }
            }
            // Ten moves, and the ten creations they superseded.
            #expect(try rawLog() == 20)
            #expect(try tree.storedLogCount() == 111)
            return nodes
        }
        // A peer that saw nothing creates a node at Lamport time 1: applying it undoes
        // every entry, creations included, and redoes them, so the creations held by node
        // records must be back in the log after reopening.
        var peer = try ReplicatedTree(replica: ReplicaID(2), seed: 2)
        let early = try peer.create(under: .root)
        let (before, after) = try withTree(in: directory) { tree in
            #expect(try tree.storedLogCount() == 111)
            let before = Observed(tree)
            try tree.apply([early])
            #expect(try tree.storedLogCount() == 112)
            return (before, Observed(tree))
        }
        for node in nodes { #expect(after.parents[node] == before.parents[node]) }
        #expect(after.children[nodes[0]] == before.children[nodes[0]])
        #expect(after.parents[early.node] == .root)
        try withTree(in: directory) { tree in
            #expect(Observed(tree) == after)
            let stored = try Dictionary(uniqueKeysWithValues: ([.root] + tree.read { $0.nodeIDs }).map { ($0, try tree.storedChildren(of: $0)) })
            #expect(tree.read { memory in stored.allSatisfy { memory.children(of: $0.key) == $0.value } })
        }
    }
}
