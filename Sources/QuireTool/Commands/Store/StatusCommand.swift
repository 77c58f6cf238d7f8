import Foundation
import Quire
import QuireCore

/// `quire status [--json] [--version-out FILE]`: who this replica is and what it holds.
struct StatusCommand: Command {
    static let name = "status"
    static let summary = "Show the store's replica, version, pending changes and sizes."
    static let usage = "[--store DIR] [--json] [--version-out FILE] [--folder FOLDER]"
    static let discussion = """
        Prints the replica ID, the store ID (shared by every replica of the store), the
        version (each replica's next counter: what this store has of it), the changes
        waiting for earlier ones, and the store's sizes: changes in the log and their
        bytes, records, texts and the data file.

        With --version-out, also writes the version to FILE (a small text format, see
        docs/cli.md); give that file to 'quire export --since' on another replica to
        export only what this one lacks. FILE is replaced through a temporary file
        and a rename; a symbolic link is written through, a FIFO or device directly.

        With --folder, also shows what a sync folder holds: per replica, its delta
        files (how many, their bytes, how far they go) and its acknowledgement.

        Example:
          quire status --store ~/Notes.quire --version-out phone.version
        """
    static let json = Option.flag("json", help: "Print one JSON object instead of lines.")
    static let versionOut = Option.value("version-out", placeholder: "FILE", help: "Also write the version to FILE.")
    static let folder = Option.value("folder", placeholder: "FOLDER", help: "Also show what this sync folder holds.")
    static var options: [Option] { [StoreLocation.option, json, versionOut, folder] }

    var store: String?
    var printsJSON: Bool
    var versionPath: String?
    var folderPath: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        printsJSON = arguments.flag(Self.json)
        versionPath = try arguments.value(of: Self.versionOut)?.path()
        folderPath = try arguments.value(of: Self.folder)?.path()
    }

    /// The status as `--json` prints it; keys in snake case.
    struct Report: Encodable {
        var directory: String
        var replica: String
        var store_id: String
        /// Replica ID (hex) → next counter.
        var version: [String: UInt64]
        var pending_changes: Int
        var change_count: Int
        var change_log_bytes: Int
        var record_count: Int
        var text_count: Int
        var file_bytes: Int
        /// With `--folder`: what the sync folder holds.
        var folder: SyncFolderState?
    }

    func run(in context: ToolContext) async throws {
        try report(in: context)
    }

    /// The command's work, synchronous: in the async `run` itself, Swift 6.3.1's release
    /// build crashed (signal 11 in LLVM's coroutine splitting, swifterror handling).
    private func report(in context: ToolContext) throws {
        let directory = StoreLocation.resolve(store, in: context)
        var (report, versionFile) = try StoreLocation.withStore(try StoreLocation.openExisting(directory, writes: false, in: context)) { store in
            let statistics = try store.statistics()
            let version = store.version
            let report = Report(
                directory: directory, replica: store.replica.description, store_id: store.storeID.description,
                version: Dictionary(uniqueKeysWithValues: version.counters.filter { $0.value > 0 }.map { ($0.key.description, $0.value) }),
                pending_changes: statistics.pendingCount, change_count: statistics.changeCount,
                change_log_bytes: statistics.changeLogBytes, record_count: statistics.recordCount,
                text_count: statistics.textCount, file_bytes: statistics.fileBytes)
            return (report, VersionFile(storeID: store.storeID.description, version: version))
        }
        if let folderPath { report.folder = try SyncFolderState.read(folderPath) }
        if let versionPath { try AtomicFile.write(Array(versionFile.text.utf8), to: versionPath) }
        if printsJSON {
            context.output.writeLine(try BenchmarkJSON.line(report))
        } else {
            context.output.write(Self.lines(report))
            for line in report.folder?.lines(thisReplica: report.replica) ?? [] { context.output.writeLine(line) }
            if let versionPath { context.output.writeLine("wrote the version to \(versionPath)") }
        }
    }

    /// The report as aligned lines.
    static func lines(_ report: Report) -> String {
        var rows: [(String, String)] = [
            ("store", report.directory),
            ("replica", report.replica),
            ("store ID", report.store_id),
        ]
        let version = report.version.sorted { $0.key < $1.key }
        if version.isEmpty {
            rows.append(("version", "empty (no changes yet)"))
        } else {
            for (index, entry) in version.enumerated() {
                let mine = entry.key == report.replica ? "  (this replica)" : ""
                rows.append((index == 0 ? "version" : "", "\(entry.key) \(entry.value)\(mine)"))
            }
        }
        rows += [
            ("pending", MergeReport.count(report.pending_changes, "change") + " waiting for earlier ones"),
            ("change log", MergeReport.count(report.change_count, "change") + ", \(report.change_log_bytes) bytes"),
            ("records", "\(report.record_count)"),
            ("texts", "\(report.text_count)"),
            ("data file", "\(report.file_bytes) bytes"),
        ]
        return rows.map { $0.0.padding(toLength: 12, withPad: " ", startingAt: 0) + $0.1 + "\n" }.joined()
    }
}
