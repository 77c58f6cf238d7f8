import Synchronization

extension Store {
    /// Opens an undo group: everything this replica does until the matching
    /// ``endUndoGroup()`` — in any number of write transactions, on any records and
    /// texts — is one undo step, taken back by one ``StoreWriter/undo()``.
    ///
    /// ```swift
    /// try store.beginUndoGroup()
    /// try store.write { tx in try tx.update(file, as: File.self) { $0.name = "Ode (final)" } }
    /// try store.write { tx in try tx.move(file, to: published) }
    /// try store.endUndoGroup()
    /// try store.write { tx in try tx.undo() }     // name and place back, in one step
    /// ```
    ///
    /// Groups nest; only the outermost end closes the step. Typing inside a group joins
    /// it too. Call it outside transaction bodies.
    ///
    /// - Throws: ``StoreError/closed``.
    public func beginUndoGroup() throws {
        try state.withLock { state in
            guard !state.isClosed else { throw StoreError.closed }
            state.undoHistory.beginGroup()
        }
    }

    /// Closes the innermost group ``beginUndoGroup()`` opened.
    ///
    /// - Returns: `false` when no group was open (nothing changes).
    /// - Throws: ``StoreError/closed``.
    @discardableResult
    public func endUndoGroup() throws -> Bool {
        try state.withLock { state in
            guard !state.isClosed else { throw StoreError.closed }
            return state.undoHistory.endGroup()
        }
    }

    /// Runs a local write; when its undo finds typing still buffered in editing sessions,
    /// commits that typing (as its own change, an undo step like any) and runs it again,
    /// so the undo takes back the typing and no acknowledged keystroke is lost.
    func committingBufferedTyping<R>(_ write: () throws -> R) throws -> R {
        while true {
            do {
                return try write()
            } catch let request as TypingCommitRequest {
                // Each session commits (or keeps an error for its next call) and empties its
                // buffer, so the next attempt finds nothing unless typing continues meanwhile.
                for session in request.sessions { session.commitBufferedTyping() }
            }
        }
    }
}

/// The editing sessions of one store that hold typing not committed yet, per text, so
/// an undo can have it committed first (see ``StoreWriter/undo(in:)``).
///
/// Its own lock, never held while taking another: sessions mark themselves under their
/// own lock, undo reads it under the store's.
final class BufferedTyping: Sendable {
    /// A session, not kept alive from here: dropping one commits its typing (`deinit`).
    private struct Entry {
        weak var session: TextEditingSession?
    }

    private let buffering = Mutex<[TextID: [ObjectIdentifier: Entry]]>([:])

    /// Notes whether `session` holds uncommitted typing.
    func note(_ session: TextEditingSession, isBuffering: Bool) {
        buffering.withLock { buffering in
            if isBuffering {
                buffering[session.text, default: [:]][ObjectIdentifier(session)] = Entry(session: session)
            } else {
                buffering[session.text]?[ObjectIdentifier(session)] = nil
                if buffering[session.text]?.isEmpty == true { buffering[session.text] = nil }
            }
        }
    }

    /// The sessions with uncommitted typing of `text` (of any text when `nil`).
    func sessions(editing text: TextID?) -> [TextEditingSession] {
        buffering.withLock { buffering in
            let entries = text.map { Array((buffering[$0] ?? [:]).values) } ?? buffering.values.flatMap(\.values)
            return entries.compactMap(\.session)
        }
    }
}

extension Store {
    /// The store's sessions with uncommitted typing.
    var bufferedTyping: BufferedTyping { state.withLock { $0.bufferedTyping } }
}
