import Foundation
import LMDB

/// `quire bench tree`: the move-safe tree CRDT, in memory, persisted and merging; and the
/// hierarchy's limits, through the store.
struct TreeBenchCommand: Command {
    static let name = "tree"
    static let summary = "Measure the tree CRDT (local moves, persisted moves, merges) and the hierarchy's limits."
    static let usage = """
        [--nodes N] [--moves M] [--replicas R] [--seed S] [--batch N] [--durability MODE] \
        [--limits-only | --no-limits] [--limit-inserts N] [--limit-drags N] [--limit-appends N] \
        [--store-nodes N] [--store-folders F] [--json] [--svg DIR]
        """
    static let discussion = """
        Replica 0 creates N nodes in a random tree and shares it; each of R replicas makes
        M/R random moves offline (moves that would make a cycle are skipped and counted);
        then every replica merges the others' moves as one batch. Replica 0's moves are
        also replayed through an LMDB-backed tree, --batch moves per write transaction.
        Then, through a store (without syncing), the limits: inserts at one spot of a
        folder, drags of a folder's last child to the second place and appends to one
        folder until the first error or the cap, the longest position key after each, and
        the bytes per node of a store of --store-nodes leaves in --store-folders folders.
        Reports medians; docs/benchmarks.md explains every field.
        """
    static let nodes = Option.value("nodes", placeholder: "N", help: "Nodes created by replica 0 (default 10000).")
    static let moves = Option.value("moves", placeholder: "M", help: "Moves in total, split among the replicas (default 100000).")
    static let replicas = Option.value("replicas", placeholder: "R", help: "Replicas, at least 1 (default 3).")
    static let seed = Option.value("seed", placeholder: "S", help: "Seed of the random scenario (default 1).")
    static let batch = Option.value("batch", placeholder: "N", help: "Moves per write transaction in the persisted run (default 1000).")
    static let durability = Option.value(
        "durability", placeholder: "MODE", help: "full (default), nometasync or nosync, for the persisted run.")
    static let limitsOnly = Option.flag("limits-only", help: "Measure only the limits, not the CRDT scenario.")
    static let noLimits = Option.flag("no-limits", help: "Measure only the CRDT scenario, not the limits.")
    static let limitInserts = Option.value("limit-inserts", placeholder: "N", help: "Cap of the inserts at one spot (default 100000).")
    static let limitDrags = Option.value("limit-drags", placeholder: "N", help: "Cap of the drags to the top (default 100000).")
    static let limitAppends = Option.value("limit-appends", placeholder: "N", help: "Cap of the appends to one folder (default 1000000).")
    static let storeNodes = Option.value("store-nodes", placeholder: "N", help: "Leaves of the store-size run (default 1000000).")
    static let storeFolders = Option.value("store-folders", placeholder: "F", help: "Folders of the store-size run (default 1000).")
    static let json = Option.flag("json", help: "Print one JSON object instead of a table.")
    static var options: [Option] {
        [nodes, moves, replicas, seed, batch, durability, limitsOnly, noLimits, limitInserts, limitDrags, limitAppends,
         storeNodes, storeFolders, json, .svg]
    }

    /// The CRDT scenario; `nil` with `--limits-only`.
    var benchmark: TreeBenchmark?
    /// The limits; `nil` with `--no-limits`.
    var limits: TreeLimitsBenchmark?
    var printsJSON: Bool
    /// `--svg DIR`: where to write the charts.
    var svgDirectory: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        let directory = FileManager.default.temporaryDirectory.path
        var benchmark = TreeBenchmark(directory: directory)
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
        var limits = TreeLimitsBenchmark(directory: directory)
        limits.oneSpotLimit = try ArgumentValue.positive(arguments.value(of: Self.limitInserts), default: limits.oneSpotLimit)
        limits.dragLimit = try ArgumentValue.positive(arguments.value(of: Self.limitDrags), default: limits.dragLimit)
        limits.appendLimit = try ArgumentValue.positive(arguments.value(of: Self.limitAppends), default: limits.appendLimit)
        limits.storeNodes = try ArgumentValue.positive(arguments.value(of: Self.storeNodes), default: limits.storeNodes)
        limits.storeFolders = try ArgumentValue.positive(arguments.value(of: Self.storeFolders), default: limits.storeFolders)
        let limitsOnly = arguments.flag(Self.limitsOnly), noLimits = arguments.flag(Self.noLimits)
        guard !(limitsOnly && noLimits) else { throw .invalid("--limits-only and --no-limits leave nothing to measure; give one") }
        self.benchmark = limitsOnly ? nil : benchmark
        self.limits = noLimits ? nil : limits
        printsJSON = arguments.flag(Self.json)
        svgDirectory = try arguments.value(of: .svg)?.path()
    }

    func run(in context: ToolContext) async throws {
        var report = TreeBenchReport()
        report.crdt = try benchmark?.run()
        if let limits {
            let bar = ProgressBar(label: "bench tree limits", total: 4, unit: "stages", errorOutput: context.errorOutput)
            var stages = 0
            report.limits = try limits.run { _ in
                bar?.update(done: stages)
                stages += 1
            }
            bar?.clear()
        }
        try context.report(report, asJSON: printsJSON)
        if let chart = report.crdt?.chart {
            try context.writeChart(chart, named: "bench-tree.svg", in: svgDirectory)
        } else if svgDirectory != nil {
            context.errorOutput.writeLine("no chart written: --limits-only has no figures the chart shows")
        }
    }
}

/// What `quire bench tree` prints: the CRDT scenario's figures and the limits', either
/// left out when skipped, as one flat JSON object.
struct TreeBenchReport: BenchmarkResult {
    var crdt: TreeBenchmark.Result?
    var limits: TreeLimitsBenchmark.Result?

    private enum Key: String, CodingKey { case benchmark }

    /// Both parts' fields in one object (`"benchmark": "tree"` even when the CRDT part,
    /// which names it, is skipped).
    func encode(to encoder: any Encoder) throws {
        if let crdt {
            try crdt.encode(to: encoder)
        } else {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode("tree", forKey: .benchmark)
        }
        try limits?.encode(to: encoder)
    }

    var table: String { [crdt?.table, limits?.table].compactMap { $0 }.joined() }
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

extension TreeLimitsBenchmark.Result {
    /// The limits as an aligned table.
    var table: String {
        func format(_ value: Double) -> String { String(format: "%.1f", value) }
        func count(_ done: Int, of limit: Int, _ error: String?) -> String {
            error.map { "\(done) of \(limit), then: \($0)" } ?? "\(done) of \(limit)"
        }
        let rows: [(String, String)] = [
            ("inserts at one spot", count(one_spot_inserts, of: one_spot_limit, one_spot_error)),
            ("  longest key (bytes), time (ms)", "\(max_key_bytes_one_spot), \(format(one_spot_ms))"),
            ("drags of the last child to the top", count(drags_to_top, of: drags_limit, drags_error)),
            ("  longest key (bytes), time (ms)", "\(max_key_bytes_drags), \(format(drags_ms))"),
            ("appends to one folder", count(appends_one_folder, of: appends_limit, appends_error)),
            ("  longest key (bytes), time (ms)", "\(max_key_bytes_appends), \(format(appends_ms))"),
            ("store of \(store_nodes_created) nodes (bytes)", "\(store_data_bytes), built in \(format(store_build_ms)) ms"),
            ("  data.mdb per node (bytes)", format(store_file_bytes_per_node)),
            ("  tree.* databases per node (bytes)", "\(format(store_bytes_per_node)) (\(store_tree_bytes) in all)"),
        ]
        var text = "hierarchy limits — through the store, durability \(limits_durability)\n"
        for (name, value) in rows {
            text += name.padding(toLength: 44, withPad: " ", startingAt: 0) + value + "\n"
        }
        return text
    }
}
