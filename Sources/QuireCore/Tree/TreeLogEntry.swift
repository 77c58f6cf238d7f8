/// One node's state inside the tree, by dense index: what an undo restores.
struct TreeNodeState: Sendable {
    /// The parent's index, or `-1` when the node is not in the tree (never created, or
    /// its creation undone), and for the fixed nodes.
    var parent: Int32
    var position: PositionKey
    var metadata: [UInt8]
    /// The timestamp of the move that produced this state; with the parent and
    /// position it orders siblings. Equal timestamps mean equal states.
    var lastMove: Timestamp

    static let detached = TreeNodeState(
        parent: -1, position: PositionKey(), metadata: [],
        lastMove: Timestamp(lamport: 0, replica: ReplicaID(0)))
}

/// One operation in the log, with what undoing it needs.
struct TreeLogEntry: Sendable {
    var operation: TreeOperation
    /// Dense indices of the moved node and the new parent.
    var node: Int32
    var parent: Int32
    /// The node's state just before this entry was (last) done.
    var old: TreeNodeState
    /// Whether the move is in effect (false: it would make a cycle, or is invalid).
    var applied: Bool
    /// Change tracking for persistence (see `TreeChangeSet`).
    var flags: Flags

    struct Flags: OptionSet, Sendable {
        let rawValue: UInt8
        /// `applied` or `old` changed since the change session began.
        static let dirty = Flags(rawValue: 1)
        /// Inserted during the change session.
        static let inserted = Flags(rawValue: 2)
    }

    @inline(__always) var timestamp: Timestamp { operation.timestamp }
}
