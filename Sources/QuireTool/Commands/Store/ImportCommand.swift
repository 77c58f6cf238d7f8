import Foundation
import Quire

/// `quire import FILE...`: delta files from other replicas, each all or nothing.
struct ImportCommand: Command {
    static let name = "import"
    static let summary = "Import delta files from other replicas and print what each changed."
    static let usage = "[--store DIR] [--join] FILE..."
    static let discussion = """
        Imports each delta file in one transaction of its own: all of it or nothing.
        Creates the store when DIR holds none yet (a new replica joins the lineage of
        the first file it imports). For each file, prints the merge report: changes
        applied, already known and pending (waiting for earlier changes), the records,
        texts and hierarchy nodes changed, values lost to concurrent writes, siblings
        left with the same name, and moves skipped because they would make a cycle.

        A file that is refused (damaged, truncated, from another store ...) leaves the
        store as it was; its reason is printed, the other files are still imported,
        and the command exits 1.

        A store that wrote before its first import is a store of its own, and refuses
        another store's files; with --join, it takes the lineage of such a file and
        merges it, its own changes included (only while it holds no other device's
        changes). On a terminal, a progress bar shows on standard error
        for imports of more than 16 files or 1 MB.

        Example:
          quire import --store ~/Notes.quire from-laptop.qdelta from-phone.qdelta
        """
    static let join = Option.flag("join", help: "Let a store that has only its own changes join the file's store.")
    static var options: [Option] { [StoreLocation.option, join] }

    /// More files than this, or more bytes than ``progressBytes``, show a progress bar.
    static let progressFiles = 16
    static let progressBytes = 1 << 20

    var store: String?
    var files: [String]
    var joining: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        joining = arguments.flag(Self.join)
        files = try arguments.remainingPositionals(named: "FILE").map { value throws(UsageError) in try value.path() }
        guard !files.isEmpty else { throw .missingArgument("FILE") }
    }

    func run(in context: ToolContext) async throws {
        let directory = StoreLocation.resolve(store, in: context)
        let isNew = !StoreLocation.holdsStore(directory)
        // Each file is read once: a FIFO or /dev/stdin cannot be read twice.
        var readAhead: [Int: Result<[UInt8], any Error>] = [:]
        if isNew {
            // A new store joins the lineage of the first file it imports: create it only
            // for a file that can be imported, not for a damaged or unreadable one.
            var problems: [(file: String, problem: String)] = []
            let importable = files.indices.contains { index in
                let file = files[index]
                let bytes = Result { try Self.read(file) }
                readAhead[index] = bytes
                do {
                    try Store.checkDelta(bytes.get())
                    return true
                } catch {
                    problems.append((file, "\(error)"))
                    return false
                }
            }
            if !importable {
                if problems.count > 1 {
                    for (file, problem) in problems { context.errorOutput.writeLine("\(QuireCLI.name): \(file): refused: \(problem)") }
                }
                throw UnimportableFiles(directory: directory, problem: problems.count == 1 ? problems[0].problem : nil, count: files.count)
            }
        }
        let opened = try StoreLocation.open(directory, writes: true, in: context)
        if isNew { context.output.writeLine("created a new store at \(directory) (replica \(opened.replica))") }
        let sizes = files.map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
        let totalBytes = sizes.reduce(0, +)
        let progress = files.count > Self.progressFiles || totalBytes > Self.progressBytes
            ? ProgressBar(label: "importing", total: files.count, totalBytes: totalBytes, errorOutput: context.errorOutput)
            : nil
        var total = MergeReport()
        var refused = 0
        try StoreLocation.withStore(opened) { store in
            var doneBytes = 0
            for (index, file) in files.enumerated() {
                progress?.update(done: index, doneBytes: doneBytes)
                let outcome = Result { try store.importDelta(readAhead[index]?.get() ?? Self.read(file), joiningLineage: joining) }
                progress?.clear()
                switch outcome {
                case .success(let report):
                    let lines = report.summaryLines
                    context.output.writeLine("\(file): " + lines[0])
                    for line in lines.dropFirst() { context.output.writeLine(line) }
                    total.add(report)
                case .failure(let error):
                    refused += 1
                    context.errorOutput.writeLine("\(QuireCLI.name): \(file): refused: \(error)")
                }
                doneBytes += sizes[index]
            }
            progress?.update(done: files.count, doneBytes: doneBytes)
            progress?.clear()
        }
        if files.count > 1 {
            context.output.writeLine(
                "total: \(files.count - refused) of \(files.count) files imported; \(total.applied.count) applied, "
                    + "\(total.alreadyKnown.count) already known, \(total.pending.count) pending")
        }
        if refused > 0 { throw RefusedImports(refused: refused, total: files.count) }
    }

    /// The most bytes a delta file may have: its payload's limit and room for a header.
    static let maximumFileBytes = 1 << 30 + 1 << 16

    /// The bytes of the delta file at `path`: a regular file, a FIFO or `/dev/stdin`.
    private static func read(_ path: String) throws -> [UInt8] {
        try InputFile.read(path, limit: maximumFileBytes, what: "a delta file")
    }
}

/// `quire import` into a directory without a store, given no file it could import.
struct UnimportableFiles: Error, CustomStringConvertible {
    var directory: String
    /// The one file's problem, when there was one file.
    var problem: String?
    var count: Int
    var description: String {
        (problem ?? "none of the \(count) delta files can be imported (see above)") + "; no store was created at \(directory)"
    }
}

/// Some of the files given to `quire import` were refused.
struct RefusedImports: Error, CustomStringConvertible {
    var refused: Int
    var total: Int
    var description: String {
        "\(refused) of \(total) delta \(total == 1 ? "file was" : "files were") refused (see above); each refused file left the store unchanged — fetch it again from its sender and re-run the import"
    }
}
