import Foundation
import Quire

/// `quire verify [--store DIR] [--json]`: checks the store and reports every problem.
struct VerifyCommand: Command {
    static let name = "verify"
    static let summary = "Check the store's consistency and report every problem precisely."
    static let usage = "[--store DIR] [--json]"
    static let discussion = """
        Reads the whole store without changing it and checks: the meta record (its
        version against the change log, its clocks, checkpoint and pruned history); the
        change log (every entry decodes, each replica's counters are contiguous, without
        gaps or overlaps, up to the version; dependencies within it); pending changes
        (they decode and still wait); the indexes (records and tree nodes describe the
        same records, text slots and texts agree, name tables are contiguous); and the
        tree (parents exist, no cycles, every node reachable from the top level or the
        trash, the children index matches the nodes, last moves are logged). Works on a
        store too damaged to open, and read-only (also on read-only media). A data file
        shorter than its meta pages say (truncated) is reported as the one problem.
        docs/storage.md describes every database.

        Prints a summary line, then one line per problem: the database, the key, what is
        wrong and what to do. Exits 0 when the store is healthy, 1 when problems were
        found. With --json, one object: "healthy", the counts checked, and "problems"
        (check, database, key, problem, remedy); when the store cannot be checked at all
        (no store there, unreadable), still one object: "directory", "healthy": false and
        "error" saying what failed and what to do, with exit status 1.

        Example:
          quire verify --store ~/Notes.quire
        """
    static let json = Option.flag("json", help: "Print one JSON object instead of lines.")
    static var options: [Option] { [StoreLocation.option, json] }

    var store: String?
    var printsJSON: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        printsJSON = arguments.flag(Self.json)
    }

    /// The report as `--json` prints it.
    struct Report: Encodable {
        struct Problem: Encodable {
            var check: String
            var database: String
            var key: String
            var problem: String
            var remedy: String
        }
        var directory: String
        var healthy: Bool
        var change_count: Int
        var pending_count: Int
        var record_count: Int
        var node_count: Int
        var tree_log_count: Int
        var text_count: Int
        var problems: [Problem]
    }

    /// What `--json` prints when the store could not be checked.
    struct Failure: Encodable {
        var directory: String
        var healthy = false
        var error: String
    }

    func run(in context: ToolContext) async throws {
        let directory = StoreLocation.resolve(store, in: context)
        let report: VerifyReport
        do {
            guard StoreLocation.holdsStore(directory) else { throw MissingStore(directory: directory) }
            let decision = try StoreAccess.decide(directory: directory, writes: false, environment: context.environment)
            if let note = decision.note { context.errorOutput.writeLine("note: \(note)") }
            report = try Store.verify(directory: directory, access: decision.access)
        } catch {
            if printsJSON { context.output.writeLine(try BenchmarkJSON.line(Failure(directory: directory, error: "\(error)"))) }
            throw error
        }
        if printsJSON {
            context.output.writeLine(try BenchmarkJSON.line(Report(
                directory: directory, healthy: report.isHealthy, change_count: report.changeCount,
                pending_count: report.pendingCount, record_count: report.recordCount, node_count: report.nodeCount,
                tree_log_count: report.treeLogCount, text_count: report.textCount,
                problems: report.problems.map {
                    .init(check: $0.check.rawValue, database: $0.database, key: $0.key, problem: $0.problem, remedy: $0.remedy)
                })))
        } else {
            context.output.writeLine("\(directory): " + report.description)
        }
        if !report.isHealthy { throw ProblemsFound(count: report.problems.count) }
    }

    /// Exit status 1 after the problems were listed.
    struct ProblemsFound: Error, CustomStringConvertible {
        var count: Int
        var description: String {
            "the store has \(count) problem\(count == 1 ? "" : "s") (listed above); follow the remedies, and keep a copy of the store directory before changing anything"
        }
    }
}
