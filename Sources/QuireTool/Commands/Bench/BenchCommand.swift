/// `quire bench`: the benchmarks, one subcommand each.
struct BenchCommand: CommandGroup {
    static let name = "bench"
    static let summary = "Measure Quire against a baseline run in the same process."
    static let discussion = """
        Each benchmark prints its figures as a table, or with --json as one JSON object
        per line. Times are medians over several runs; build with 'swift run -c release'
        for figures worth quoting. docs/benchmarks.md explains every field.
        """
    static var subcommands: [any Command.Type] { [TextBenchCommand.self, LMDBBenchCommand.self, TreeBenchCommand.self, AutosaveBenchCommand.self, DeltaBenchCommand.self, StoreBenchCommand.self] }
}
