import Foundation
import LMDB

/// `quire bench lmdb`: the storage layer against bare `mdb_*` calls.
struct LMDBBenchCommand: Command {
    static let name = "lmdb"
    static let summary = "Measure the LMDB layer's overhead over bare mdb_* calls."
    static let usage = "[--runs N] [--commits N] [--reads N] [--entries N] [--durability MODE] [--json] [--svg DIR]"
    static let discussion = """
        Runs tiny durable commits, point reads, a bulk load and a full scan through the
        LMDB layer and through bare mdb_* calls with the same flags, alternating which
        goes first, in fresh environments under the temporary directory. Reports medians
        and the layer/baseline ratios.
        """
    static let runs = Option.value("runs", placeholder: "N", help: "Runs of each side (default 5).")
    static let commits = Option.value("commits", placeholder: "N", help: "Tiny commits per run (default 200).")
    static let reads = Option.value("reads", placeholder: "N", help: "Point reads per run (default 20000).")
    static let entries = Option.value("entries", placeholder: "N", help: "Entries loaded and scanned (default 100000).")
    static let durability = Option.value(
        "durability", placeholder: "MODE", help: "full (default), nometasync or nosync, for both sides.")
    static let json = Option.flag("json", help: "Print one JSON object instead of a table.")
    static var options: [Option] { [runs, commits, reads, entries, durability, json, .svg] }

    var benchmark: LMDBBenchmark
    var printsJSON: Bool
    /// `--svg DIR`: where to write the charts.
    var svgDirectory: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        benchmark = LMDBBenchmark(directory: FileManager.default.temporaryDirectory.path)
        benchmark.runs = try ArgumentValue.positive(arguments.value(of: Self.runs), default: benchmark.runs)
        benchmark.commits = try ArgumentValue.positive(arguments.value(of: Self.commits), default: benchmark.commits)
        benchmark.reads = try ArgumentValue.positive(arguments.value(of: Self.reads), default: benchmark.reads)
        benchmark.entries = try ArgumentValue.positive(arguments.value(of: Self.entries), default: benchmark.entries)
        benchmark.durability = try ArgumentValue.durability(arguments.value(of: Self.durability))
        printsJSON = arguments.flag(Self.json)
        svgDirectory = try arguments.value(of: .svg)?.path()
    }

    func run(in context: ToolContext) async throws {
        let directory = URL(fileURLWithPath: benchmark.directory)
            .appendingPathComponent("quire-bench-lmdb-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var benchmark = self.benchmark
        benchmark.directory = directory
        let result = try benchmark.run()
        try context.report(result, asJSON: printsJSON)
        try context.writeChart(result.chart, named: "bench-lmdb.svg", in: svgDirectory)
    }
}

extension LMDBBenchmark.Result: BenchmarkResult {
    /// The figures as an aligned table, layer beside baseline.
    var table: String {
        func format(_ value: Double) -> String { String(format: "%.3f", value) }
        let rows: [(String, Double, Double, Double)] = [
            ("tiny commit (µs)", commit_us, raw_commit_us, commit_ratio),
            ("point read (ns)", read_ns, raw_read_ns, read_ratio),
            ("bulk put of \(entries) (ms)", bulk_put_ms, raw_bulk_put_ms, bulk_put_ratio),
            ("scan of \(entries) (ms)", scan_ms, raw_scan_ms, scan_ratio),
        ]
        var text = "LMDB layer vs bare mdb_* — durability \(durability), median of \(runs) runs\n"
        text += "measure".padding(toLength: 28, withPad: " ", startingAt: 0) + "      layer   baseline   ratio\n"
        for (name, layer, raw, ratio) in rows {
            text += name.padding(toLength: 28, withPad: " ", startingAt: 0)
            text += format(layer).leftPadded(to: 11) + format(raw).leftPadded(to: 11) + format(ratio).leftPadded(to: 8)
            text += "\n"
        }
        return text
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
