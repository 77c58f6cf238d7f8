import Foundation

/// `quire bench store`: the object store as an app uses it, against raw LMDB.
struct StoreBenchCommand: Command {
    static let name = "store"
    static let summary = "Measure the object store: open, memory, reads, a large folder, a reader during an import, two writer processes."
    static let usage = "[--records N] [--runs R] [--writes W] [--json]"
    static let discussion = """
        Builds a store of N small files in N/1000 folders and measures: opening it in a
        fresh process (this binary, started again) and that process's memory; single
        reads of random records against raw LMDB reads of values of the same size; the
        first 100 children of a 20,000-child folder; the longest read of a reader thread
        while a delta of up to 100,000 records is imported; data.mdb bytes per record;
        two processes making W (default 1,000) durable inserts each into one store. Times are medians
        over R runs; docs/benchmarks.md explains every field.
        """
    static let records = Option.value("records", placeholder: "N", help: "Files in the store (default 100000).")
    static let runs = Option.value("runs", placeholder: "R", help: "Runs of each measurement (default 3).")
    static let writes = Option.value("writes", placeholder: "W", help: "Durable inserts by each of the two writer processes (default 1000).")
    static let json = Option.flag("json", help: "Print one JSON object instead of a table.")
    /// The child process that opens a store: `--open-child DIR`.
    static let openChild = Option.value(
        "open-child", placeholder: "DIR", help: "Open DIR, print the open time and memory as JSON.").hidden()
    /// A writer child process: `--writer-child DIR TAG COUNT`.
    static let writerChild = Option.value(
        "writer-child", placeholder: "DIR", help: "Insert COUNT files named 'TAG i' into DIR, printing each ID.").hidden()
    static var options: [Option] { [records, runs, writes, json, openChild, writerChild] }

    /// What this invocation does: the benchmark, or one of its child processes.
    enum Mode {
        case benchmark(records: Int, runs: Int, writes: Int, printsJSON: Bool)
        case openChild(directory: String)
        case writerChild(directory: String, tag: String, count: Int)
    }

    var mode: Mode

    init(parsing arguments: inout Arguments) throws(UsageError) {
        if let directory = try arguments.value(of: Self.openChild)?.path() {
            mode = .openChild(directory: directory)
        } else if let directory = try arguments.value(of: Self.writerChild)?.path() {
            let tag = try arguments.nextPositional(named: "TAG").text
            let count = try ArgumentValue.positive(arguments.nextPositional(named: "COUNT"), default: 1)
            mode = .writerChild(directory: directory, tag: tag, count: count)
        } else {
            mode = .benchmark(
                records: try ArgumentValue.positive(arguments.value(of: Self.records), default: 100_000),
                runs: try ArgumentValue.positive(arguments.value(of: Self.runs), default: 3),
                writes: try ArgumentValue.positive(arguments.value(of: Self.writes), default: 1_000),
                printsJSON: arguments.flag(Self.json))
        }
    }

    func run(in context: ToolContext) async throws {
        switch mode {
        case .openChild(let directory):
            try StoreBenchmarkChild.open(directory, in: context)
        case .writerChild(let directory, let tag, let count):
            try StoreBenchmarkChild.write(into: directory, tag: tag, count: count, in: context)
        case .benchmark(let records, let runs, let writes, let printsJSON):
            // The children are this binary: `quire` itself when run from the shell.
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            guard URL(fileURLWithPath: executable).lastPathComponent == QuireCLI.name else {
                throw BenchmarkFailure("bench store starts its own binary as child processes; run it as '\(QuireCLI.name)', not \(executable)")
            }
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("quire-bench-store-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var benchmark = StoreBenchmark(executable: executable, directory: directory)
            benchmark.records = records
            benchmark.runs = runs
            benchmark.writesPerProcess = writes
            let bar = ProgressBar(label: "bench store", total: 6, unit: "stages", errorOutput: context.errorOutput)
            var stages = 0
            benchmark.progress = { _ in
                bar?.update(done: stages)
                stages += 1
            }
            let result = try benchmark.run()
            bar?.clear()
            try context.report(result, asJSON: printsJSON)
        }
    }
}

extension StoreBenchmark.Result: BenchmarkResult {
    /// The figures as aligned lines.
    var table: String {
        func format(_ value: Double) -> String { String(format: "%.3f", value) }
        let rows: [(String, String)] = [
            ("store", "\(records) files in \(folders) folders, built in \(format(build_ms)) ms, \(runs) run(s)"),
            ("open, fresh process (ms)", format(open_ms)),
            ("RSS before / after open (MiB)", "\(format(rss_before_open_mb)) / \(format(rss_after_open_mb))"),
            ("first write: empty (ms, MiB after)", "\(format(first_write_ms)), \(format(rss_after_first_write_mb))"),
            ("then a keystroke (ms, MiB after)", "\(format(first_keystroke_ms)), \(format(rss_after_first_keystroke_mb))"),
            ("then a new file (ms, MiB after)", "\(format(first_create_ms)), \(format(rss_after_first_create_mb))"),
            ("get (µs)", "\(format(get_us)) (raw LMDB \(format(raw_get_us)), ratio \(format(get_ratio)))"),
            ("record value (bytes)", "\(record_value_bytes)"),
            ("first 100 of \(children) children (ms)", format(children_page_ms)),
            ("import of \(delta_records) records (ms)", "\(format(import_ms)) (delta \(delta_bytes) bytes)"),
            ("longest read during it (ms)", "\(format(reader_max_wait_ms)) (of \(reader_reads) reads)"),
            ("data.mdb (bytes)", "\(data_bytes) (\(String(format: "%.1f", bytes_per_record)) per record)"),
            ("two processes: writes", "\(two_process_writes) in \(format(two_process_ms)) ms"),
            ("two processes: lost, duplicate IDs", "\(two_process_lost), \(two_process_duplicate_ids)"),
        ]
        return rows.map { $0.0.padding(toLength: 36, withPad: " ", startingAt: 0) + $0.1 + "\n" }.joined()
    }
}
