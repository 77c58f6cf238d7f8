import Foundation

/// `quire bench delta --trace FILE`: delta files of an editing trace's history.
struct DeltaBenchCommand: Command {
    static let name = "delta"
    static let summary = "Measure delta files: a trace's whole history exported and imported, keystroke files."
    static let usage = "--trace FILE [--runs N] [--batch N] [--json] [--svg DIR]"
    static let discussion = """
        Types a sequential trace into one text of a fresh store, one change per trace
        transaction (setup without syncing), exports the whole history as one delta
        file and imports it into empty stores (full durability, text read back and
        checked). Also exports each of the first 1,000 one-character keystrokes as its
        own delta file, and builds the same history with --batch patches per change
        (default: all in one change, as the trace replayed in one transaction — how the
        peer figures were measured). Fields are documented in docs/benchmarks.md.

        Example:
          quire bench delta --trace ../shared/traces/sequential/automerge-paper.json.gz --json
        """
    static let trace = Option.value("trace", placeholder: "FILE", help: "A sequential trace (.json or .json.gz).")
    static let runs = Option.value("runs", placeholder: "N", help: "Imports measured (default 5).")
    static let batch = Option.value("batch", placeholder: "N", help: "Patches per change in the batched history (default: all, one change).")
    static let json = Option.flag("json", help: "Print one JSON object instead of a table.")
    static var options: [Option] { [trace, runs, batch, json, .svg] }

    var path: String
    var runs: Int
    var batch: Int
    var printsJSON: Bool
    /// `--svg DIR`: where to write the charts.
    var svgDirectory: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        guard let trace = try arguments.value(of: Self.trace)?.path() else { throw .missingOption(Self.trace) }
        path = trace
        runs = try ArgumentValue.positive(arguments.value(of: Self.runs), default: 5)
        batch = try ArgumentValue.positive(arguments.value(of: Self.batch), default: Int.max)
        printsJSON = arguments.flag(Self.json)
        svgDirectory = try arguments.value(of: .svg)?.path()
    }

    func run(in context: ToolContext) async throws {
        let trace = try TraceFile.load(path)
        let name = URL(fileURLWithPath: path).lastPathComponent
            .replacingOccurrences(of: ".json.gz", with: "").replacingOccurrences(of: ".json", with: "")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("quire-bench-delta-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var benchmark = DeltaBenchmark(trace: trace, traceName: name, directory: directory)
        benchmark.runs = runs
        benchmark.batch = batch
        // Two histories are imported `runs` times each.
        let bar = ProgressBar(label: "bench delta", total: 2 * runs, unit: "imports", errorOutput: context.errorOutput)
        var imports = 0
        benchmark.progress = { _, _ in
            imports += 1
            bar?.update(done: imports)
        }
        let result = try benchmark.run()
        bar?.clear()
        try context.report(result, asJSON: printsJSON)
        try context.writeChart(result.chart, named: "bench-delta-\(name).svg", in: svgDirectory)
        if !result.correct { throw BenchmarkFailure("an imported text differs from the trace's endContent") }
    }
}

extension DeltaBenchmark.Result: BenchmarkResult {
    /// The figures as aligned lines.
    var table: String {
        func deflated(_ bytes: Int) -> String { "\(bytes) bytes deflated" }
        let rows: [(String, String)] = [
            ("trace", "\(trace) (\(ops) ops, \(end_chars) characters)"),
            ("history", "\(changes) changes, one per keystroke (as autosave writes them)"),
            ("delta file", "\(delta_bytes) bytes (\(deflated(delta_deflated_bytes)))"),
            ("export", String(format: "%.2f ms", export_ms)),
            ("import into an empty store", String(format: "%.2f ms (median of %d)", import_ms, runs)),
            ("store after typing, closed", "\(store_bytes_after_typing) bytes"),
            ("open that store and read", String(format: "%.2f ms (median)", open_and_read_ms)),
            ("new store syncing it all", String(format: "%.2f ms (median)", sync_catch_up_ms)),
            ("keystroke file", String(format: "%.1f bytes (mean of %d)", keystroke_file_bytes, keystrokes)),
            ("keystroke export, end of history", String(format: "%.1f µs", keystroke_export_us)),
            ("batched history", "\(batched_changes) changes of up to \(batch) patches"),
            ("batched delta file", "\(batched_delta_bytes) bytes (\(deflated(batched_delta_deflated_bytes)))"),
            ("batched import", String(format: "%.2f ms", batched_import_ms)),
            ("correct", correct ? "yes" : "NO"),
        ]
        return rows.map { $0.0.padding(toLength: 28, withPad: " ", startingAt: 0) + $0.1 + "\n" }.joined()
    }
}
