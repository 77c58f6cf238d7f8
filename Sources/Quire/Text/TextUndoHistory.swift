import QuireCore

/// This replica's undoable edits to one text: one step per write transaction.
///
/// Kept in memory for the life of the ``Store`` (like `UndoManager`), not persisted: a
/// reopened store starts with empty histories.
struct TextUndoHistory {
    /// The steps always kept; beyond twice this many, the oldest are dropped.
    static let maximumDepth = 1_000

    var undo: [ReplicatedText.EditFootprint] = []
    var redo: [ReplicatedText.EditFootprint] = []
    /// Deleted characters that undo or redo brought back as copies: older steps that
    /// name the originals act on the copies.
    var redirects: [ReplicatedText.Redirect] = []

    /// What a transaction's edits of a text were.
    enum Action {
        case undo, redo
    }

    /// Records the edits a committed transaction made to the text.
    mutating func record(_ footprint: ReplicatedText.EditFootprint, as action: Action?, redirects: [ReplicatedText.Redirect]) {
        self.redirects += redirects
        switch action {
        case nil:
            Self.push(footprint, onto: &undo)
            redo.removeAll()
        case .undo:
            undo.removeLast()
            Self.push(footprint, onto: &redo)
        case .redo:
            redo.removeLast()
            Self.push(footprint, onto: &undo)
        }
    }

    private static func push(_ footprint: ReplicatedText.EditFootprint, onto stack: inout [ReplicatedText.EditFootprint]) {
        stack.append(footprint)
        // Trim in batches: dropping one step per keystroke would copy the stack each time.
        if stack.count >= 2 * Self.maximumDepth { stack.removeFirst(stack.count - Self.maximumDepth) }
    }
}
