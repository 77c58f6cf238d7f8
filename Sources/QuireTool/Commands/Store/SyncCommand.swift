import Foundation
import Quire

/// `quire sync FOLDER`: exchange changes with the other replicas through a sync folder.
struct SyncCommand: Command {
    static let name = "sync"
    static let summary = "Exchange changes with other replicas through a folder a file-sync engine carries."
    static let usage = "[--store DIR] FOLDER"
    static let discussion = """
        One sync (Store.sync(folder:)): writes this replica's new changes as one delta
        file under FOLDER/<replica>/, imports the other replicas' delta files it lacks
        (each all or nothing), writes its acknowledgement FOLDER/<replica>/ack, and
        compacts its own files every known replica has acknowledged into one base file
        <replica>/0-<last>.qdelta, from which a replica joining later gets everything.
        Deletes file-sync engines' conflict copies of its own files (Syncthing's
        .sync-conflict-…, Dropbox's "(… conflicted copy …)", iCloud's "name 2").
        Creates the store when DIR holds none yet, and FOLDER when it is missing. Keep
        the store itself out of the synced folder.

        Fails (exit 1) when a new, empty store can import nothing from a folder other
        replicas use (it has not joined; it says why and writes nothing), and when two
        files of one replica hold different changes for the same counters: two devices
        write as one replica (a restored backup or a copied store).

        Prints the files written, imported (with what each changed), skipped (with why:
        damaged, still syncing, waiting for earlier files — a later sync tries them
        again), ignored and pruned, and the version acknowledged. Skipped files do not
        make the command fail; a failure to use the folder or the store does (exit 1).

        Example:
          quire sync --store ~/Notes.quire ~/Dropbox/Notes.sync
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var folder: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        folder = try arguments.nextPositional(named: "FOLDER").path()
    }

    func run(in context: ToolContext) async throws {
        let directory = StoreLocation.resolve(store, in: context)
        let isNew = !StoreLocation.holdsStore(directory)
        let opened = try StoreLocation.open(directory, writes: true, in: context)
        if isNew { context.output.writeLine("created a new store at \(directory) (replica \(opened.replica))") }
        let report = try StoreLocation.withStore(opened) { store in try store.sync(folder: folder) }
        for line in Self.lines(report) { context.output.writeLine(line) }
    }

    /// The report as printed, one file per line.
    static func lines(_ report: SyncReport) -> [String] {
        var lines: [String] = []
        lines += report.written.map { "wrote \($0)" }
        for file in report.imported {
            let summary = file.report.summaryLines
            lines.append("imported \(file.path): " + summary[0])
            lines += summary.dropFirst()
        }
        lines += report.skipped.map { "skipped \($0.path): \($0.reason)" }
        lines += report.ignored.map { "ignored \($0.path): \($0.reason)" }
        if let base = report.base { lines.append("wrote base \(base)") }
        lines += report.pruned.map { "pruned \($0)" }
        lines += report.removedConflictCopies.map { "removed conflict copy \($0)" }
        let merged = report.merged
        lines.append(
            "synced: \(MergeReport.count(report.written.count, "file")) written, "
                + "\(report.imported.count) imported, \(report.skipped.count) skipped, \(report.pruned.count) pruned; "
                + MergeReport.count(merged.applied.count, "change") + " applied, \(merged.pending.count) pending")
        lines.append("acknowledged \(report.acknowledged)")
        return lines
    }
}
