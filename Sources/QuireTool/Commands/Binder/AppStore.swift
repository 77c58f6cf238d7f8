import Foundation
import Quire
import QuireApps

/// How the binder, cards and demo commands open a store: the `--store DIR` of the store
/// commands (``StoreLocation``), opened with the reference apps' record types so merges
/// report name clashes of every type.
enum AppStore {
    /// The options the app commands open stores with.
    static var options: Store.Options {
        var options = Store.Options()
        options.recordTypes = ReferenceApps.recordTypes
        return options
    }

    /// Runs `body` with the store at `given` (or the default) open, and closes it.
    ///
    /// - Parameters:
    ///   - given: The `--store` directory, `nil` for the default.
    ///   - context: For the default directory and the message about a new store.
    ///   - creating: Create a new store when the directory holds none (and say so);
    ///     otherwise that is an error.
    ///   - writes: Whether the command changes the store; a command that only reads opens
    ///     it read-only, so it also works on read-only media (``StoreAccess``).
    /// - Throws: ``NoAppStore`` without a store (unless `creating`), ``ReadOnlyStore`` when
    ///   a writing command meets a store that cannot be written, or what `body` or the
    ///   store throws.
    static func with<R>(
        _ given: String?, in context: ToolContext, creating: Bool = false, writes: Bool = true,
        _ body: (Store) throws -> R
    ) throws -> R {
        let directory = StoreLocation.resolve(given, in: context)
        let isNew = !StoreLocation.holdsStore(directory)
        if isNew && !creating { throw NoAppStore(directory: directory) }
        let store = try StoreLocation.open(directory, writes: writes || isNew, options: options, in: context)
        if isNew { context.errorOutput.writeLine("created a new store at \(directory) (replica \(store.replica))") }
        return try StoreLocation.withStore(store, body)
    }
}

/// An app command pointed at a directory without a store.
struct NoAppStore: Error, CustomStringConvertible {
    var directory: String

    var description: String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            return StoreError.notADirectory(directory).description
        }
        return "no store at \(directory); create one with 'quire project create NAME --type poetry' or 'quire cards category add TITLE', or name another with --store DIR (or QUIRE_STORE)"
    }
}

/// A failure of an app command, in words that say what to do.
struct AppError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
