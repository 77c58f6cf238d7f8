import Foundation

/// `quire bench autosave`: typing with one durable commit per keystroke.
struct AutosaveBenchCommand: Command {
    static let name = "autosave"
    static let summary = "Measure keystroke autosave: one durable commit per keystroke, against raw LMDB."
    static let usage = "[--keystrokes N] [--runs R] [--trace FILE] [--json] [--svg DIR]"
    static let discussion = """
        Types the first N one-character edits of the trace into a file record of a fresh
        store through a durable TextEditingSession, each its own commit, and the same
        number of one-put commits through bare mdb_* calls, with full durability and
        without syncing, alternating which goes first. Reports commit medians and p99, the
        change-log bytes and file growth per keystroke, and the time to open a store
        holding the whole document and read its text. docs/benchmarks.md explains every
        field.
        """
    /// Where the trace is by default, relative to the current directory (the repository).
    static let defaultTrace = "../shared/traces/sequential/automerge-paper.json.gz"
    static let keystrokes = Option.value("keystrokes", placeholder: "N", help: "One-character edits typed (default 10000).")
    static let runs = Option.value("runs", placeholder: "R", help: "Runs of each side (default 1).")
    static let trace = Option.value(
        "trace", placeholder: "FILE", help: "A sequential trace (default \(defaultTrace)).")
    static let json = Option.flag("json", help: "Print one JSON object instead of a table.")
    static var options: [Option] { [keystrokes, runs, trace, json, .svg] }

    var keystrokeCount: Int
    var runCount: Int
    var tracePath: String?
    var printsJSON: Bool
    /// `--svg DIR`: where to write the charts.
    var svgDirectory: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        keystrokeCount = try ArgumentValue.positive(arguments.value(of: Self.keystrokes), default: 10_000)
        runCount = try ArgumentValue.positive(arguments.value(of: Self.runs), default: 1)
        tracePath = try arguments.value(of: Self.trace)?.path()
        printsJSON = arguments.flag(Self.json)
        svgDirectory = try arguments.value(of: .svg)?.path()
    }

    func run(in context: ToolContext) async throws {
        let path = tracePath ?? URL(fileURLWithPath: context.currentDirectory)
            .appendingPathComponent(Self.defaultTrace).standardizedFileURL.path
        let trace = try TraceFile.load(path)
        let name = URL(fileURLWithPath: path).lastPathComponent
            .replacingOccurrences(of: ".json.gz", with: "").replacingOccurrences(of: ".json", with: "")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("quire-bench-autosave-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var benchmark = AutosaveBenchmark(trace: trace, traceName: name, directory: directory)
        benchmark.keystrokes = keystrokeCount
        benchmark.runs = runCount
        let bar = ProgressBar(label: "bench autosave", total: runCount, unit: "runs", errorOutput: context.errorOutput)
        benchmark.progress = { done, _ in bar?.update(done: done) }
        let result = try benchmark.run()
        bar?.clear()
        try context.report(result, asJSON: printsJSON)
        try context.writeChart(result.chart, named: "bench-autosave-\(name).svg", in: svgDirectory)
        if !result.correct { throw BenchmarkFailure("the typed text differs from the trace's") }
    }
}

extension AutosaveBenchmark.Result: BenchmarkResult {
    /// The figures as an aligned table, store beside baseline.
    var table: String {
        func format(_ value: Double) -> String { String(format: "%.3f", value) }
        var text = "keystroke autosave — \(keystrokes) keystrokes of \(trace) (\(edits) edits), \(runs) run(s)\n"
        text += "measure".padding(toLength: 34, withPad: " ", startingAt: 0) + "      store   baseline   ratio\n"
        for (name, store, raw, ratio) in [
            ("durable commit p50 (ms)", commit_p50_ms, raw_commit_p50_ms, commit_ratio),
            ("no-sync commit p50 (ms)", nosync_commit_p50_ms, raw_nosync_commit_p50_ms, nosync_commit_ratio),
        ] {
            text += name.padding(toLength: 34, withPad: " ", startingAt: 0)
            text += format(store).leftPadded(to: 11) + format(raw).leftPadded(to: 11) + format(ratio).leftPadded(to: 8) + "\n"
        }
        let rows: [(String, String)] = [
            ("durable commit p99 (ms)", format(commit_p99_ms)),
            ("change log bytes per keystroke", String(format: "%.1f", log_bytes_per_keystroke)),
            ("data.mdb growth (bytes)", "\(file_growth_bytes)"),
            ("open + read \(document_chars) chars (ms)", format(open_and_read_ms)),
            ("correct", correct ? "yes" : "NO"),
        ]
        for (name, value) in rows {
            text += name.padding(toLength: 34, withPad: " ", startingAt: 0) + value.leftPadded(to: 11) + "\n"
        }
        return text
    }
}
