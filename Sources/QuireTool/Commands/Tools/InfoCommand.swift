import Foundation
import Quire

/// `quire info [--store DIR] [--json]`: the store's identity and how its file is used.
struct InfoCommand: Command {
    static let name = "info"
    static let summary = "Show the store's identity, sizes and LMDB usage per database."
    static let usage = "[--store DIR] [--json]"
    static let discussion = """
        Prints what 'quire status' prints (replica, store ID, version, pending changes,
        change log, records, texts), then how the data file is used: the page size, the
        memory map, the pages in use, and for every LMDB database of the store its
        entries, pages, bytes and B-tree depth (docs/storage.md says what each holds),
        and where the change log starts per replica when history was pruned.

        Example:
          quire info --store ~/Notes.quire --json
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
        struct Database: Encodable {
            var name: String
            var entries: Int
            var pages: Int
            var bytes: Int
            var depth: Int
        }
        var status: StatusCommand.Report
        var page_size: Int
        var map_size: Int
        var used_pages: Int
        var live_bytes: Int
        var databases: [Database]
        /// Replica → first counter the change log keeps; empty when nothing was pruned.
        var kept_from: [String: UInt64]
    }

    func run(in context: ToolContext) async throws {
        let directory = StoreLocation.resolve(store, in: context)
        let report = try StoreLocation.withStore(try StoreLocation.openExisting(directory, writes: false, in: context)) { store in
            let statistics = try store.statistics()
            let usage = try store.usage()
            let status = StatusCommand.Report(
                directory: directory, replica: store.replica.description, store_id: store.storeID.description,
                version: Dictionary(uniqueKeysWithValues: store.version.counters.filter { $0.value > 0 }.map { ($0.key.description, $0.value) }),
                pending_changes: statistics.pendingCount, change_count: statistics.changeCount,
                change_log_bytes: statistics.changeLogBytes, record_count: statistics.recordCount,
                text_count: statistics.textCount, file_bytes: statistics.fileBytes)
            return Report(
                status: status, page_size: usage.pageSize, map_size: usage.mapSize, used_pages: usage.usedPages,
                live_bytes: usage.liveBytes,
                databases: usage.databases.map { .init(name: $0.name, entries: $0.entries, pages: $0.pages, bytes: $0.bytes, depth: $0.depth) },
                kept_from: Dictionary(uniqueKeysWithValues: usage.keptFrom.counters.map { ($0.key.description, $0.value) }))
        }
        if printsJSON {
            context.output.writeLine(try BenchmarkJSON.line(report))
            return
        }
        context.output.write(StatusCommand.lines(report.status))
        let mib = Double(report.map_size) / 1_048_576
        context.output.writeLine("map".padding(toLength: 12, withPad: " ", startingAt: 0)
            + String(format: "%.1f MiB; %d pages of %d bytes in use (%d bytes in the databases' B-trees)",
                     mib, report.used_pages, report.page_size, report.live_bytes))
        if !report.kept_from.isEmpty {
            let kept = report.kept_from.sorted { $0.key < $1.key }.map { "\($0.key) from \($0.value)" }.joined(separator: ", ")
            context.output.writeLine("pruned".padding(toLength: 12, withPad: " ", startingAt: 0) + "the change log keeps " + kept)
        }
        context.output.writeLine("")
        context.output.writeLine("database".padding(toLength: 16, withPad: " ", startingAt: 0)
            + "entries".leftPadded(to: 10) + "pages".leftPadded(to: 8) + "bytes".leftPadded(to: 12) + "depth".leftPadded(to: 7))
        for database in report.databases {
            context.output.writeLine(database.name.padding(toLength: 16, withPad: " ", startingAt: 0)
                + "\(database.entries)".leftPadded(to: 10) + "\(database.pages)".leftPadded(to: 8)
                + "\(database.bytes)".leftPadded(to: 12) + "\(database.depth)".leftPadded(to: 7))
        }
    }
}
