import Testing
@testable import QuireCore

/// Sibling order as users make it: appends, inserts at one spot, drags of one item to the
/// top, by one replica and by several at once. The full-size limits (100,000 inserts and
/// drags, a million appends) run in `quire bench tree`.
@Suite("Tree: sibling order without limits")
struct TreeSiblingOrderTests {
    /// The longest position key among `parent`'s children.
    func longestKey(under parent: NodeID, in tree: ReplicatedTree) -> Int {
        tree.children(of: parent).compactMap { tree.position(of: $0)?.bytes.count }.max() ?? 0
    }

    @Test("20,000 inserts at index 1 of one folder all succeed, in order, with keys of at most 64 bytes")
    func oneSpotInserts() throws {
        var tree = try treeReplica(1)
        let folder = try tree.create(under: .root).node
        let first = try tree.create(under: folder).node
        var inserted: [NodeID] = []
        for _ in 0..<20_000 { inserted.append(try tree.create(under: folder, at: 1).node) }
        #expect(tree.children(of: folder) == [first] + inserted.reversed())
        #expect(longestKey(under: folder, in: tree) <= 64)
        #expect(treeInvariantViolations(tree).isEmpty)
    }

    @Test("dragging the last of three clues to index 1, 20,000 times, never fails and keeps keys short")
    func dragsToTop() throws {
        var tree = try treeReplica(1)
        let note = try tree.create(under: .root).node
        for _ in 0..<3 { try tree.create(under: note) }
        for step in 0..<20_000 {
            let children = tree.children(of: note)
            try tree.move(children[2], to: note, at: 1)
            let after = tree.children(of: note)
            guard after == [children[0], children[2], children[1]] else {
                Issue.record("step \(step): \(after)")
                return
            }
        }
        #expect(longestKey(under: note, in: tree) <= 16)
    }

    @Test("100,000 appends and 20,000 inserts at index 0 keep keys within 8 bytes")
    func appendsAndPrepends() throws {
        var tree = try treeReplica(1)
        let folder = try tree.create(under: .root).node
        for _ in 0..<100_000 { try tree.create(under: folder) }
        #expect(longestKey(under: folder, in: tree) <= 8)
        let other = try tree.create(under: .root).node
        for _ in 0..<20_000 { try tree.create(under: other, at: 0) }
        #expect(longestKey(under: other, in: tree) <= 8)
    }

    @Test("5,000 drags to random places among 2,000 items keep keys short")
    func randomDrags() throws {
        var tree = try treeReplica(1)
        let folder = try tree.create(under: .root).node
        var items: [NodeID] = []
        for _ in 0..<2_000 { items.append(try tree.create(under: folder).node) }
        var random = SplitMix64(seed: 11)
        for _ in 0..<5_000 {
            let item = items[Int(random.next() % UInt64(items.count))]
            try tree.move(item, to: folder, at: Int(random.next() % UInt64(items.count)))
        }
        #expect(tree.childCount(of: folder) == items.count)
        #expect(longestKey(under: folder, in: tree) <= 24)
        #expect(treeInvariantViolations(tree).isEmpty)
    }

    @Test("keys another replica made are not continued: inserting after a peer's item still works")
    func afterPeerItems() throws {
        var a = try treeReplica(1), b = try treeReplica(2)
        let folder = try a.create(under: .root)
        let first = try a.create(under: folder.node)
        b.apply([folder, first])
        var operations: [TreeOperation] = []
        for _ in 0..<1_000 {
            // Alternate: each replica appends after the other's last item.
            let op = try b.create(under: folder.node)
            a.apply([op])
            let reply = try a.create(under: folder.node)
            b.apply([reply])
            operations += [op, reply]
        }
        #expect(convergenceViolations([a, b]).isEmpty)
        #expect(a.children(of: folder.node) == [first.node] + operations.map(\.node))
        #expect(longestKey(under: folder.node, in: a) <= 12)
    }

    @Test("runs inserted concurrently at one spot by 2–4 replicas stay in blocks, forwards and backwards",
          arguments: [2, 3, 4])
    func concurrentRunsDoNotInterleave(replicaCount: Int) throws {
        var origin = try treeReplica(1)
        let folder = try origin.create(under: .root)
        let left = try origin.create(under: folder.node)
        let right = try origin.create(under: folder.node)
        var replicas = try (0..<replicaCount).map { index in
            var tree = try treeReplica(UInt64(index + 10))
            tree.apply([folder, left, right])
            return tree
        }
        // Each replica types a run between `left` and `right`: even ones forwards (each
        // item after the previous), odd ones backwards (each at the same spot).
        var runs: [[NodeID]] = []
        for index in replicas.indices {
            var run: [NodeID] = []
            for step in 0..<200 {
                let at = index % 2 == 0 ? 1 + step : 1
                run.append(try replicas[index].create(under: folder.node, at: at).node)
            }
            runs.append(index % 2 == 0 ? run : run.reversed())
        }
        let everything = replicas.flatMap(\.operations)
        for index in replicas.indices { replicas[index].apply(everything) }
        #expect(convergenceViolations(replicas).isEmpty)
        let merged = replicas[0].children(of: folder.node)
        #expect(merged.first == left.node && merged.last == right.node)
        // The middle is the runs, each contiguous and in its own order.
        var middle = merged.dropFirst().dropLast()
        var blocks = 0
        while let next = middle.first {
            guard let run = runs.first(where: { $0.first == next }) else {
                Issue.record("a run does not start at \(next): the runs interleave")
                return
            }
            #expect(Array(middle.prefix(run.count)) == run)
            middle = middle.dropFirst(run.count)
            blocks += 1
        }
        #expect(blocks == replicaCount)
    }
}
