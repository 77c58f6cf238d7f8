import QuireCore

/// The history of a text and of a record, as the change log tells it.
extension StoreReading where Self: ~Copyable {
    /// Every change that edited the text, oldest first: who made it, when, and how many
    /// characters it inserted and deleted.
    ///
    /// ```swift
    /// let history = try store.read { tx in try tx.history(of: content) }
    /// for entry in history {
    ///     print(entry.replica, entry.date?.formatted() ?? "time unknown", "+\(entry.inserted) −\(entry.deleted)")
    /// }
    /// ```
    ///
    /// Read from the change log alone, nothing replayed: one entry per change, also for
    /// the changes the log keeps as runs (keystroke autosave's, one change per keystroke).
    /// The order is causal: each replica's changes in the order it made them, and a change
    /// after every change it was made on; concurrent changes of different replicas by
    /// `(lamport, replica)`. Counts are of the change's own operations (Unicode scalars):
    /// a character typed in one change and deleted in a later one counts in both. Changes
    /// still waiting for their dependencies (pending) are not listed, nor edits of this
    /// write transaction (in a ``StoreWriter``) before it commits.
    ///
    /// After ``Store/compact(to:pruning:)`` pruned the history, the changes it removed from
    /// the log are lost to this list: it starts, per replica, at ``historyKeptFrom``, and
    /// the pruned changes' authors, times and sizes are gone (the text itself is whole).
    ///
    /// - Parameter text: The text.
    /// - Returns: Its changes, oldest first; empty for a text never written.
    /// - Throws: ``StoreError/undeclaredText(_:type:declared:)``,
    ///   ``StoreError/corrupt(database:problem:)`` for a log entry that does not decode.
    /// - Complexity: One scan of the change log: O(*e* + *c* log *r*) for *e* log entries
    ///   and their operations, *c* changes to the text from *r* replicas. Each call reads
    ///   the log afresh.
    public func history(of text: TextID) throws -> [TextHistoryEntry] {
        try _view.checkDeclared(text)
        return try _view.history(of: text)
    }

    /// Every change that wrote the record's fields, moved it in the hierarchy (created,
    /// moved, reordered, deleted or restored it) or edited one of its texts, oldest first.
    ///
    /// ```swift
    /// for entry in try store.read({ tx in try tx.history(of: chapter) }) {
    ///     if entry.isCreation { print("created") }
    ///     if let name = try entry.value(of: "name", as: String.self) { print("named '\(name)'") }
    /// }
    /// ```
    ///
    /// Read from the change log alone, in the order of ``history(of:)-(TextID)``, with the
    /// same limits: the pruned history is lost (so the creation may be missing), pending
    /// changes are left out. Moves are listed as they were made (see ``RecordMove``); the
    /// moves of a folder it is in are not its own and are not listed.
    ///
    /// - Parameter record: The record, live, in the trash or not even known to this store.
    /// - Returns: Its changes, oldest first; empty when the log has none.
    /// - Throws: ``StoreError/corrupt(database:problem:)`` for a log entry that does not
    ///   decode.
    /// - Complexity: One scan of the change log, as ``history(of:)-(TextID)``.
    public func history(of record: RecordID) throws -> [RecordHistoryEntry] {
        try _view.history(of: record)
    }

    /// Per replica, the first change counter the change log still has: what the
    /// histories start from. Empty (every counter 0) until compaction prunes history.
    ///
    /// - Throws: ``StoreError/corrupt(database:problem:)`` when the record of it does not
    ///   decode.
    public var historyKeptFrom: VersionVector {
        get throws { try _view.historyKeptFrom() }
    }
}
