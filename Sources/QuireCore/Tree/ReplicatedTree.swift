/// A replicated tree of nodes — folders, files, categories, notes — that replicas edit
/// offline and merge with no cycle, no lost subtree and no duplicate: the move operation
/// of Kleppmann, Mulligan, Gomes and Beresford, "A highly-available move operation for
/// replicated trees" (IEEE TPDS, 2021).
///
/// Every change is a ``TreeOperation`` `move(node, parent, position, metadata)`. All
/// replicas apply the same operations in `(lamport, replica)` order; an operation that
/// arrives late is placed by undoing the newer ones, doing it, and redoing them. A move
/// that would put a node inside its own subtree is skipped but kept, and re-evaluated
/// whenever an older operation arrives. Deleting moves a node under
/// ``NodeID/deletedRoot`` with its whole subtree; restoring moves it back out.
///
/// ```swift
/// var laptop = try ReplicatedTree(replica: ReplicaID.random())
/// let drafts = try laptop.create(under: .root, metadata: Array("Drafts".utf8))
/// let chapter = try laptop.create(under: drafts.node, metadata: Array("Chapter 1".utf8))
///
/// var phone = try ReplicatedTree(replica: ReplicaID.random())
/// phone.apply([drafts, chapter])
/// let deletion = try phone.delete(drafts.node)          // offline on the phone
/// let rescue = try laptop.move(chapter.node, to: .root)  // offline on the laptop
/// laptop.apply([deletion])
/// phone.apply([rescue])
/// // Both: Drafts is in the trash, Chapter 1 survives under the root.
/// ```
///
/// Siblings are ordered by ``PositionKey`` and then by the timestamp of their last move;
/// ``children(of:)`` reads an ordered per-parent list, it never sorts the whole tree.
///
/// A value type: copies are independent replicas' states. Not thread-safe to mutate from
/// several threads at once; it is `Sendable`, so hand it over or guard it with a `Mutex`.
public struct ReplicatedTree: Sendable {
    /// This replica's ID, which stamps its operations.
    public let replica: ReplicaID
    /// The largest Lamport clock value seen or used; the next local operation gets one more.
    public internal(set) var clock: UInt64
    /// The counter the next local operation gets.
    public internal(set) var nextCounter: UInt64
    /// Every entry at or before this timestamp has been dropped from the log by
    /// ``truncateLog(acknowledgements:received:)``; `nil` when nothing has.
    public internal(set) var truncatedThrough: Timestamp?

    // Node table, by dense index. 0 is the root, 1 the deleted-root.
    var ids: [NodeID]
    var indexOf: [NodeID: Int32]
    var nodes: [TreeNodeState]
    /// Per parent, its children in order (position, last move).
    var children: [[Int32]]
    /// The operation log, in timestamp order.
    var log: [TreeLogEntry]
    var random: SplitMix64
    /// The timestamp of the last local move that made a position key: the sibling whose
    /// last move it is ends the run the next key may continue (memory only).
    var lastPlacement: Timestamp?
    var attachedCount = 0

    // Change tracking: nodes touched since the last `settleChildren()`, with their
    // state before, and the same since the change session began.
    var operationMark: [UInt32]
    var operationEpoch: UInt32 = 1
    var operationTouched: [(node: Int32, before: TreeNodeState)] = []
    var session: TreeChangeSession?

    static let rootIndex: Int32 = 0
    static let deletedRootIndex: Int32 = 1

    /// Creates an empty tree (only the root and the deleted-root) for one replica.
    ///
    /// - Parameters:
    ///   - replica: This replica's ID; must not be 0, which the fixed nodes use.
    ///   - seed: Seeds the random suffixes of position keys; `nil` for a random seed.
    ///     Fix it only to make tests and benchmarks repeatable.
    /// - Throws: ``TreeError/reservedReplica`` for replica 0.
    public init(replica: ReplicaID, seed: UInt64? = nil) throws(TreeError) {
        guard replica.rawValue != 0 else { throw .reservedReplica }
        self.replica = replica
        clock = 0
        nextCounter = 0
        truncatedThrough = nil
        ids = [.root, .deletedRoot]
        indexOf = [.root: 0, .deletedRoot: 1]
        nodes = [.detached, .detached]
        children = [[], []]
        log = []
        operationMark = [0, 0]
        var system = SystemRandomNumberGenerator()
        random = SplitMix64(seed: seed ?? system.next())
    }

    // MARK: Reading

    /// The parent of `node`, or `nil` for the fixed nodes and nodes not in the tree.
    ///
    /// - Complexity: O(1) on average.
    public func parent(of node: NodeID) -> NodeID? {
        guard let index = indexOf[node] else { return nil }
        let parent = nodes[Int(index)].parent
        return parent < 0 ? nil : ids[Int(parent)]
    }

    /// The children of `node` in sibling order: by position key, then by the timestamp
    /// of their last move.
    ///
    /// - Complexity: O(*k*) for *k* children; nothing is sorted.
    public func children(of node: NodeID) -> [NodeID] {
        guard let index = indexOf[node] else { return [] }
        return children[Int(index)].map { ids[Int($0)] }
    }

    /// The number of children of `node`. O(1) on average.
    public func childCount(of node: NodeID) -> Int {
        guard let index = indexOf[node] else { return 0 }
        return children[Int(index)].count
    }

    /// The metadata of `node`, or `nil` when it is not in the tree. The fixed nodes have
    /// empty metadata.
    public func metadata(of node: NodeID) -> [UInt8]? {
        guard let index = indexOf[node], contains(index) else { return nil }
        return nodes[Int(index)].metadata
    }

    /// The position key of `node` among its siblings, or `nil` when it is not in the
    /// tree or is fixed.
    public func position(of node: NodeID) -> PositionKey? {
        guard let index = indexOf[node], nodes[Int(index)].parent >= 0 else { return nil }
        return nodes[Int(index)].position
    }

    /// The timestamp of the move that put `node` where it is, or `nil` when it is not in
    /// the tree or is fixed.
    public func lastMove(of node: NodeID) -> Timestamp? {
        guard let index = indexOf[node], nodes[Int(index)].parent >= 0 else { return nil }
        return nodes[Int(index)].lastMove
    }

    /// Whether `node` is in the tree: a fixed node, or one with a parent.
    public func contains(_ node: NodeID) -> Bool {
        guard let index = indexOf[node] else { return false }
        return contains(index)
    }

    func contains(_ index: Int32) -> Bool { index < 2 || nodes[Int(index)].parent >= 0 }

    /// Whether `node` is inside the deleted-root's subtree (deleted, possibly with an
    /// ancestor).
    ///
    /// - Complexity: O(depth of `node`).
    public func isDeleted(_ node: NodeID) -> Bool {
        guard let index = indexOf[node] else { return false }
        return isAncestor(Self.deletedRootIndex, of: nodes[Int(index)].parent)
    }

    /// Whether moving `node` under `parent` would put it inside its own subtree (or under
    /// itself). Local moves that would are refused with ``TreeError/cycle(node:parent:)``.
    ///
    /// - Complexity: O(depth of `parent`).
    public func wouldCreateCycle(moving node: NodeID, under parent: NodeID) -> Bool {
        guard let nodeIndex = indexOf[node], let parentIndex = indexOf[parent] else { return false }
        return isAncestor(nodeIndex, of: parentIndex)
    }

    /// Every node in the tree except the two fixed ones, in no particular order.
    public var nodeIDs: [NodeID] {
        var result: [NodeID] = []
        result.reserveCapacity(attachedCount)
        for index in 2..<nodes.count where nodes[index].parent >= 0 { result.append(ids[index]) }
        return result
    }

    /// The number of nodes in the tree, not counting the two fixed ones. O(1).
    public var nodeCount: Int { attachedCount }

    /// The operations in the log, in timestamp order (applied and skipped alike).
    ///
    /// - Complexity: O(*n*) for *n* log entries.
    public var operations: [TreeOperation] { log.map(\.operation) }

    /// The number of log entries (truncation drops old ones).
    public var logCount: Int { log.count }

    /// The number of log entries not in effect (skipped moves).
    ///
    /// - Complexity: O(*n*) for *n* log entries.
    public var skippedCount: Int { log.reduce(0) { $0 + ($1.applied ? 0 : 1) } }

    /// Whether the logged operation with `timestamp` is in effect: `true` applied,
    /// `false` skipped, `nil` when it is not in the log.
    ///
    /// - Complexity: O(log *n*).
    public func isApplied(_ timestamp: Timestamp) -> Bool? {
        let index = logIndex(atOrAfter: timestamp)
        guard index < log.count, log[index].timestamp == timestamp else { return nil }
        return log[index].applied
    }

    // MARK: Internals shared by the extensions

    /// Whether `ancestor` is `node` or one of its ancestors. Bounded by the node count,
    /// so even a corrupt parent chain cannot loop forever.
    @inline(__always)
    func isAncestor(_ ancestor: Int32, of node: Int32) -> Bool {
        var current = node
        var steps = nodes.count
        return nodes.withUnsafeBufferPointer { table in
            while current >= 0 && steps > 0 {
                if current == ancestor { return true }
                current = table[Int(current)].parent
                steps -= 1
            }
            return steps == 0
        }
    }

    /// The dense index of `node`, adding it (not in the tree) when new.
    mutating func intern(_ node: NodeID) -> Int32 {
        if let index = indexOf[node] { return index }
        let index = Int32(ids.count)
        ids.append(node)
        indexOf[node] = index
        nodes.append(.detached)
        children.append([])
        operationMark.append(0)
        session?.mark.append(false)
        return index
    }

    /// The index of the first log entry whose timestamp is not below `timestamp`.
    func logIndex(atOrAfter timestamp: Timestamp) -> Int {
        var low = 0, high = log.count
        while low < high {
            let middle = (low + high) / 2
            if log[middle].timestamp < timestamp { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
