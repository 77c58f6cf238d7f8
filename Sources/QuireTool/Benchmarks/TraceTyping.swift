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
    static func makeFile(named name: String, for trace: EditingTrace, in store: Store) throws -> TextID {
        try store.write { tx in
            let file = try tx.insert(BenchFile(name: name))
            if !trace.startContent.isEmpty { try tx.insert(trace.startContent, at: 0, in: file.text("content")) }
            return file.text("content")
        }
    }

    /// Types `groups` of patches into `text`, one change per non-empty group.
    static func type(_ groups: [ArraySlice<EditingTrace.Patch>], into text: TextID, of store: Store) throws {
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
