import Foundation
import Quire
import QuireCore

/// `quire export [--since FILE | --all] -o FILE`: a delta file of the store's changes.
struct ExportCommand: Command {
    static let name = "export"
    static let summary = "Write a delta file with the changes another replica lacks."
    static let usage = "[--store DIR] [--since VERSIONFILE | --all] -o FILE"
    static let discussion = """
        Writes the store's changes as one delta file, through a temporary file and a
        rename so no reader sees half a file. A symbolic link is written through (its
        target is replaced, the link stays); a FIFO or character device such as
        /dev/stdout is written directly (the summary then goes to standard error);
        a directory or other special file is refused. With --since, only the changes a replica
        at the version in VERSIONFILE lacks (the file 'quire status --version-out'
        writes on that replica); with --all, or neither, the whole history. Prints the
        file's size and how many changes it holds; when the other replica lacks nothing,
        says so and writes no file.

        Example:
          quire export --store ~/Notes.quire --since phone.version -o to-phone.qdelta
        """
    static let since = Option.value("since", placeholder: "VERSIONFILE", help: "Only what a replica at this version lacks.")
    static let all = Option.flag("all", help: "The whole history (the default).")
    static let output = Option.value("output", shortName: "o", placeholder: "FILE", help: "The delta file to write.")
    static var options: [Option] { [StoreLocation.option, since, all, output] }

    var store: String?
    var versionPath: String?
    var outputPath: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        versionPath = try arguments.value(of: Self.since)?.path()
        if versionPath != nil && arguments.flag(Self.all) { throw .invalid("--since and --all exclude each other") }
        guard let output = try arguments.value(of: Self.output)?.path() else { throw .missingOption(Self.output) }
        outputPath = output
    }

    func run(in context: ToolContext) async throws {
        try export(in: context)
    }

    /// The command's work, synchronous: in the async `run` itself, Swift 6.3.1's release
    /// build crashed (signal 11 in LLVM's coroutine splitting, swifterror handling).
    private func export(in context: ToolContext) throws {
        let peer = try versionPath.map(VersionFile.read)
        let opened = try StoreLocation.openExisting(StoreLocation.resolve(store, in: context), writes: false, in: context)
        let exported = try StoreLocation.withStore(opened) { store -> (bytes: [UInt8], changes: [Change])? in
            let version = peer?.version ?? VersionVector()
            if let peer, let peerStore = peer.storeID, peerStore != store.storeID.description,
               version.operationCount > 0 {
                throw OtherLineage(versionPath: versionPath ?? "", fileStore: peerStore, store: store.storeID.description)
            }
            guard let bytes = try store.exportDelta(since: version) else { return nil }
            return (bytes, try store.changes(since: version))
        }
        guard let exported else {
            if let versionPath {
                context.output.writeLine("nothing to export: the replica at \(versionPath) has every change of this store; \(outputPath) not written")
            } else {
                context.output.writeLine("nothing to export: the store has no changes yet; \(outputPath) not written")
            }
            return
        }
        let delivery = try AtomicFile.write(exported.bytes, to: outputPath)
        let replicas = Set(exported.changes.map(\.id.replica)).count
        // Streamed to a FIFO or device (`-o /dev/stdout`): keep the summary out of the data.
        let summary = delivery == .streamed ? context.errorOutput : context.output
        summary.writeLine(
            "wrote \(outputPath): \(exported.bytes.count) bytes, \(exported.changes.count) "
                + (exported.changes.count == 1 ? "change" : "changes")
                + " of \(replicas) " + (replicas == 1 ? "replica" : "replicas"))
    }
}

/// A version file of another store given to `export --since`.
struct OtherLineage: Error, CustomStringConvertible {
    var versionPath: String
    var fileStore: String
    var store: String

    var description: String {
        "\(versionPath) is the version of store \(fileStore), but this store is \(store); use the version file of a replica of this store, or export with --all"
    }
}
