import Foundation
import LMDB
import Quire
import QuireCore

/// Measures the tree CRDT on the scenario of issue 4: replica 0 creates a random tree of
/// ``nodes`` nodes and shares it; each of ``replicas`` replicas makes ``moves`` / R
/// random moves offline; all exchange and merge. Also replays replica 0's moves through
/// a ``PersistentTree`` in write transactions of ``batch`` moves.
struct TreeBenchmark {
    var nodes = 10_000
    var moves = 100_000
    var replicas = 3
    var seed: UInt64 = 1
    /// Moves per write transaction in the persisted run.
    var batch = 1_000
    var durability: Environment.Durability = .full
    /// Where the persisted run's environment is created.
    var directory: String

    /// The figures. Times in milliseconds unless the name ends in `_us` (microseconds).
    struct Result: Encodable {
        var benchmark = "tree"
        var nodes: Int
        var moves: Int
        var replicas: Int
        var seed: UInt64
        var durability: String
        var create_us_per_node: Double
        var local_move_us: Double
        var persisted_move_us: Double
        var persisted_batch: Int
        var merge_ms: Double
        var merge_ms_per_replica: [Double]
        var remote_moves_per_replica: Int
        var persisted_merge_ms: Double
        var skipped_cycle_moves: Int
        var merge_skipped_moves: Int
        var log_bytes: Int
        var max_depth: Int
        var converged: Bool
        var persisted_consistent: Bool
    }

    /// A move chosen by the benchmark: node, new parent, sibling index.
    private struct PlannedMove { var node: NodeID; var parent: NodeID; var index: Int }

    func run() throws -> Result {
        var random = BenchmarkRandom(seed: seed)
        let clock = ContinuousClock()

        // Replica 0 creates the tree.
        var origin = try ReplicatedTree(replica: ReplicaID(1), seed: seed)
        var ids: [NodeID] = []
        ids.reserveCapacity(nodes)
        var creations: [TreeOperation] = []
        creations.reserveCapacity(nodes)
        let createStart = clock.now
        for _ in 0..<nodes {
            let pick = random.below(ids.count + 1)
            let parent = pick == ids.count ? NodeID.root : ids[pick]
            let index = random.below(origin.childCount(of: parent) + 1)
            let operation = try origin.create(under: parent, at: index, metadata: [UInt8(truncatingIfNeeded: ids.count)])
            ids.append(operation.node)
            creations.append(operation)
        }
        let createMicroseconds = (clock.now - createStart).milliseconds * 1_000 / Double(nodes)

        var trees = [origin]
        for replica in 1..<replicas {
            var tree = try ReplicatedTree(replica: ReplicaID(UInt64(replica + 1)), seed: seed &+ UInt64(replica))
            tree.apply(creations)
            trees.append(tree)
        }

        // Every replica moves offline, timed in chunks of `batch` moves.
        let perReplica = moves / replicas
        var made: [[TreeOperation]] = Array(repeating: [], count: replicas)
        var planOfFirst: [PlannedMove] = []
        var chunkMicroseconds: [Double] = []
        var skipped = 0
        for replica in 0..<replicas {
            var moveRandom = BenchmarkRandom(seed: seed &* 1_000_003 &+ UInt64(replica))
            var tree = trees[replica]
            var operations: [TreeOperation] = []
            operations.reserveCapacity(perReplica)
            var done = 0
            while done < perReplica {
                let chunk = min(batch, perReplica - done)
                var performed = 0
                let start = clock.now
                for _ in 0..<chunk {
                    let node = ids[moveRandom.below(ids.count)]
                    let pick = moveRandom.below(ids.count + 1)
                    let parent = pick == ids.count ? NodeID.root : ids[pick]
                    let index = moveRandom.below(tree.childCount(of: parent) + 1)
                    if tree.wouldCreateCycle(moving: node, under: parent) {
                        skipped += 1
                        continue
                    }
                    let siblings = tree.childCount(of: parent) - (tree.parent(of: node) == parent ? 1 : 0)
                    operations.append(try tree.move(node, to: parent, at: min(index, siblings)))
                    if replica == 0 { planOfFirst.append(PlannedMove(node: node, parent: parent, index: min(index, siblings))) }
                    performed += 1
                }
                let elapsed = (clock.now - start).milliseconds * 1_000
                if performed > 0 { chunkMicroseconds.append(elapsed / Double(performed)) }
                done += chunk
            }
            trees[replica] = tree
            made[replica] = operations
        }

        let persisted = try measurePersisted(creations: creations, plan: planOfFirst, remote: made.dropFirst().flatMap { $0 })

        // Exchange and merge: each replica applies everything the others made, as one batch.
        var mergeMilliseconds: [Double] = []
        var remoteCount = 0
        for replica in 0..<replicas {
            var incoming: [TreeOperation] = []
            for other in 0..<replicas where other != replica { incoming += made[other] }
            remoteCount = max(remoteCount, incoming.count)
            var tree = trees[replica]
            let start = clock.now
            tree.apply(incoming)
            mergeMilliseconds.append((clock.now - start).milliseconds)
            trees[replica] = tree
        }

        let logBytes = trees[0].operations.reduce(0) { $0 + $1.encoded.count }
        return Result(
            nodes: nodes, moves: moves, replicas: replicas, seed: seed, durability: "\(durability)",
            create_us_per_node: createMicroseconds,
            local_move_us: Timing.median(chunkMicroseconds),
            persisted_move_us: persisted.moveMicroseconds, persisted_batch: batch,
            merge_ms: Timing.median(mergeMilliseconds), merge_ms_per_replica: mergeMilliseconds,
            remote_moves_per_replica: remoteCount, persisted_merge_ms: persisted.mergeMilliseconds,
            skipped_cycle_moves: skipped, merge_skipped_moves: trees[0].skippedCount,
            log_bytes: logBytes, max_depth: Self.maximumDepth(trees[0], ids),
            converged: Self.converged(trees, ids), persisted_consistent: persisted.consistent)
    }

    /// Replays replica 0's moves through a persisted tree in write transactions of
    /// ``batch`` moves, then merges the other replicas' moves in one transaction.
    private func measurePersisted(
        creations: [TreeOperation], plan: [PlannedMove], remote: [TreeOperation]
    ) throws -> (moveMicroseconds: Double, mergeMilliseconds: Double, consistent: Bool) {
        let path = URL(fileURLWithPath: directory).appendingPathComponent("tree-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = Environment.Configuration()
        configuration.mapSize = 256 << 20
        configuration.durability = durability
        let environment = try Environment(path: path, configuration: configuration)
        defer { try? environment.close() }
        // Replica 0 again, under its own ID, starting from the shared tree.
        let tree = try PersistentTree(environment: environment, replica: ReplicaID(1), seed: seed)
        try tree.apply(creations)
        let clock = ContinuousClock()
        var perMove: [Double] = []
        var offset = 0
        while offset < plan.count {
            let slice = plan[offset..<min(offset + batch, plan.count)]
            let start = clock.now
            try tree.perform { tree in
                for move in slice { try tree.move(move.node, to: move.parent, at: move.index) }
            }
            perMove.append((clock.now - start).milliseconds * 1_000 / Double(slice.count))
            offset += slice.count
        }
        let start = clock.now
        try tree.apply(remote)
        let merge = (clock.now - start).milliseconds
        // Compare the stored children index with the in-memory merge of replica 0.
        let stored = try Dictionary(uniqueKeysWithValues: ([.root, .deletedRoot] + tree.read { $0.nodeIDs }).map {
            ($0, try tree.storedChildren(of: $0))
        })
        let consistent = tree.read { memory in stored.allSatisfy { memory.children(of: $0.key) == $0.value } }
        return (Timing.median(perMove), merge, consistent)
    }

    /// Whether every node has the same parent and the same ordered children everywhere.
    static func converged(_ trees: [ReplicatedTree], _ ids: [NodeID]) -> Bool {
        guard let first = trees.first else { return true }
        for tree in trees.dropFirst() {
            for node in ids where tree.parent(of: node) != first.parent(of: node) { return false }
            for node in ids + [.root, .deletedRoot] where tree.children(of: node) != first.children(of: node) { return false }
        }
        return true
    }

    static func maximumDepth(_ tree: ReplicatedTree, _ ids: [NodeID]) -> Int {
        var deepest = 0
        for node in ids {
            var depth = 0
            var current = node
            while let parent = tree.parent(of: current) { depth += 1; current = parent }
            deepest = max(deepest, depth)
        }
        return deepest
    }
}

/// The benchmark's generator: a seed reproduces the same scenario.
typealias BenchmarkRandom = SplitMix64

extension SplitMix64 {
    /// A number in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
