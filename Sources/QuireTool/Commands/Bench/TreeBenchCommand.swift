import Foundation
import LMDB

/// `quire bench tree`: the move-safe tree CRDT, in memory, persisted and merging.
struct TreeBenchCommand: Command {
    static let name = "tree"
    static let summary = "Measure the tree CRDT: local moves, persisted moves, merges of concurrent moves."
    static let usage = "[--nodes N] [--moves M] [--replicas R] [--seed S] [--batch N] [--durability MODE] [--json] [--svg DIR]"
    static let discussion = """
        Replica 0 creates N nodes in a random tree and shares it; each of R replicas makes
        M/R random moves offline (moves that would make a cycle are skipped and counted);
        then every replica merges the others' moves as one batch. Replica 0's moves are
        also replayed through an LMDB-backed tree, --batch moves per write transaction.
        Reports medians; docs/benchmarks.md explains every field.
        """
    static let nodes = Option.value("nodes", placeholder: "N", help: "Nodes created by replica 0 (default 10000).")
    static let moves = Option.value("moves", placeholder: "M", help: "Moves in total, split among the replicas (default 100000).")
    static let replicas = Option.value("replicas", placeholder: "R", help: "Replicas, at least 1 (default 3).")
    static let seed = Option.value("seed", placeholder: "S", help: "Seed of the random scenario (default 1).")
    static let batch = Option.value("batch", placeholder: "N", help: "Moves per write transaction in the persisted run (default 1000).")
    static let durability = Option.value(
        "durability", placeholder: "MODE", help: "full (default), nometasync or nosync, for the persisted run.")
    static let json = Option.flag("json", help: "Print one JSON object instead of a table.")
    static var options: [Option] { [nodes, moves, replicas, seed, batch, durability, json, .svg] }

    var benchmark: TreeBenchmark
    var printsJSON: Bool
    /// `--svg DIR`: where to write the charts.
    var svgDirectory: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        benchmark = TreeBenchmark(directory: FileManager.default.temporaryDirectory.path)
        benchmark.nodes = try ArgumentValue.positive(arguments.value(of: Self.nodes), default: benchmark.nodes)
        benchmark.moves = try ArgumentValue.positive(arguments.value(of: Self.moves), default: benchmark.moves)
        benchmark.replicas = try ArgumentValue.positive(arguments.value(of: Self.replicas), default: benchmark.replicas)
        benchmark.batch = try ArgumentValue.positive(arguments.value(of: Self.batch), default: benchmark.batch)
        if let value = arguments.value(of: Self.seed) {
            let number = try value.int()
            guard number >= 0 else { throw .invalid("\(value.source) must not be negative, not \(number)") }
            benchmark.seed = UInt64(number)
        }
        benchmark.durability = try ArgumentValue.durability(arguments.value(of: Self.durability))
        printsJSON = arguments.flag(Self.json)
        svgDirectory = try arguments.value(of: .svg)?.path()
    }

    func run(in context: ToolContext) async throws {
        let result = try benchmark.run()
        try context.report(result, asJSON: printsJSON)
        try context.writeChart(result.chart, named: "bench-tree.svg", in: svgDirectory)
    }
}

extension TreeBenchmark.Result: BenchmarkResult {
    /// The figures as an aligned table.
    var table: String {
        func format(_ value: Double) -> String { String(format: "%.3f", value) }
        let rows: [(String, String)] = [
            ("create (µs per node)", format(create_us_per_node)),
            ("local move, in memory (µs)", format(local_move_us)),
            ("persisted move, \(persisted_batch) per tx (µs)", format(persisted_move_us)),
            ("merge of \(remote_moves_per_replica) remote moves (ms)", format(merge_ms)),
            ("persisted merge, one tx (ms)", format(persisted_merge_ms)),
            ("local moves skipped (cycle)", "\(skipped_cycle_moves)"),
            ("merged moves skipped (cycle)", "\(merge_skipped_moves)"),
            ("log bytes", "\(log_bytes)"),
            ("deepest node", "\(max_depth)"),
            ("converged", "\(converged)"),
            ("stored children index matches memory", "\(persisted_consistent)"),
        ]
        var text = "tree CRDT — \(nodes) nodes, \(moves) moves, \(replicas) replicas, seed \(seed), durability \(durability)\n"
        for (name, value) in rows {
            text += name.padding(toLength: 44, withPad: " ", startingAt: 0) + value.leftPadded(to: 14) + "\n"
        }
        return text
    }
}
