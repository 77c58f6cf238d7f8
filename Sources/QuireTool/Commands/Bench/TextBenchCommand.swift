import Foundation

/// `quire bench text --trace FILE`: the text CRDT on a real editing trace.
struct TextBenchCommand: Command {
    static let name = "text"
    static let summary = "Measure the text CRDT on an editing trace."
    static let usage = "--trace FILE [--runs N] [--json]"
    static let discussion = """
        Replays FILE as local edits (medians over --runs runs, at least 5 recommended),
        encodes the whole history as one delta and merges it into an empty replica, saves
        and loads the state, measures the heap a loaded replica holds, and the mean size of
        one keystroke's encoded change. Fields are documented in docs/benchmarks.md.
        """
    static let trace = Option.value("trace", placeholder: "FILE", help: "The trace (.json or .json.gz).")
    static let runs = Option.value("runs", placeholder: "N", help: "Runs per measurement (default 5).")
    static let json = Option.flag("json", help: "Print one JSON object instead of a table.")
    static var options: [Option] { [trace, runs, json] }

    var path: String
    var runs: Int
    var printsJSON: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        guard let trace = try arguments.value(of: Self.trace)?.path() else { throw .missingOption(Self.trace) }
        path = trace
        runs = try arguments.value(of: Self.runs)?.int() ?? 5
        guard runs >= 1 else { throw .invalid("--runs must be at least 1") }
        printsJSON = arguments.flag(Self.json)
    }

    func run(in context: ToolContext) async throws {
        let trace = try TraceFile.load(path)
        let name = URL(fileURLWithPath: path).lastPathComponent
            .replacingOccurrences(of: ".json.gz", with: "").replacingOccurrences(of: ".json", with: "")
        let result = try TextBenchmark(trace: trace, traceName: name, runs: runs).run()
        if printsJSON {
            context.output.writeLine(try BenchmarkJSON.line(result))
        } else {
            let rows: [(String, String)] = [
                ("trace", "\(result.trace) (\(result.ops) ops, \(result.end_chars) characters)"),
                ("local replay", String(format: "%.2f ms", result.local_replay_ms)),
                ("encode history", String(format: "%.2f ms, %d bytes (%d deflated)", result.encode_ms, result.history_bytes, result.history_deflated_bytes)),
                ("merge history", String(format: "%.2f ms", result.merge_ms)),
                ("state", String(format: "%d bytes, load %.3f ms", result.state_bytes, result.load_ms)),
                ("memory of a loaded replica", String(format: "%.2f MB", result.rss_mb)),
                ("keystroke delta", String(format: "%.1f bytes", result.keystroke_delta_bytes)),
                ("correct", result.correct ? "yes" : "NO"),
            ]
            for (label, value) in rows { context.output.writeLine(label.padding(toLength: 28, withPad: " ", startingAt: 0) + value) }
        }
        if !result.correct { throw ReplayMismatch(path: path) }
    }
}
