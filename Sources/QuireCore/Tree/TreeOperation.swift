/// The tree's one operation: move `node` under `parent` at `position`, with `metadata`.
///
/// Creating a node is a move of a new ID; renaming is a move to the same parent and
/// position with new metadata; reordering is a move to a new position; deleting is a move
/// under ``NodeID/deletedRoot``; restoring is a move back out. Every replica applies the
/// same operations in ``timestamp`` order, so all converge (Kleppmann et al., 2021).
///
/// An operation received from a peer is untrusted: decode it with
/// ``decode(from:)``, which checks every length, and apply it with
/// ``ReplicatedTree/apply(_:)``, which skips (but keeps) moves that are invalid or would
/// make a cycle.
public struct TreeOperation: Hashable, Sendable, CustomStringConvertible {
    /// The operation's identity: the replica that made it and its counter there.
    public var id: OperationID
    /// The Lamport clock value; with ``id``'s replica it forms ``timestamp``.
    public var lamport: UInt64
    /// The node moved (or created).
    public var node: NodeID
    /// Its new parent.
    public var parent: NodeID
    /// Its new place among the parent's children.
    public var position: PositionKey
    /// Application data carried with the node (a name, a kind); opaque to the tree.
    public var metadata: [UInt8]

    /// Creates an operation.
    public init(
        id: OperationID, lamport: UInt64, node: NodeID, parent: NodeID,
        position: PositionKey, metadata: [UInt8]
    ) {
        self.id = id
        self.lamport = lamport
        self.node = node
        self.parent = parent
        self.position = position
        self.metadata = metadata
    }

    /// `(lamport, replica)`: the total order in which every replica applies moves.
    @inlinable
    public var timestamp: Timestamp { Timestamp(lamport: lamport, replica: id.replica) }

    /// `move node → parent @position (timestamp)`.
    public var description: String {
        "move \(node) → \(parent) @\(position) (\(timestamp))"
    }
}
