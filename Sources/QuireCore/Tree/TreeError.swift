/// Why a local tree operation was refused. Nothing changes when one is thrown.
public enum TreeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The node is not in the tree (never created here, or not yet received).
    case unknownNode(NodeID)
    /// ``NodeID/root`` and ``NodeID/deletedRoot`` never move.
    case fixedNode(NodeID)
    /// The move would put `node` inside its own subtree, under `parent`.
    case cycle(node: NodeID, parent: NodeID)
    /// The sibling index is outside `0...count`.
    case indexOutOfRange(Int, count: Int)
    /// Replica 0 is reserved for the tree's fixed nodes.
    case reservedReplica
    /// A position key longer than ``PositionKey/maximumLength`` would be needed.
    case positionKeyTooLong(Int)

    /// What went wrong, and what to do.
    public var description: String {
        switch self {
        case .unknownNode(let node): "node \(node) is not in the tree; create it (or receive its creation) first"
        case .fixedNode(let node): "\(node) is fixed and cannot be moved"
        case .cycle(let node, let parent): "moving \(node) under \(parent) would put it inside its own subtree"
        case .indexOutOfRange(let index, let count): "sibling index \(index) is outside 0...\(count)"
        case .reservedReplica: "replica ID 0 is reserved for the tree's fixed nodes; use ReplicaID.random()"
        case .positionKeyTooLong(let length): "the position key would be \(length) bytes, over the limit of \(PositionKey.maximumLength): the neighbours' keys, made by another replica or an older store, leave no room here; move one of them elsewhere and back"
        }
    }
}
