import Testing
@testable import QuireCore

/// A small seeded generator for the property tests.
struct TestRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Replicas making random creates, moves, deletes, restores, renames and reorders, and
/// receiving each other's operations in random batches, in random order, with duplicates.
struct TreeSimulation {
    var replicas: [ReplicatedTree]
    /// Every operation each replica made, in order.
    var made: [[TreeOperation]]
    /// Every operation each replica has received or made.
    var known: [Set<Timestamp>]
    var all: [Timestamp: TreeOperation] = [:]
    /// What the maker of each operation had seen when it made it: its causal past.
    var dependencies: [Timestamp: Set<Timestamp>] = [:]
    var random: TestRandom
    /// Deliver each sender's operations in order (causal per sender) or in any order.
    let causal: Bool

    init(replicaCount: Int, seed: UInt64, causal: Bool) throws {
        replicas = try (1...replicaCount).map { try treeReplica(UInt64($0)) }
        made = Array(repeating: [], count: replicaCount)
        known = Array(repeating: [], count: replicaCount)
        random = TestRandom(state: seed)
        self.causal = causal
    }

    mutating func pick<T>(_ items: [T]) -> T? {
        items.isEmpty ? nil : items[Int(random.next() % UInt64(items.count))]
    }

    /// One random local operation on replica `r`.
    mutating func localStep(_ r: Int) {
        var tree = replicas[r]
        let nodes = tree.nodeIDs
        let live = nodes.filter { !tree.isDeleted($0) }
        let choice = random.next() % 10
        var operation: TreeOperation?
        do {
            switch choice {
            case 0...2:
                let parent = pick(live + [.root]) ?? .root
                let index = Int(random.next() % UInt64(tree.childCount(of: parent) + 1))
                operation = try tree.create(under: parent, at: index, metadata: bytes("n\(random.next() % 100)"))
            case 3...5:
                guard let node = pick(nodes) else { break }
                let parent = pick(live + [.root]) ?? .root
                if tree.wouldCreateCycle(moving: node, under: parent) {
                    #expect(throws: TreeError.self) { try tree.move(node, to: parent) }
                    break
                }
                let siblings = tree.childCount(of: parent) - (tree.parent(of: node) == parent ? 1 : 0)
                operation = try tree.move(node, to: parent, at: Int(random.next() % UInt64(siblings + 1)))
            case 6:
                guard let node = pick(live) else { break }
                operation = try tree.delete(node)
            case 7:
                guard let node = pick(tree.children(of: .deletedRoot)) else { break }
                operation = try tree.restore(node, to: pick(live.filter { !tree.wouldCreateCycle(moving: node, under: $0) }) ?? .root)
            case 8:
                guard let node = pick(nodes) else { break }
                operation = try tree.rename(node, metadata: bytes("r\(random.next() % 100)"))
            default:
                guard let parent = pick(live + [.root]), tree.childCount(of: parent) > 1, let node = pick(tree.children(of: parent)) else { break }
                operation = try tree.move(node, to: parent, at: Int(random.next() % UInt64(tree.childCount(of: parent))))
            }
        } catch {
            Issue.record("a valid local operation was refused: \(error)")
        }
        replicas[r] = tree
        if let operation {
            dependencies[operation.timestamp] = known[r]
            made[r].append(operation)
            known[r].insert(operation.timestamp)
            all[operation.timestamp] = operation
        }
    }

    /// A long run at one spot on replica `r`: up to 300 creates at index 1 of one folder,
    /// or drags of its last child to index 1 (a flash-card user moving a card to the top
    /// again and again).
    mutating func burstStep(_ r: Int) throws {
        var tree = replicas[r]
        let live = tree.nodeIDs.filter { !tree.isDeleted($0) }
        let parent = pick(live + [.root]) ?? .root
        let count = 1 + Int(random.next() % 300)
        var operations: [TreeOperation] = []
        if random.next() % 2 == 0 || tree.childCount(of: parent) < 3 {
            let index = min(1, tree.childCount(of: parent))
            for _ in 0..<count { operations.append(try tree.create(under: parent, at: index, metadata: bytes("b"))) }
        } else {
            for _ in 0..<count { operations.append(try tree.move(tree.children(of: parent).last!, to: parent, at: 1)) }
        }
        replicas[r] = tree
        for operation in operations {
            dependencies[operation.timestamp] = known[r]
            made[r].append(operation)
            known[r].insert(operation.timestamp)
            all[operation.timestamp] = operation
        }
    }

    /// Delivers a random batch to replica `r`: some operations of the others it lacks,
    /// shuffled, plus a few it already has.
    mutating func deliveryStep(_ r: Int) -> TreeMergeReport {
        var batch: [TreeOperation] = []
        for sender in made.indices where sender != r {
            let missing = made[sender].filter { !known[r].contains($0.timestamp) }
            guard !missing.isEmpty else { continue }
            if causal {
                // A prefix of what is missing, in the sender's order, stopping at the
                // first operation whose causal past has not all arrived.
                let count = Int(random.next() % UInt64(missing.count)) + 1
                for operation in missing.prefix(count) {
                    guard dependencies[operation.timestamp, default: []].isSubset(of: known[r].union(batch.map(\.timestamp))) else { break }
                    batch.append(operation)
                }
            } else {
                batch += missing.filter { _ in random.next() % 2 == 0 }
            }
        }
        let duplicates = Array(known[r].prefix(Int(random.next() % 3))).compactMap { all[$0] }
        batch += duplicates
        batch.shuffle(using: &random)
        for operation in batch { known[r].insert(operation.timestamp) }
        return replicas[r].apply(batch)
    }

    /// Delivers everything to everyone.
    mutating func exchangeAll() {
        let everything = Array(all.values)
        for r in replicas.indices {
            replicas[r].apply(everything.shuffled(using: &random))
            known[r] = Set(all.keys)
        }
    }

    /// The invariants of replica `r`, and whether the naive model agrees with it.
    func problems(_ r: Int) -> [String] {
        let tree = replicas[r]
        var problems = treeInvariantViolations(tree, allowingMissingAncestors: !causal)
        problems += NaiveTreeModel(known[r].compactMap { all[$0] }).differences(from: tree)
        if tree.logCount != known[r].count { problems.append("log holds \(tree.logCount) of \(known[r].count) operations") }
        return problems
    }
}

@Suite("Tree: properties")
struct TreePropertyTests {
    @Test("after every step: one parent, no cycle, reachable, agrees with the naive model; after full exchange all replicas are identical",
          arguments: [false, true])
    func randomHistories(causal: Bool) throws {
        for seed in UInt64(1)...40 {
            var simulation = try TreeSimulation(replicaCount: Int(seed % 4) + 2, seed: seed &* 1_000_003, causal: causal)
            for step in 0..<150 {
                let r = Int(simulation.random.next() % UInt64(simulation.replicas.count))
                if simulation.random.next() % 3 == 0 {
                    _ = simulation.deliveryStep(r)
                } else {
                    simulation.localStep(r)
                }
                let problems = simulation.problems(r)
                #expect(problems.isEmpty, "seed \(seed) step \(step) replica \(r): \(problems.prefix(5))")
                if !problems.isEmpty { return }
            }
            simulation.exchangeAll()
            for r in simulation.replicas.indices {
                #expect(treeInvariantViolations(simulation.replicas[r]).isEmpty, "seed \(seed)")
                #expect(simulation.problems(r).isEmpty, "seed \(seed)")
            }
            #expect(convergenceViolations(simulation.replicas).isEmpty, "seed \(seed)")
            #expect(simulation.replicas.allSatisfy { $0.nodeCount == simulation.replicas[0].nodeCount })
        }
    }

    @Test("long runs of inserts at one spot and drags to the top on 2–4 replicas agree with the naive model and converge",
          arguments: [2, 3, 4])
    func oneSpotRuns(replicaCount: Int) throws {
        for seed in UInt64(1)...6 {
            var simulation = try TreeSimulation(replicaCount: replicaCount, seed: seed &* 7_777 &+ UInt64(replicaCount), causal: true)
            for step in 0..<40 {
                let r = Int(simulation.random.next() % UInt64(simulation.replicas.count))
                switch simulation.random.next() % 4 {
                case 0: _ = simulation.deliveryStep(r)
                case 1: simulation.localStep(r)
                default: try simulation.burstStep(r)
                }
                let problems = simulation.problems(r)
                #expect(problems.isEmpty, "seed \(seed) step \(step) replica \(r): \(problems.prefix(5))")
                if !problems.isEmpty { return }
            }
            simulation.exchangeAll()
            #expect(convergenceViolations(simulation.replicas).isEmpty, "seed \(seed)")
            let longest = simulation.all.values.map(\.position.bytes.count).max() ?? 0
            #expect(longest <= 64, "seed \(seed): a \(longest)-byte key")
        }
    }

    @Test("state restored from its stored records equals the original, and merges on identically")
    func restoreFromRecords() throws {
        var simulation = try TreeSimulation(replicaCount: 3, seed: 77, causal: true)
        for step in 0..<80 {
            if step % 4 == 3 { _ = simulation.deliveryStep(step % 3) } else { simulation.localStep(step % 3) }
        }
        let original = simulation.replicas[0]
        var restored = try ReplicatedTree(
            replica: original.replica, clock: original.clock, nextCounter: original.nextCounter,
            truncatedThrough: original.truncatedThrough, nodes: original.nodeRecords, log: original.logRecords)
        #expect(convergenceViolations([original, restored]).isEmpty)
        #expect(restored.logRecords == original.logRecords)
        var merged = original
        let rest = Array(simulation.all.values)
        merged.apply(rest)
        restored.apply(rest)
        #expect(convergenceViolations([merged, restored]).isEmpty)
        #expect(treeInvariantViolations(restored).isEmpty)
    }

    @Test("a change session lists what changed, and reverting it restores the exact previous state")
    func changeSessions() throws {
        var simulation = try TreeSimulation(replicaCount: 3, seed: 5, causal: true)
        for step in 0..<60 { simulation.localStep(step % 3) }
        var tree = simulation.replicas[0]
        let before = tree
        tree.beginChanges()
        let incoming = simulation.made[1] + simulation.made[2]
        tree.apply(incoming)
        _ = try tree.create(under: .root, metadata: bytes("local"))
        let changes = tree.pendingChanges()
        #expect(changes.logEntries.count >= incoming.count + 1)
        #expect(!changes.nodes.isEmpty)
        tree.revertChanges()
        #expect(convergenceViolations([before, tree]).isEmpty)
        #expect(tree.logRecords == before.logRecords)
        #expect(tree.clock == before.clock && tree.nextCounter == before.nextCounter)
        #expect(treeInvariantViolations(tree).isEmpty)
    }
}

@Suite("Tree: the checkers catch broken trees")
struct TreeCheckerTests {
    @Test("the invariant checker reports a cycle and a node listed under the wrong parent")
    func invariantCheckerFails() throws {
        var tree = try treeReplica(1)
        let a = try tree.create(under: .root).node
        let b = try tree.create(under: a).node
        #expect(treeInvariantViolations(tree).isEmpty)
        // Corrupt the internal parent pointers into a cycle a → b → a.
        let ia = try #require(tree.indexOf[a]), ib = try #require(tree.indexOf[b])
        tree.nodes[Int(ia)].parent = ib
        let problems = treeInvariantViolations(tree)
        #expect(problems.contains { $0.contains("cycle") })
        #expect(problems.contains { $0.contains("listed under") })
    }

    @Test("the naive model disagrees with a tree that applied a different history")
    func naiveModelFails() throws {
        var tree = try treeReplica(1)
        let f = try tree.create(under: .root)
        let g = try tree.create(under: .root)
        let move = try tree.move(g.node, to: f.node)
        #expect(NaiveTreeModel(tree.operations).differences(from: tree).isEmpty)
        var tampered = move
        tampered.parent = .deletedRoot
        #expect(!NaiveTreeModel([f, g, tampered]).differences(from: tree).isEmpty)
        #expect(!NaiveTreeModel([f, g]).differences(from: tree).isEmpty)
        // Sibling order matters too.
        var swapped = g
        swapped.position = PositionKey([0x01])
        #expect(!NaiveTreeModel([f, swapped]).differences(from: try {
            var t = try treeReplica(2); t.apply([f, g]); return t }()).isEmpty)
    }

    @Test("the convergence checker reports replicas that missed an operation or order siblings differently")
    func convergenceCheckerFails() throws {
        var a = try treeReplica(1)
        let f = try a.create(under: .root)
        let g = try a.create(under: .root)
        var b = try treeReplica(2)
        b.apply([f])
        #expect(!convergenceViolations([a, b]).isEmpty)
        b.apply([g])
        #expect(convergenceViolations([a, b]).isEmpty)
        _ = try b.move(g.node, to: .root, at: 0)
        #expect(convergenceViolations([a, b]).contains { $0.contains("sibling order") })
    }
}
