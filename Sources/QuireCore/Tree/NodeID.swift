/// The identity of one node of a ``ReplicatedTree``, the same on every replica.
///
/// A node is named after the operation that created it: creating a node is a move of a
/// new ID, and the creating replica uses that move's ``OperationID``, which no other
/// replica can produce. The tree's two fixed nodes, ``root`` and ``deletedRoot``, use
/// replica 0, which no real replica may have.
///
/// ```swift
/// let folder = try tree.create(under: .root, metadata: Array("Drafts".utf8)).node
/// tree.parent(of: folder)   // .root
/// ```
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The replica that created the node.
    public var replica: ReplicaID
    /// The counter of the creating operation in that replica's history.
    public var counter: UInt64

    /// Creates an ID from its two parts.
    public init(replica: ReplicaID, counter: UInt64) {
        self.replica = replica
        self.counter = counter
    }

    /// The ID of the node created by the operation `id`.
    public init(_ id: OperationID) {
        self.init(replica: id.replica, counter: id.counter)
    }

    /// The root of the visible tree. It has no parent and cannot be moved.
    public static let root = NodeID(replica: ReplicaID(0), counter: 0)

    /// The deleted-root (trash): deleting a node moves it here with its subtree, and
    /// moving it back out restores it. It has no parent and cannot be moved.
    public static let deletedRoot = NodeID(replica: ReplicaID(0), counter: 1)

    /// Whether this is ``root`` or ``deletedRoot``.
    public var isFixed: Bool { replica.rawValue == 0 && counter < 2 }

    /// Orders by replica, then counter.
    public static func < (lhs: NodeID, rhs: NodeID) -> Bool {
        (lhs.replica, lhs.counter) < (rhs.replica, rhs.counter)
    }

    /// `root`, `deleted-root`, or `replica@counter`.
    public var description: String {
        if self == .root { return "root" }
        if self == .deletedRoot { return "deleted-root" }
        return "\(replica)@\(counter)"
    }
}
