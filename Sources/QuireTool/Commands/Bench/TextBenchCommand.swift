import Foundation

/// `quire bench text --trace FILE`: the text CRDT on a real editing trace.
struct TextBenchCommand: Command {
    static let name = "text"
    static let summary = "Measure the text CRDT on an editing trace."
    static let usage = "--trace FILE [--runs N] [--json] [--svg DIR]"
    static let discussion = """
        Replays FILE as local edits (medians over --runs runs, at least 5 recommended),
        encodes the whole history as one delta and merges it into an empty replica, saves
        and loads the state, reads the text halfway through its history, measures the heap a loaded replica holds, the mean size of
        one keystroke's encoded change, and (sequential traces) types the trace into a
        store one change per keystroke to time listing the text's history. Fields are
        documented in docs/benchmarks.md.
        """
    static let trace = Option.value("trace", placeholder: "FILE", help: "The trace (.json or .json.gz).")
    static let runs = Option.value("runs", placeholder: "N", help: "Runs per measurement (default 5).")
    static let json = Option.flag("json", help: "Print one JSON object instead of a table.")
    static var options: [Option] { [trace, runs, json, .svg] }

    var path: String
    var runs: Int
    var printsJSON: Bool
    /// `--svg DIR`: where to write the charts.
    var svgDirectory: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        guard let trace = try arguments.value(of: Self.trace)?.path() else { throw .missingOption(Self.trace) }
        path = trace
        runs = try arguments.value(of: Self.runs)?.int() ?? 5
        guard runs >= 1 else { throw .invalid("--runs must be at least 1") }
        printsJSON = arguments.flag(Self.json)
        svgDirectory = try arguments.value(of: .svg)?.path()
    }

    func run(in context: ToolContext) async throws {
        let trace = try TraceFile.load(path)
        let name = URL(fileURLWithPath: path).lastPathComponent
            .replacingOccurrences(of: ".json.gz", with: "").replacingOccurrences(of: ".json", with: "")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("quire-bench-text-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var benchmark = TextBenchmark(trace: trace, traceName: name, runs: runs, directory: directory)
        let bar = ProgressBar(label: "bench text", total: runs, unit: "replays", errorOutput: context.errorOutput)
        benchmark.progress = { done, _ in bar?.update(done: done) }
        let result = try benchmark.run()
        bar?.clear()
        try context.report(result, asJSON: printsJSON)
        try context.writeChart(result.chart, named: "bench-text-\(name).svg", in: svgDirectory)
        if !result.correct { throw ReplayMismatch(path: path) }
    }
}

extension TextBenchmark.Result: BenchmarkResult {
    /// The figures as aligned lines.
    var table: String {
        let rows: [(String, String)] = [
            ("trace", "\(trace) (\(ops) ops, \(end_chars) characters)"),
            ("local replay", String(format: "%.2f ms", local_replay_ms)),
            ("encode history", String(format: "%.2f ms, %d bytes (%d deflated)", encode_ms, history_bytes, history_deflated_bytes)),
            ("merge history", String(format: "%.2f ms", merge_ms)),
            ("state", String(format: "%d bytes, load %.3f ms", state_bytes, load_ms)),
            ("checkout at half", String(format: "%.3f ms (%.2f ms by replay)", checkout_ms, checkout_replay_ms)),
            ("memory of a loaded replica", String(format: "%.2f MB", rss_mb)),
            ("keystroke delta", String(format: "%.1f bytes", keystroke_delta_bytes)),
            ("store history", history_ms.map { String(format: "%.2f ms, %d changes", $0, history_entries ?? 0) } ?? "(sequential traces only)"),
            ("correct", correct ? "yes" : "NO"),
        ]
        return rows.map { $0.0.padding(toLength: 28, withPad: " ", startingAt: 0) + $0.1 + "\n" }.joined()
    }
}
