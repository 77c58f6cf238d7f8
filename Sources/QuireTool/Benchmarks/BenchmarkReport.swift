import LMDB

/// What every benchmark result offers: JSON fields and a table for people.
protocol BenchmarkResult: Encodable {
    /// The figures as aligned text lines.
    var table: String { get }
}

extension ToolContext {
    /// Prints `result` as one JSON line (`--json`) or as its table.
    func report(_ result: some BenchmarkResult, asJSON: Bool) throws {
        if asJSON {
            output.writeLine(try BenchmarkJSON.line(result))
        } else {
            output.write(result.table)
        }
    }
}

extension ArgumentValue {
    /// The `--durability` option: `full` (the default when absent), `nometasync` or `nosync`.
    ///
    /// - Throws: ``UsageError`` for any other word.
    static func durability(_ value: ArgumentValue?) throws(UsageError) -> Environment.Durability {
        switch value?.text.lowercased() {
        case nil, "full": return .full
        case "nometasync": return .noMetaSync
        case "nosync": return .noSync
        case let other?: throw .invalid("--durability must be full, nometasync or nosync, not '\(other)'")
        }
    }
}
