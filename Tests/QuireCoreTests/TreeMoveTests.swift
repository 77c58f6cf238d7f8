import Testing
@testable import QuireCore

@Suite("Tree: concurrent moves")
struct TreeMoveTests {
    /// Two replicas sharing `root ─ F, G, X`.
    private func twoReplicas() throws -> (a: ReplicatedTree, b: ReplicatedTree, f: NodeID, g: NodeID, x: NodeID) {
        var a = try treeReplica(1)
        let f = try a.create(under: .root, metadata: bytes("F"))
        let g = try a.create(under: .root, metadata: bytes("G"))
        let x = try a.create(under: .root, metadata: bytes("X"))
        var b = try treeReplica(2)
        b.apply([f, g, x])
        return (a, b, f.node, g.node, x.node)
    }

    @Test("concurrent moves of one node: the higher timestamp wins on every replica")
    func concurrentMovesOfOneNode() throws {
        var (a, b, f, g, x) = try twoReplicas()
        let toF = try a.move(x, to: f)
        let toG = try b.move(x, to: g)
        #expect(toF.lamport == toG.lamport)  // a tie on the clock: replica 2 wins
        a.apply([toG])
        b.apply([toF])
        #expect(a.parent(of: x) == g)
        #expect(b.parent(of: x) == g)
        #expect(convergenceViolations([a, b]).isEmpty)

        // With a higher Lamport value, replica 1's move wins.
        _ = try a.move(x, to: .root)
        let later = try a.move(x, to: f)
        let earlier = try b.move(x, to: .root)
        #expect(later.lamport > earlier.lamport)
        b.apply(a.operations)
        a.apply([earlier])
        #expect(a.parent(of: x) == f)
        #expect(convergenceViolations([a, b]).isEmpty)
    }

    @Test("two moves that together make a cycle: the lower timestamp wins, the other is skipped and reported")
    func cycle() throws {
        var (a, b, f, g, _) = try twoReplicas()
        let fUnderG = try a.move(f, to: g)
        let gUnderF = try b.move(g, to: f)
        #expect(fUnderG.timestamp < gUnderF.timestamp)

        let atA = a.apply([gUnderF])
        #expect(atA.skipped == [gUnderF.timestamp])
        #expect(atA.applied == 0)
        let atB = b.apply([fUnderG])
        #expect(atB.applied == 1)
        #expect(atB.redone == 1)
        #expect(atB.flipped == [gUnderF.timestamp])

        for tree in [a, b] {
            #expect(tree.parent(of: f) == g)
            #expect(tree.parent(of: g) == .root)
            #expect(tree.isApplied(gUnderF.timestamp) == false)
            #expect(tree.isApplied(fUnderG.timestamp) == true)
            #expect(tree.skippedCount == 1)
            #expect(treeInvariantViolations(tree).isEmpty)
        }
        #expect(convergenceViolations([a, b]).isEmpty)
    }

    @Test("a local move into the node's own subtree is refused and changes nothing")
    func localCycleRefused() throws {
        var (a, _, f, g, _) = try twoReplicas()
        try a.move(g, to: f)
        let before = a.logCount
        #expect(throws: TreeError.cycle(node: f, parent: g)) { try a.move(f, to: g) }
        #expect(throws: TreeError.cycle(node: f, parent: f)) { try a.move(f, to: f) }
        #expect(throws: TreeError.fixedNode(.root)) { try a.move(.root, to: f) }
        #expect(throws: TreeError.unknownNode(NodeID(replica: ReplicaID(9), counter: 9))) {
            try a.move(f, to: NodeID(replica: ReplicaID(9), counter: 9))
        }
        #expect(a.logCount == before)
        #expect(a.wouldCreateCycle(moving: f, under: g))
    }

    @Test("a move into a concurrently deleted folder lands in the deleted folder, and restoring brings both back")
    func moveIntoDeletedFolder() throws {
        var (a, b, f, _, x) = try twoReplicas()
        let deletion = try a.delete(f)
        let move = try b.move(x, to: f)
        a.apply([move])
        b.apply([deletion])
        for tree in [a, b] {
            #expect(tree.parent(of: f) == .deletedRoot)
            #expect(tree.parent(of: x) == f)
            #expect(tree.isDeleted(x))
        }
        #expect(convergenceViolations([a, b]).isEmpty)
        let restore = try b.restore(f, to: .root)
        a.apply([restore])
        #expect(!a.isDeleted(x))
        #expect(a.children(of: f) == [x])
        #expect(convergenceViolations([a, b]).isEmpty)
    }

    @Test("deleting a folder while another replica moves its child out: the child survives")
    func rescueFromDeletedFolder() throws {
        var (a, b, f, g, x) = try twoReplicas()
        let intoF = try a.move(x, to: f)
        b.apply([intoF])
        let deletion = try a.delete(f)
        let rescue = try b.move(x, to: g)
        a.apply([rescue])
        b.apply([deletion])
        for tree in [a, b] {
            #expect(tree.parent(of: f) == .deletedRoot)
            #expect(tree.parent(of: x) == g)
            #expect(!tree.isDeleted(x))
            #expect(tree.children(of: f).isEmpty)
        }
        #expect(convergenceViolations([a, b]).isEmpty)
    }

    @Test("a rename concurrent with a move: the later operation decides both place and name")
    func renameConcurrentWithMove() throws {
        var (a, b, f, _, x) = try twoReplicas()
        let rename = try a.rename(x, metadata: bytes("X renamed"))
        let move = try b.move(x, to: f)
        #expect(rename.timestamp < move.timestamp)
        a.apply([move])
        b.apply([rename])
        for tree in [a, b] {
            #expect(tree.parent(of: x) == f)
            #expect(tree.metadata(of: x) == bytes("X"))
        }
        // Renaming after seeing the move keeps the move.
        let rename2 = try a.rename(x, metadata: bytes("X2"))
        b.apply([rename2])
        #expect(b.parent(of: x) == f)
        #expect(b.metadata(of: x) == bytes("X2"))
        #expect(convergenceViolations([a, b]).isEmpty)
    }

    @Test("concurrent reorders of siblings converge to one order that honours both")
    func reorderConcurrentWithReorder() throws {
        var (a, b, f, g, x) = try twoReplicas()
        #expect(a.children(of: .root) == [f, g, x])
        #expect(b.children(of: .root) == [f, g, x])
        let xFirst = try a.move(x, to: .root, at: 0)
        let fLast = try b.move(f, to: .root, at: 2)
        #expect(a.children(of: .root) == [x, f, g])
        #expect(b.children(of: .root) == [g, x, f])
        a.apply([fLast])
        b.apply([xFirst])
        #expect(a.children(of: .root) == [x, g, f])
        #expect(convergenceViolations([a, b]).isEmpty)

        // Both insert at the front concurrently: one deterministic order.
        let p = try a.create(under: .root, at: 0, metadata: bytes("P"))
        let q = try b.create(under: .root, at: 0, metadata: bytes("Q"))
        a.apply([q])
        b.apply([p])
        #expect(a.children(of: .root).count == 5)
        #expect(Set(a.children(of: .root).prefix(2)) == [p.node, q.node])
        #expect(convergenceViolations([a, b]).isEmpty)
    }

    @Test("an operation arriving late flips an earlier-skipped operation to applied")
    func lateOperationFlipsSkipped() throws {
        var (a, b, f, g, _) = try twoReplicas()
        var c = try treeReplica(3)
        c.apply(a.operations)
        // z (oldest): G under F, made by C but delivered to A last.
        let z = try c.move(g, to: f)
        // a: F under G (made without z).  b: G under F, made without a or z.
        _ = try a.move(.root == f ? g : f, to: .root)  // advance A's clock past z
        let fUnderG = try a.move(f, to: g)
        _ = try b.move(g, to: .root)
        _ = try b.move(g, to: .root)
        let gUnderF = try b.move(g, to: f)
        #expect(z.timestamp < fUnderG.timestamp && fUnderG.timestamp < gUnderF.timestamp)

        a.apply(b.operations)
        #expect(a.isApplied(gUnderF.timestamp) == false)
        #expect(a.parent(of: f) == g)

        let report = a.apply([z])
        #expect(report.applied == 1)
        #expect(a.isApplied(fUnderG.timestamp) == false)
        #expect(a.isApplied(gUnderF.timestamp) == true)
        #expect(Set(report.flipped).isSuperset(of: [fUnderG.timestamp, gUnderF.timestamp]))
        #expect(a.parent(of: g) == f)
        #expect(a.parent(of: f) == .root)
        #expect(treeInvariantViolations(a).isEmpty)
        #expect(NaiveTreeModel(a.operations).differences(from: a).isEmpty)
    }

    @Test("a batch is undone and redone once, whatever order and duplicates it arrives in")
    func batchUndoesOnce() throws {
        var (a, b, f, g, x) = try twoReplicas()
        var remote: [TreeOperation] = []
        for round in 0..<10 {
            remote.append(try b.move(x, to: round % 2 == 0 ? f : g))
            _ = try a.move(f, to: .root, at: 0)
        }
        let localCount = a.logCount
        let report = a.apply(remote.reversed() + remote.prefix(3))
        #expect(report.applied == 10)
        #expect(report.duplicates == 3)
        // Everything local after the oldest remote operation was undone and redone once.
        #expect(report.redone <= localCount)
        #expect(report.redone >= 9)
        #expect(a.apply(remote).duplicates == 10)
        b.apply(a.operations)
        #expect(convergenceViolations([a, b]).isEmpty)
    }

    @Test("replica 0 is reserved for the fixed nodes")
    func reservedReplica() {
        #expect(throws: TreeError.reservedReplica) { try ReplicatedTree(replica: ReplicaID(0)) }
    }

    @Test("moves of the fixed nodes from a peer are kept but never applied")
    func peerMovesFixedNode() throws {
        var (a, _, f, _, _) = try twoReplicas()
        let hostile = TreeOperation(
            id: OperationID(replica: ReplicaID(5), counter: 0), lamport: 99,
            node: .root, parent: f, position: PositionKey([1]), metadata: [])
        let report = a.apply([hostile])
        #expect(report.skipped == [hostile.timestamp])
        #expect(a.parent(of: f) == .root)
        #expect(treeInvariantViolations(a).isEmpty)
    }
}
