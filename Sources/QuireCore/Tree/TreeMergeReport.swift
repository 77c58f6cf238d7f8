/// What ``ReplicatedTree/apply(_:)`` did with a batch of operations.
public struct TreeMergeReport: Hashable, Sendable {
    /// New operations now in effect.
    public var applied = 0
    /// New operations kept in the log but not in effect: they would make a cycle (or are
    /// invalid, e.g. a move of a fixed node) given everything ordered before them.
    public var skipped: [Timestamp] = []
    /// Operations already received (or older than the truncated part of the log).
    public var duplicates = 0
    /// Earlier log entries undone and redone to place the batch in timestamp order.
    public var redone = 0
    /// Earlier entries whose outcome flipped: skipped before and applied now, or the
    /// reverse, because an older operation arrived.
    public var flipped: [Timestamp] = []

    /// An empty report.
    public init() {}
}
