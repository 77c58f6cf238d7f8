import Foundation
import Quire

/// The `--store DIR` option every store command takes, and how those commands open it.
///
/// The store is `--store DIR`, else the `QUIRE_STORE` environment variable, else
/// ``defaultDirectory`` (`./.quire`) in the current directory.
enum StoreLocation {
    /// The store used when neither `--store` nor `QUIRE_STORE` names one.
    static let defaultDirectory = ".quire"

    /// `--store DIR`, with `QUIRE_STORE` as its fallback.
    static let option = Option.value(
        "store", placeholder: "DIR", environmentVariable: "QUIRE_STORE",
        help: "The store's directory (default ./\(defaultDirectory)).")

    /// The absolute path `--store` (or `QUIRE_STORE`) gives, or `nil` for the default.
    ///
    /// - Throws: ``UsageError`` for an empty `--store`.
    static func directory(from arguments: Arguments) throws(UsageError) -> String? {
        try arguments.value(of: option)?.path()
    }

    /// The store's absolute path: `given`, or ``defaultDirectory`` in the current directory.
    static func resolve(_ given: String?, in context: ToolContext) -> String {
        if let given { return given }
        let base = context.currentDirectory
        return base.hasSuffix("/") ? base + defaultDirectory : base + "/" + defaultDirectory
    }

    /// Whether `directory` holds a store (an LMDB data file).
    static func holdsStore(_ directory: String) -> Bool {
        FileManager.default.fileExists(atPath: directory + "/data.mdb")
    }

    /// Opens the existing store in `directory`: read-write when the command `writes`,
    /// read-only otherwise (``StoreAccess``); a note on standard error says when the
    /// store could only be opened read-only.
    ///
    /// - Throws: ``MissingStore`` when there is none, ``ReadOnlyStore`` when the command
    ///   writes and the store cannot be written, or what ``Store/init(directory:options:)``
    ///   throws.
    static func openExisting(
        _ directory: String, writes: Bool, options: Store.Options = Store.Options(), in context: ToolContext
    ) throws -> Store {
        guard holdsStore(directory) else { throw MissingStore(directory: directory) }
        return try open(directory, writes: writes, options: options, in: context)
    }

    /// Opens the store in `directory` (created when it holds none and the command
    /// `writes`) with the access ``StoreAccess`` decides, noting a forced read-only open.
    /// Never inlined, like ``StoreAccess/decide(directory:writes:environment:)``.
    @inline(never)
    static func open(
        _ directory: String, writes: Bool, options: Store.Options = Store.Options(), in context: ToolContext
    ) throws -> Store {
        var options = options
        if holdsStore(directory) {
            let decision = try StoreAccess.decide(directory: directory, writes: writes, environment: context.environment)
            options.access = decision.access
            if let note = decision.note { context.errorOutput.writeLine("note: \(note)") }
        }
        return try Store(directory: directory, options: options)
    }

    /// Runs `body` with the store open and closes it afterwards, also when `body` throws.
    static func withStore<R>(_ store: Store, _ body: (Store) throws -> R) throws -> R {
        let result: R
        do {
            result = try body(store)
        } catch {
            try? store.close()
            throw error
        }
        try store.close()
        return result
    }
}

/// A store command pointed at a directory without a store.
struct MissingStore: Error, CustomStringConvertible {
    var directory: String

    var description: String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            return StoreError.notADirectory(directory).description
        }
        return "no store at \(directory); pass --store DIR (or set QUIRE_STORE) to name one, or create it with 'quire import FILE' or 'quire sync FOLDER'"
    }
}
