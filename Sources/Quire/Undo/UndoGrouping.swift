/// How this replica's consecutive edits become one undo step, as text editors group
/// typing into words and pauses.
///
/// Consecutive write transactions that only type into (or only erase from) one text,
/// each starting where the previous one left the cursor and each within ``window`` of
/// the previous one, are one step: undo takes back the whole run. A pause longer than
/// the window, a cursor jump, a switch between typing and erasing, a space or newline
/// typed after a word (it starts the next step), a replaced selection, or any other
/// write ends the run. ``Store/beginUndoGroup()`` and ``Store/endUndoGroup()`` make
/// everything in between one step, whatever it touches.
///
/// ```swift
/// var options = Store.Options()
/// options.undoGrouping = UndoGrouping(window: .milliseconds(500))
/// options.undoGrouping = .none                 // every transaction its own step
/// ```
///
/// Thread-safety: the clock is called under the store's lock, from any thread.
public struct UndoGrouping: Sendable {
    /// The longest pause between two edits of one step; `.zero` groups nothing.
    public var window: Duration
    /// The time now; tests pass a clock they advance by hand.
    public var clock: @Sendable () -> ContinuousClock.Instant

    /// A grouping with a window, by default 1 s, measured by `clock`.
    ///
    /// ```swift
    /// UndoGrouping(window: .seconds(2))
    /// ```
    ///
    /// - Parameters:
    ///   - window: The longest pause within one step.
    ///   - clock: The time now; the continuous clock by default.
    public init(window: Duration = .seconds(1), clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.window = window
        self.clock = clock
    }

    /// The default: a 1 s window on the continuous clock.
    public static let standard = UndoGrouping()

    /// No grouping: every write transaction is its own undo step (explicit groups still
    /// group).
    public static let none = UndoGrouping(window: .zero)
}
