import QuireCore

/// A text at any version the store was at, the edits between two versions, and putting a
/// text back as it was.
///
/// The versions are store versions — ``StoreReading/version``, what
/// `quire status --version-out` writes — mapped to the text's own versions through the
/// change log (see `ChangeLogReader+TextVersions.swift`).
extension StoreReading where Self: ~Copyable {
    /// The text as it read when the store was at `version`.
    ///
    /// ```swift
    /// let draft = try store.read { tx in tx.version }
    /// try store.write { tx in try tx.replace(0..<5, with: "Howdy", in: content) }
    /// try store.read { tx in try tx.string(of: content, at: draft) }   // the text before the replace
    /// ```
    ///
    /// Any version the store was at works — after merges, after reopening, inside the runs
    /// the log folds keystrokes into — and so does one made of such versions replica by
    /// replica, as long as it is causally closed. A text the version does not include yet
    /// reads as `""`.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - version: A store version (replica → next change counter) within ``version``.
    /// - Returns: The text at that version.
    /// - Throws: ``StoreError/versionBeyondStore(replica:counter:known:)`` for a version the
    ///   store has not reached, ``StoreError/versionPruned(replica:counter:keptFrom:)`` for
    ///   one in history compaction pruned, ``StoreError/text(_:_:)`` for one the text
    ///   cannot show (not causally closed), ``StoreError/undeclaredText(_:type:declared:)``.
    /// - Complexity: Per replica, the log entries from `version` back to its last change to
    ///   the text, then O(*e* + *d* log *d* + *r* + *m*) for the text (see
    ///   `ReplicatedText.string(at:)`); the current version costs what ``string(of:)`` does.
    public func string(of text: TextID, at version: VersionVector) throws -> String {
        try _view.checkDeclared(text)
        guard let stored = try _view.existingText(text) else {
            _ = try _view.textVersion(of: text, at: version, current: nil)  // refuses what it must
            return ""
        }
        let textVersion = try _view.textVersion(of: text, at: version, current: stored.text)
        do { return try stored.text.string(at: textVersion) } catch { throw StoreError.text(text, error) }
    }

    /// The edits that turn the text at store version `old` into the text at `new`.
    ///
    /// ```swift
    /// let diff = try store.read { tx in try tx.diff(of: content, from: yesterday, to: tx.version) }
    /// for edit in diff.edits.reversed() {   // ranges of the old text
    ///     storage.replaceCharacters(in: NSRange(edit.deletedUTF16Range), with: edit.insertedText)
    /// }
    /// ```
    ///
    /// The versions may come in either order, or be concurrent. Characters are compared
    /// by identity: one deleted and typed again is a deletion and an insertion.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - old: A store version within ``version``: the text the edits apply to.
    ///   - new: Another: the text they give.
    /// - Returns: The edits in document order (see ``TextDiff``).
    /// - Throws: As ``string(of:at:)``.
    /// - Complexity: The two versions' log look-ups (as ``string(of:at:)``), then
    ///   O(*e* + *d* log *d* + *r* + *k*) for the text (see `ReplicatedText.diff(from:to:)`).
    public func diff(of text: TextID, from old: VersionVector, to new: VersionVector) throws -> TextDiff {
        try _view.checkDeclared(text)
        let stored = try _view.existingText(text)
        let from = try _view.textVersion(of: text, at: old, current: stored?.text)
        let to = try _view.textVersion(of: text, at: new, current: stored?.text)
        guard let stored else { return TextDiff(edits: []) }
        do { return try stored.text.diff(from: from, to: to) } catch { throw StoreError.text(text, error) }
    }
}

extension StoreWriter {
    /// Makes a text read as it did when the store was at `version`, by ordinary new edits
    /// in this write's change: what was typed since is deleted, what was deleted since is
    /// typed again (as new characters) where it was.
    ///
    /// ```swift
    /// let draft = try store.read { tx in tx.version }
    /// // … edits here and merged from elsewhere …
    /// try store.write { tx in try tx.restore(content, to: draft) }
    /// ```
    ///
    /// History is not rewound: the restore is an edit like any other, so it ships to other
    /// replicas and merges with their concurrent edits (which survive), and undo takes it
    /// back. Nothing is written when the text already reads so.
    ///
    /// - Parameters:
    ///   - text: A text of an existing record.
    ///   - version: A store version within ``StoreReading/version``.
    /// - Throws: As ``StoreReading/string(of:at:)``, and ``StoreError/recordNotFound(_:)``;
    ///   the text is unchanged when it throws.
    /// - Complexity: That of ``StoreReading/diff(of:from:to:)``, plus O(log *n*) per run
    ///   of characters deleted or typed again.
    public func restore(_ text: TextID, to version: VersionVector) throws {
        guard _state.record(text.record) != nil else { throw StoreError.recordNotFound(text.record) }
        try _state.checkDeclared(text)
        let current = try _state.existingText(text)
        let textVersion = try _state.textVersion(of: text, at: version, current: current?.text)
        guard current != nil else { return }  // it never had any text: nothing to bring back
        // From the text as this write has it so far; no operations when it reads so already.
        try editText(text, typing: nil) { replicated throws(TextError) in try replicated.restore(to: textVersion) }
    }
}
