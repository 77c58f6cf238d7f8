import Foundation
import Quire
import QuireCore

/// `quire compact`: a compacting copy of the data file, and pruning of acknowledged history.
struct CompactCommand: Command {
    static let name = "compact"
    static let summary = "Shrink the store's file; prune history every known replica has acknowledged."
    static let usage = "[--store DIR] [--folder FOLDER] [--ack REPLICA=VERSIONFILE]... [--output DIR] [--json]"
    static let discussion = """
        Writes a compacted copy of the store's data file (free pages left out), checks it
        as 'quire verify' does, and puts it in place of the original. The store must not
        be open in any other process (an app, another quire command): compact refuses
        and changes nothing if it is. With --output DIR, writes the compacted copy to DIR
        instead and leaves the store as it is (a backup: it carries this replica's ID, so
        never let it write as a second replica).

        With --folder (the sync folder the replicas use: its ack files) or --ack (a
        replica's version file, from 'quire status --version-out' there), first prunes
        from the change log the changes every known replica has acknowledged — this
        replica, every replica the store has heard of, and every replica in the folder.
        A known replica without an acknowledgement blocks pruning; nothing a replica may
        lack is ever pruned. The cost: this store can no longer give the pruned history
        to anyone; a new replica then needs a full export from a replica that kept it.
        docs/storage.md has the details.

        Example:
          quire compact --store ~/Notes.quire --folder ~/Dropbox/Notes.sync
        """
    static let folder = Option.value("folder", placeholder: "FOLDER", help: "Prune what the acknowledgements in this sync folder cover.")
    static let ack = Option.value("ack", placeholder: "REPLICA=VERSIONFILE", help: "A replica's version (repeatable); prune what all cover.")
    static let output = Option.value("output", placeholder: "DIR", help: "Write the compacted copy to DIR; leave the store as it is.")
    static let json = Option.flag("json", help: "Print one JSON object instead of lines.")
    static var options: [Option] { [StoreLocation.option, folder, ack, output, json] }

    var store: String?
    var folderPath: String?
    var acknowledgements: [(replica: ReplicaID, path: String)]
    var outputPath: String?
    var printsJSON: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        folderPath = try arguments.value(of: Self.folder)?.path()
        acknowledgements = []
        for value in arguments.values(of: Self.ack) {
            let parts = value.text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].count == 16, let raw = UInt64(parts[0], radix: 16), !parts[1].isEmpty else {
                throw .invalid("--ack takes REPLICA=VERSIONFILE, a replica ID of 16 hex digits and a version file, not '\(value.text)'")
            }
            acknowledgements.append((ReplicaID(raw), parts[1]))
        }
        outputPath = try arguments.value(of: Self.output)?.path()
        printsJSON = arguments.flag(Self.json)
    }

    /// The report as `--json` prints it.
    struct Report: Encodable {
        var directory: String
        var output: String?
        var bytes_before: Int
        var bytes_after: Int
        var pruned_changes: Int?
        var pruned_bytes: Int?
        /// Replica → first counter the log keeps.
        var kept_from: [String: UInt64]?
        var unacknowledged: [String]?
    }

    func run(in context: ToolContext) async throws {
        let directory = StoreLocation.resolve(store, in: context)
        guard StoreLocation.holdsStore(directory) else { throw MissingStore(directory: directory) }
        var given: HistoryAcknowledgements?
        if let folderPath { given = try HistoryAcknowledgements(syncFolder: folderPath) }
        for (replica, path) in acknowledgements {
            let file = try VersionFile.read(path.hasPrefix("/") ? path : context.currentDirectory + "/" + path)
            given = given ?? HistoryAcknowledgements()
            given!.note(replica, has: file.version)
        }
        let report: CompactionReport
        if let outputPath {
            let opened = try StoreLocation.openExisting(directory, writes: given != nil, in: context)
            report = try StoreLocation.withStore(opened) { store in
                let pruning = try given.map { try store.pruneHistory(acknowledged: $0) }
                var report = try store.compact(to: outputPath)
                report.pruning = pruning
                return report
            }
        } else {
            // Refuse a store that cannot be written before copying anything.
            _ = try StoreAccess.decide(directory: directory, writes: true, environment: context.environment)
            report = try Store.compact(directory: directory, acknowledged: given)
        }
        let pruning = report.pruning
        if printsJSON {
            context.output.writeLine(try BenchmarkJSON.line(Report(
                directory: directory, output: outputPath, bytes_before: report.bytesBefore, bytes_after: report.bytesAfter,
                pruned_changes: pruning?.prunedChanges, pruned_bytes: pruning?.prunedBytes,
                kept_from: pruning.map { Dictionary(uniqueKeysWithValues: $0.keptFrom.counters.map { ($0.key.description, $0.value) }) },
                unacknowledged: pruning?.unacknowledged.map(\.description))))
            return
        }
        if let pruning { context.output.writeLine(pruning.description) }
        let target = outputPath.map { "wrote the compacted copy to \($0)" } ?? "compacted \(directory)"
        context.output.writeLine("\(target): data file \(report.bytesBefore) → \(report.bytesAfter) bytes")
        if outputPath != nil {
            context.output.writeLine("the copy carries this replica's ID: keep it as a backup, never write to it as a second replica")
        }
    }
}
