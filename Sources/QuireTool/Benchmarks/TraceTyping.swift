import Quire
import QuireCore

/// An editing trace typed into a store's text as changes: what the benchmarks that
/// measure a store's history (delta files, a text's history) build it with.
enum TraceTyping {
    /// The record the trace is typed into; its text is `"content"`.
    struct BenchFile: Record {
        static let typeName = "bench-file"
        var name: String
    }

    /// Creates a file record named `name` holding the trace's start content, in one change.
    ///
    /// - Returns: The file's text.
    private static func makeFile(named name: String, for trace: EditingTrace, in store: Store) throws -> TextID {
        try store.write { tx in
            let file = try tx.insert(BenchFile(name: name))
            if !trace.startContent.isEmpty { try tx.insert(trace.startContent, at: 0, in: file.text("content")) }
            return file.text("content")
        }
    }

    /// Opens a new store at `path` (`noSync` durability: setup only), types `groups` of
    /// the trace's patches into a new file's text, one change per non-empty group, runs
    /// `body` with the store and the text, and closes the store.
    static func withTypedStore<R>(
        _ trace: EditingTrace, named name: String, groups: [ArraySlice<EditingTrace.Patch>], at path: String,
        _ body: (Store, TextID) throws -> R
    ) throws -> R {
        var options = Store.Options()
        options.durability = .noSync
        return try Store.withStore(at: path, options: options) { store in
            let text = try makeFile(named: name, for: trace, in: store)
            try type(groups, into: text, of: store)
            return try body(store, text)
        }
    }

    /// Types `groups` of patches into `text`, one change per non-empty group.
    private static func type(_ groups: [ArraySlice<EditingTrace.Patch>], into text: TextID, of store: Store) throws {
        for group in groups where !group.isEmpty {
            try store.write { tx in
                for patch in group { try apply(patch, to: text, in: tx) }
            }
        }
    }

    /// The trace's transactions as groups: for a sequential trace, one patch each (every
    /// keystroke its own change, as autosave makes them).
    static func perTransaction(_ trace: EditingTrace) -> [ArraySlice<EditingTrace.Patch>] {
        trace.transactions.map { $0.patches[...] }
    }

    /// Applies one patch as a local edit.
    static func apply(_ patch: EditingTrace.Patch, to text: TextID, in tx: borrowing StoreWriter) throws {
        if patch.deleteCount > 0 { try tx.delete(patch.position..<patch.position + patch.deleteCount, in: text) }
        if !patch.text.isEmpty { try tx.insert(patch.text, at: patch.position, in: text) }
    }
}
