import Testing
@testable import QuireCore

@Suite("Tree: log truncation")
struct TreeTruncationTests {
    /// The version a replica holds, from its log (operations arrive in order per replica here).
    private func version(_ tree: ReplicatedTree) -> VersionVector {
        var version = VersionVector()
        for operation in tree.operations { version.record(operation.id) }
        return version
    }

    private func acknowledgement(_ tree: ReplicatedTree) -> TreeAcknowledgement {
        TreeAcknowledgement(replica: tree.replica, version: version(tree), clock: tree.clock)
    }

    @Test("entries every replica has seen and acknowledged past are dropped; later merges still converge")
    func dropsStablePrefix() throws {
        var a = try treeReplica(1), b = try treeReplica(2)
        let f = try a.create(under: .root)
        let g = try a.create(under: .root)
        b.apply([f, g])
        let bMove = try b.move(g.node, to: f.node)
        a.apply([bMove])
        // B acknowledges having seen everything so far.
        let ack = acknowledgement(b)
        let aMove = try a.move(f.node, to: .deletedRoot)   // newer than B's acknowledgement
        let dropped = a.truncateLog(acknowledgements: [ack], received: version(a))
        #expect(dropped == 3)
        #expect(a.logCount == 1)
        #expect(a.truncatedThrough == bMove.timestamp)

        // Re-delivered old operations are recognised as duplicates and change nothing.
        let before = TreeSnapshot(a)
        #expect(a.apply([f, g, bMove]).duplicates == 3)
        #expect(TreeSnapshot(a) == before)

        // New concurrent operations merge as if nothing had been dropped.
        let bLater = try b.move(g.node, to: .root)
        a.apply([bLater])
        b.apply([aMove])
        #expect(convergenceViolations([a, b]).isEmpty)
        #expect(NaiveTreeModel(b.operations).differences(from: a).isEmpty)
    }

    @Test("nothing is dropped while a replica's own acknowledged operations have not all arrived")
    func waitsForAcknowledgedOperations() throws {
        var a = try treeReplica(1), b = try treeReplica(2)
        let f = try a.create(under: .root)
        b.apply([f])
        _ = try b.create(under: f.node)       // not yet delivered to A
        let ack = acknowledgement(b)
        #expect(a.truncatableCount(acknowledgements: [ack], received: version(a)) == 0)
    }

    @Test("an entry a replica has not seen, or whose Lamport value is past its clock, is kept")
    func keepsUnseenEntries() throws {
        var a = try treeReplica(1), b = try treeReplica(2)
        let f = try a.create(under: .root)
        b.apply([f])
        let ack = acknowledgement(b)
        _ = try a.create(under: .root)         // B has not seen it
        #expect(a.truncatableCount(acknowledgements: [ack], received: version(a)) == 1)
        // With a second replica that has seen nothing, nothing goes.
        let c = TreeAcknowledgement(replica: ReplicaID(3), version: VersionVector(), clock: 0)
        #expect(a.truncatableCount(acknowledgements: [ack, c], received: version(a)) == 0)
    }
}
