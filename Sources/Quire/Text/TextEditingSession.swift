import Dispatch
import QuireCore
import Synchronization

/// Typing into one text of a ``Store``, saved as the user types: every keystroke is
/// committed on its own (durable mode) or a short burst of keystrokes becomes one change
/// (coalescing mode).
///
/// ```swift
/// let store = try Store(directory: path)
/// let session = TextEditingSession(store: store, text: file.text("content"))
/// try session.insert("H", at: 0)          // committed durably before it returns
/// try session.insert("i", at: 1)
/// try session.delete(1..<2)               // backspace
/// try session.replace(0..<1, with: "h")
/// print(try session.string)                // "h"
/// ```
///
/// **Durable mode** (`coalescing: nil`, the default): each call is one
/// ``Store/write(_:)``, so one ``Change``, committed before the call returns — with
/// ``Store/Options/durability`` `.full` it survives a crash or power loss the moment the
/// call returns.
///
/// **Coalescing mode** (`coalescing: .standard` or `.milliseconds(n)`): edits are
/// buffered and committed together as one change when the window that the first of them
/// opened expires, or earlier on ``flush()``, on a read (``string``), on ``close()`` and
/// on `deinit`. A crash loses at most the last window's keystrokes; delta files and
/// other replicas see one change per burst instead of one per keystroke.
///
/// ```swift
/// let session = TextEditingSession(store: store, text: content, coalescing: .milliseconds(200))
/// var cursor = try session.length          // a read: commits what is buffered
/// for character in "Hello" {
///     try session.insert(String(character), at: cursor)   // buffered
///     cursor += 1
/// }
/// try session.flush()                      // committed now, one change
/// ```
///
/// Buffered edits are checked when they are committed. When an edit turns out to be
/// invalid (a position past the end, inside a character), the edits before it are still
/// committed as one change and the rest are dropped; the failure is reported as an
/// ``AutosaveError/editsDropped(count:saved:reason:)``. An error of a commit that the timer
/// started is kept (the first one, if several) and thrown by the next call to this
/// session — an edit, a read, ``flush()`` or ``close()`` — which then does nothing
/// else; the calls after it work normally.
///
/// An undo of the text (``undo()``, or ``StoreWriter/undo(in:)`` and
/// ``StoreWriter/undo()`` through the store) first commits the buffered edits, then takes
/// them back: typing acknowledged by a call that returned is never dropped for an undo.
///
/// Thread-safety: a session may be used from any thread or task; its calls are
/// serialised by a lock, and so are its commits, in call order. Positions are
/// interpreted against the text as it is after this session's previous calls (and
/// whatever other writers committed before this session's commit). Use one session per
/// text at a time; other writers of the same text are merged as usual.
public final class TextEditingSession: Sendable {
    /// How long keystrokes are gathered into one change.
    public struct Coalescing: Sendable, Hashable {
        /// The time from the first buffered keystroke to the commit of all buffered ones.
        public let window: Duration

        /// The longest window: 300 ms, so a crash never loses more than a third of a second
        /// of typing.
        public static let maximumWindow = Duration.milliseconds(300)

        /// The window `milliseconds` long, clamped to 1…300 ms.
        ///
        /// ```swift
        /// TextEditingSession(store: store, text: content, coalescing: .milliseconds(100))
        /// ```
        public static func milliseconds(_ milliseconds: Int) -> Coalescing {
            Coalescing(window: .milliseconds(min(max(milliseconds, 1), 300)))
        }

        /// The default window, ``maximumWindow`` (300 ms).
        public static let standard = Coalescing(window: maximumWindow)
    }

    /// The store written to.
    public let store: Store
    /// The text edited.
    public let text: TextID
    /// The coalescing window, or `nil` in durable mode (one commit per call).
    public let coalescing: Coalescing?

    private let state = Mutex(State())
    private let timerQueue: DispatchQueue
    /// Where the session says it holds uncommitted typing, for an undo to commit it first.
    private let bufferedTyping: BufferedTyping

    private struct State: ~Copyable {
        /// Edits not committed yet (coalescing mode only).
        var buffer: [Edit] = []
        /// Bumped by every commit, so a timer armed for an earlier buffer does nothing.
        var generation: UInt64 = 0
        /// The first error of a timer-driven commit, not yet reported.
        var deferredError: (any Error)?
        var isClosed = false
    }

    /// One edit command, replayed in the commit's transaction.
    private enum Edit: Sendable {
        case insert(String, at: Int, unit: TextUnit)
        case delete(Range<Int>, unit: TextUnit)
        case replace(Range<Int>, with: String, unit: TextUnit)

        func apply(_ tx: borrowing StoreWriter, to text: TextID) throws {
            switch self {
            case let .insert(string, position, unit): try tx.insert(string, at: position, unit: unit, in: text)
            case let .delete(range, unit): try tx.delete(range, unit: unit, in: text)
            case let .replace(range, string, unit): try tx.replace(range, with: string, unit: unit, in: text)
            }
        }
    }

    /// Starts a session on `text`.
    ///
    /// ```swift
    /// let durable = TextEditingSession(store: store, text: file.text("content"))
    /// let coalesced = TextEditingSession(store: store, text: file.text("content"), coalescing: .standard)
    /// ```
    ///
    /// - Parameters:
    ///   - store: An open store.
    ///   - text: A text of an existing record; it is created empty on the first edit.
    ///   - coalescing: `nil` (the default) commits every call on its own; a window
    ///     gathers the keystrokes made within it into one change.
    public init(store: Store, text: TextID, coalescing: Coalescing? = nil) {
        self.store = store
        self.text = text
        self.coalescing = coalescing
        self.timerQueue = DispatchQueue(label: "quire.text-editing-session.\(text)")
        self.bufferedTyping = store.bufferedTyping
    }

    deinit {
        // Best effort: a caller that needs the error calls `close()` or `flush()` first.
        state.withLock { state in _ = try? commitBuffer(&state) }
    }

    // MARK: Editing

    /// Inserts `string` at `position`.
    ///
    /// ```swift
    /// try session.insert("a", at: cursor)                        // typing at the cursor
    /// try session.insert("é", at: range.location, unit: .utf16)  // from an NSRange
    /// ```
    ///
    /// - Parameters:
    ///   - string: The typed text.
    ///   - position: An offset in `unit`s, `0...length`.
    ///   - unit: Unicode scalars (default), UTF-16 code units or UTF-8 bytes.
    /// - Throws: In durable mode, what ``StoreWriter/insert(_:at:unit:in:)`` or the commit
    ///   throws; in both modes an error kept from an earlier timer-driven commit, and
    ///   ``AutosaveError/closed`` after ``close()``.
    /// - Complexity: O(log *n*) plus one commit in durable mode.
    public func insert(_ string: String, at position: Int, unit: TextUnit = .unicodeScalars) throws {
        try edit(.insert(string, at: position, unit: unit))
    }

    /// Deletes `range` (in `unit`s): a backspace is `delete(length - 1 ..< length)`.
    ///
    /// ```swift
    /// let end = try session.length
    /// try session.delete(end - 1 ..< end)
    /// ```
    ///
    /// - Parameters:
    ///   - range: Offsets in `unit`s, within the text.
    ///   - unit: Unicode scalars (default), UTF-16 code units or UTF-8 bytes.
    /// - Throws: As ``insert(_:at:unit:)``.
    public func delete(_ range: Range<Int>, unit: TextUnit = .unicodeScalars) throws {
        try edit(.delete(range, unit: unit))
    }

    /// Replaces `range` (in `unit`s) with `string`, as one edit.
    ///
    /// ```swift
    /// try session.replace(0..<5, with: "Howdy")
    /// ```
    ///
    /// - Parameters:
    ///   - range: Offsets in `unit`s, within the text.
    ///   - string: The replacement.
    ///   - unit: Unicode scalars (default), UTF-16 code units or UTF-8 bytes.
    /// - Throws: As ``insert(_:at:unit:)``.
    public func replace(_ range: Range<Int>, with string: String, unit: TextUnit = .unicodeScalars) throws {
        try edit(.replace(range, with: string, unit: unit))
    }

    // MARK: Reading and saving

    /// The whole text, after committing buffered edits.
    ///
    /// - Throws: An error of the commit or one kept from a timer-driven commit.
    public var string: String {
        get throws {
            try state.withLock { state in
                try prepare(&state)
                try commitBuffer(&state)
                return try readString()
            }
        }
    }

    /// The text's length in Unicode scalars, after committing buffered edits.
    ///
    /// - Throws: As ``string``.
    public var length: Int {
        get throws { try length(in: .unicodeScalars) }
    }

    /// The text's length in `unit`s, after committing buffered edits.
    ///
    /// - Throws: As ``string``.
    public func length(in unit: TextUnit) throws -> Int {
        try state.withLock { state in
            try prepare(&state)
            try commitBuffer(&state)
            return try readLength(in: unit)
        }
    }

    /// Commits the buffered edits now, as one change; does nothing when none are buffered
    /// (always so in durable mode).
    ///
    /// ```swift
    /// try session.flush()   // e.g. when the app moves to the background
    /// ```
    ///
    /// - Throws: An error of this commit, or one kept from a timer-driven commit.
    public func flush() throws {
        try state.withLock { state in
            try prepare(&state)
            try commitBuffer(&state)
        }
    }

    /// Commits the buffered edits and ends the session; later calls throw
    /// ``AutosaveError/closed``. Closing twice does nothing.
    ///
    /// - Throws: As ``flush()``. The session is closed even when it throws.
    public func close() throws {
        try state.withLock { state in
            guard !state.isClosed else { return }
            state.isClosed = true
            if let error = state.deferredError {
                state.deferredError = nil
                _ = try? commitBuffer(&state)
                throw error
            }
            try commitBuffer(&state)
        }
    }

    // MARK: Undo

    /// Takes back this replica's latest edits of the text (see
    /// ``StoreWriter/undo(in:)``), after committing the buffered ones: the typing just
    /// done is what goes first.
    ///
    /// ```swift
    /// try session.insert("Hello", at: 0)
    /// try session.undo()                      // ""
    /// try session.redo()                      // "Hello"
    /// ```
    ///
    /// - Returns: `false` when there is nothing to undo.
    /// - Throws: As ``flush()``, or an error of the undo's commit.
    @discardableResult
    public func undo() throws -> Bool {
        try state.withLock { state in
            try prepare(&state)
            try commitBuffer(&state)
            return try store.write { tx in try tx.undo(in: text) }
        }
    }

    /// Makes again the edits ``undo()`` took back last (see ``StoreWriter/redo(in:)``).
    ///
    /// - Returns: `false` when there is nothing to redo.
    /// - Throws: As ``undo()``.
    @discardableResult
    public func redo() throws -> Bool {
        try state.withLock { state in
            try prepare(&state)
            try commitBuffer(&state)
            return try store.write { tx in try tx.redo(in: text) }
        }
    }

    /// The text's word count (see ``StoreReading/wordCount(of:)``), after committing
    /// buffered edits.
    ///
    /// ```swift
    /// statusBar.words = try session.wordCount
    /// ```
    ///
    /// - Throws: As ``string``.
    public var wordCount: Int {
        get throws {
            try state.withLock { state in
                try prepare(&state)
                try commitBuffer(&state)
                return try store.read { tx in try tx.wordCount(of: text) }
            }
        }
    }

    /// Commits the buffered edits for an undo of the store; an error is kept for this
    /// session's next call, as a timer-driven commit's is.
    func commitBufferedTyping() {
        state.withLock { state in
            do {
                try commitBuffer(&state)
            } catch {
                if state.deferredError == nil { state.deferredError = error }
            }
        }
    }

    // MARK: Internals

    private func edit(_ edit: Edit) throws {
        try state.withLock { state in
            try prepare(&state)
            guard let coalescing else {
                try write(CollectionOfOne(edit))  // no array for one keystroke
                return
            }
            state.buffer.append(edit)
            if state.buffer.count == 1 {
                bufferedTyping.note(self, isBuffering: true)
                armTimer(after: coalescing.window, generation: state.generation)
            }
        }
    }

    /// Throws after `close()`, and reports (once) an error kept from the timer.
    private func prepare(_ state: inout State) throws {
        guard !state.isClosed else { throw AutosaveError.closed }
        if let error = state.deferredError {
            state.deferredError = nil
            throw error
        }
    }

    private func armTimer(after window: Duration, generation: UInt64) {
        let (seconds, attoseconds) = window.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        timerQueue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.timerFired(generation: generation)
        }
    }

    private func timerFired(generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation, !state.buffer.isEmpty else { return }
            do {
                try commitBuffer(&state)
            } catch {
                if state.deferredError == nil { state.deferredError = error }
            }
        }
    }

    /// Commits the buffer in one write. When an edit fails, commits the edits before it
    /// and drops the rest. The buffer is empty afterwards either way.
    private func commitBuffer(_ state: inout State) throws {
        guard !state.buffer.isEmpty else { return }
        let edits = state.buffer
        state.buffer = []
        state.generation &+= 1
        bufferedTyping.note(self, isBuffering: false)
        var failedIndex = edits.count
        do {
            try write(edits[...]) { failedIndex = $0 }
        } catch {
            // The edits before the failing one are valid on their own: keep them.
            guard failedIndex < edits.count else { throw error }
            let valid = edits[..<failedIndex]
            if !valid.isEmpty { try write(valid) }
            throw AutosaveError.editsDropped(count: edits.count - failedIndex, saved: failedIndex, reason: error)
        }
    }

    /// The text as stored.
    private func readString() throws -> String {
        try store.read { tx in try tx.string(of: text) }
    }

    /// The text's stored length in `unit`s.
    private func readLength(in unit: TextUnit) throws -> Int {
        try store.read { tx in try tx.length(of: text, unit: unit) }
    }

    /// Applies `edits` in one write transaction: one change. `failing` learns the index of
    /// an edit that throws (the body may run more than once, after a map resize).
    @discardableResult
    private func write<Edits: Collection<Edit>>(_ edits: Edits, failing: (Int) -> Void = { _ in }) throws -> Int
    where Edits.Index == Int {
        try store.write { tx -> Int in
            for (index, edit) in zip(edits.indices, edits) {
                do {
                    try edit.apply(tx, to: text)
                } catch {
                    failing(index)
                    throw error
                }
            }
            return edits.count
        }
    }
}

/// Why a ``TextEditingSession`` call failed, beyond the store's own errors.
public enum AutosaveError: Error, CustomStringConvertible {
    /// The session was closed; start a new one to edit again.
    case closed
    /// Buffered edits could not be committed: `count` edits, from the first invalid one
    /// on, were dropped; the `saved` ones before it were committed. `reason` is the
    /// invalid edit's error, typically ``StoreError/text(_:_:)`` for a position out of
    /// range.
    case editsDropped(count: Int, saved: Int, reason: any Error)

    public var description: String {
        switch self {
        case .closed:
            "the text editing session is closed; start a new session to edit the text"
        case let .editsDropped(count, saved, reason):
            "\(count) buffered edit\(count == 1 ? " was" : "s were") dropped because one was invalid: \(reason); "
                + (saved == 0 ? "no edit before it was buffered" : "the \(saved) edit\(saved == 1 ? "" : "s") before it were saved")
        }
    }
}
