import QuireCore

/// Undo and redo of this replica's actions.
///
/// The store keeps one history per ``Store``: each step is an app action — a run of
/// typing (grouped as ``UndoGrouping`` says), a rename, a move, a deletion, everything
/// between ``Store/beginUndoGroup()`` and ``Store/endUndoGroup()`` — and undoing it is a
/// new change that merges like any edit. ``undo()`` takes back the latest step whatever
/// it touched (the app's Cmd-Z); ``undo(in:)`` takes back the latest step's edits of one
/// text (a text view's own Cmd-Z) and leaves the rest of that step in the history.
extension StoreWriter {
    /// Takes back this replica's latest action: its text edits, field writes and moves,
    /// as new operations that merge like any edit.
    ///
    /// ```swift
    /// try store.write { tx in try tx.update(chapter, as: Folder.self) { $0.name = "Chapter One" } }
    /// try store.write { tx in try tx.undo() }     // the name is "Chapter 1" again
    /// try store.write { tx in try tx.redo() }     // "Chapter One"
    /// ```
    ///
    /// Texts: characters the action inserted are deleted, characters it deleted come back
    /// as copies where they were. Fields: the value before is written again. Moves: the
    /// record goes back under its previous parent, at its previous place among the
    /// siblings still there; a record the action created goes to the trash. A part that
    /// another write changed since (another replica renamed or moved the record again) is
    /// left as that write made it: a concurrent edit survives the undo.
    ///
    /// Typing still buffered in a ``TextEditingSession`` is the latest action: it is
    /// committed first (the body runs again after that), then undone.
    ///
    /// One undo or redo per transaction; a second returns `false`.
    ///
    /// - Returns: `false` when there is nothing to undo.
    /// - Throws: An error making the operations (the transaction then changes nothing).
    @discardableResult
    public func undo() throws -> Bool {
        try revert(.undo, in: nil)
    }

    /// Makes again the action ``undo()`` (or ``undo(in:)``) took back last; a new action
    /// clears what can be redone.
    ///
    /// - Returns: `false` when there is nothing to redo.
    /// - Throws: As ``undo()``.
    @discardableResult
    public func redo() throws -> Bool {
        try revert(.redo, in: nil)
    }

    /// Whether ``undo()`` has something to take back (typing still buffered in a
    /// ``TextEditingSession`` counts).
    public var canUndo: Bool { !_state.undoHistory.undo.isEmpty || !_state.bufferedTyping.sessions(editing: nil).isEmpty }

    /// Whether ``redo()`` has something to make again.
    public var canRedo: Bool { !_state.undoHistory.redo.isEmpty }

    /// Takes back this replica's latest edits of a text — the latest undo step that
    /// edited it, a run of typing grouped as ``UndoGrouping`` says — as new operations
    /// that merge like any edit: characters it inserted are deleted, characters it deleted
    /// come back where they were. Concurrent edits of other replicas are untouched.
    ///
    /// ```swift
    /// try store.write { tx in try tx.undo(in: content) }
    /// ```
    ///
    /// When that step did more (an explicit group that also renamed a record), only its
    /// edits of `text` are taken back; the rest stays for ``undo()``. Typing still
    /// buffered in a ``TextEditingSession`` on `text` is committed first, then undone.
    /// One undo or redo per transaction; the text's other edits in the same transaction
    /// become part of it.
    ///
    /// - Parameter text: The text.
    /// - Returns: `false` when there is nothing to undo in `text`.
    /// - Throws: ``StoreError/recordNotFound(_:)`` when the text's record is gone.
    @discardableResult
    public func undo(in text: TextID) throws -> Bool {
        try revert(.undo, in: text)
    }

    /// Makes again the latest edits of a text that ``undo(in:)`` or ``undo()`` took back;
    /// a new action clears what can be redone.
    ///
    /// - Returns: `false` when there is nothing to redo in `text`.
    /// - Throws: As ``undo(in:)``.
    @discardableResult
    public func redo(in text: TextID) throws -> Bool {
        try revert(.redo, in: text)
    }

    /// Whether ``undo(in:)`` has something to take back in `text`.
    public func canUndo(in text: TextID) -> Bool {
        _state.undoHistory.candidate(.undo, in: text) != nil || !_state.bufferedTyping.sessions(editing: text).isEmpty
    }

    /// Whether ``redo(in:)`` has something to make again in `text`.
    public func canRedo(in text: TextID) -> Bool { _state.undoHistory.candidate(.redo, in: text) != nil }

    // MARK: Internals

    private func revert(_ action: UndoHistory.Reverted.Action, in text: TextID?) throws -> Bool {
        guard _state.session?.reverted == nil else { return false }
        if action == .undo {
            let buffered = _state.bufferedTyping.sessions(editing: text)
            if !buffered.isEmpty {
                _state.session?.typingToCommit = buffered
                throw TypingCommitRequest(sessions: buffered)
            }
        }
        let history = _state.undoHistory
        guard let index = history.candidate(action, in: text) else { return false }
        let step = (action == .undo ? history.undo : history.redo)[index]
        for part in step.texts.reversed() where text == nil || part.id == text {
            var redirects: [ReplicatedText.Redirect] = []
            try editText(part.id, typing: nil) { replicated throws(TextError) in
                redirects = replicated.revert(part.footprint.resolving(history.redirects[part.id] ?? []))
            }
            _state.session?.undoRedirects[part.id, default: []] += redirects
        }
        if text == nil {
            for part in step.fields.reversed() { revertField(part) }
            for part in step.moves.reversed() { try revertMove(part) }
        }
        _state.session?.reverted = .init(action: action, index: index, text: text)
        return true
    }

    /// Writes a field's previous value again, unless another write replaced this one's.
    private func revertField(_ part: UndoStep.FieldPart) {
        guard let register = _state.records[part.record]?.fields[part.name], register.timestamp == part.written else { return }
        writeFields([part.name: part.previous ?? Array("null".utf8)], of: part.record, type: part.type)
    }

    /// Moves a node back where it was (to the trash if the step created it), unless
    /// another move moved it since or the way back would make a cycle.
    private func revertMove(_ part: UndoStep.MovePart) throws {
        guard _state.placement(of: part.node)?.lastMove == part.moved else { return }
        guard let previous = part.previous else {
            try hierarchy(.move(part.node, to: .deletedRoot, at: nil))
            return
        }
        guard _state.contains(previous.parent), !_state.wouldCreateCycle(moving: part.node, under: previous.parent) else { return }
        // Its old place among the siblings there now: after every one whose key sorts first.
        let index = _state.children(of: previous.parent).filter { sibling in
            sibling != part.node && _state.placement(of: sibling).map { $0.position < previous.position } ?? false
        }.count
        try hierarchy(.move(part.node, to: previous.parent, at: index))
    }
}

/// Thrown out of a write body whose undo found typing still buffered in editing
/// sessions: ``Store/write(_:)`` commits that typing, then runs the body again.
struct TypingCommitRequest: Error {
    var sessions: [TextEditingSession]
}
