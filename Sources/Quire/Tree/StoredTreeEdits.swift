import LMDB
import QuireCore

/// A write session's local moves, made on the stored hierarchy while the writer does not
/// hold the tree in memory: each move reads only what it concerns — the moved node, the
/// new parent's ancestors (the cycle check) and siblings (the position key) — and the
/// changes wait here, over what LMDB holds, until the commit writes them as the same
/// ``TreeChangeSet`` the tree in memory would give.
///
/// A local move is newer than every move this replica has seen, so it is done directly:
/// nothing is undone or redone (Kleppmann et al.'s undo–do–redo is only for merging
/// older moves, which reads the tree whole). Position keys come from
/// `ReplicatedTree.localPosition`, the function the tree in memory uses.
///
/// Not thread-safe: it belongs to one write session, under the store's lock.
final class StoredTreeEdits {
    /// The hierarchy's clocks after the moves so far.
    private(set) var clock: UInt64
    private(set) var nextCounter: UInt64
    private let truncatedThrough: Timestamp?
    /// Nodes moved, in order of first move, with their state before the session and now.
    private(set) var nodes: [TreeChangeSet.NodeChange] = []
    private var nodePlace: [NodeID: Int] = [:]
    /// The children of the parents listed so far (in this session or, kept by the writer,
    /// in earlier ones), with the session's moves applied, in sibling order; kept up to
    /// date as nodes move (LMDB's lists do not change under a write session: it holds the
    /// writer's lock).
    private var childLists: [NodeID: [StoredChild]] = [:]
    /// Parents that lost or gained a child in the session.
    private var touchedParents: Set<NodeID> = []
    /// The moves made, in order (their timestamps ascend).
    private(set) var log: [TreeLogRecord] = []

    /// Edits starting from the stored clocks, and from `childLists`, lists of children the
    /// writer kept from earlier sessions (each as LMDB holds it now).
    init(state: TreeStorageLayout.State, childLists: [NodeID: [StoredChild]]) {
        clock = state.clock
        nextCounter = state.nextCounter
        truncatedThrough = state.truncatedThrough
        self.childLists = childLists
    }

    /// The lists of children the session knows, for the writer to keep once the session's
    /// moves are committed (they are then what LMDB holds); taken out, not copied.
    func takeChildLists() -> [NodeID: [StoredChild]] {
        defer { childLists = [:] }
        return childLists
    }

    /// The node's state after the session's moves, when one moved it; `nil` when none did.
    func movedNode(_ node: NodeID) -> TreeNodeRecord?? {
        nodePlace[node].map { nodes[$0].after }
    }

    /// The log entry of one of the session's moves.
    func logEntry(at timestamp: Timestamp) -> TreeLogRecord? {
        log.first { $0.operation.timestamp == timestamp }
    }

    /// Whether the session has listed `parent`'s children, or moved one into or out of it:
    /// then ``children(of:stored:)`` answers, not LMDB alone.
    func knowsChildren(of parent: NodeID) -> Bool {
        childLists[parent] != nil || touchedParents.contains(parent)
    }

    /// The children of `parent` as the session sees them: `stored` (LMDB's list, read the
    /// first time) with the session's moves applied, in sibling order.
    func children(of parent: NodeID, stored: () throws -> [StoredChild]) rethrows -> [StoredChild] {
        if let list = childLists[parent] { return list }
        var list = try stored().filter { nodePlace[$0.child] == nil }
        for change in nodes {
            guard let after = change.after, after.parent == parent else { continue }
            let entry = StoredChild(child: change.node, position: after.position, lastMove: after.lastMove)
            list.insert(entry, at: Self.insertionIndex(of: entry, in: list, under: parent))
        }
        childLists[parent] = list
        return list
    }

    /// Where `entry` goes in `list` (children of `parent` in sibling order): the order of
    /// their keys in the children index, which sibling order is.
    private static func insertionIndex(of entry: StoredChild, in list: [StoredChild], under parent: NodeID) -> Int {
        func key(_ child: StoredChild) -> [UInt8] {
            TreeStorageLayout.childKey(
                child.child, TreeNodeRecord(parent: parent, position: child.position, metadata: [], lastMove: child.lastMove)
            ).bytes
        }
        let target = key(entry)
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if key(list[middle]).lexicographicallyPrecedes(target) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// What the commit writes.
    var changeSet: TreeChangeSet {
        TreeChangeSet(nodes: nodes, logEntries: log, clock: clock, nextCounter: nextCounter, truncatedThrough: truncatedThrough)
    }

    // MARK: Moving

    /// Where a local move puts the node among its new siblings.
    enum Placement {
        /// At this index among the siblings (the node itself left out); `nil` for last.
        case index(Int?)
        /// At this position key (``StoreWriter/restore(_:)``: back between its old neighbours).
        case position(PositionKey)
    }

    /// Makes a local move of `node` (`nil`: a new node, named after the move) under
    /// `parent`, checked and placed as `ReplicatedTree`'s local operations check and
    /// place, reading `hierarchy` (which shows this session's moves).
    ///
    /// - Parameters:
    ///   - lastPlacement: The last local move that made a key by index (see
    ///     `ReplicatedTree.localPosition`); updated.
    ///   - random: Position keys' random suffixes.
    /// - Returns: The operation.
    /// - Throws: ``StoreError/hierarchy(_:)`` as the tree in memory would throw it, or an
    ///   error reading LMDB.
    func move(
        _ node: NodeID?, to parent: NodeID, placement: Placement, replica: ReplicaID, hierarchy: some StoredHierarchy,
        lastPlacement: inout Timestamp?, random: inout SplitMix64
    ) throws -> TreeOperation {
        func fail(_ error: TreeError) -> StoreError { .hierarchy(error) }
        if !parent.isFixed, try hierarchy.storedNode(parent) == nil { throw fail(.unknownNode(parent)) }
        let moved = node ?? NodeID(OperationID(replica: replica, counter: nextCounter))
        var before: TreeNodeRecord?
        if let node {
            guard !node.isFixed else { throw fail(.fixedNode(node)) }
            guard let stored = try hierarchy.storedNode(node) else { throw fail(.unknownNode(node)) }
            guard !(try hierarchy.storedIsAncestor(node, of: parent)) else { throw fail(.cycle(node: node, parent: parent)) }
            before = stored
        }
        let position: PositionKey
        switch placement {
        case .index(let index):
            let siblings = try hierarchy.storedPlacementSiblings(under: parent, leaving: node, at: index)
            do {
                position = try ReplicatedTree.localPosition(
                    at: index, amongCount: siblings.count, replica: replica, lastPlacement: lastPlacement, random: &random
                ) { place in
                    ReplicatedTree.LocalSibling(position: siblings[place].position, lastMove: siblings[place].lastMove)
                }
            } catch {
                throw fail(error)
            }
        case .position(let key):
            guard key.bytes.count <= PositionKey.maximumLength else { throw fail(.positionKeyTooLong(key.bytes.count)) }
            position = key
        }
        let operation = TreeOperation(
            id: OperationID(replica: replica, counter: nextCounter), lamport: clock + 1,
            node: moved, parent: parent, position: position, metadata: before?.metadata ?? [])
        note(operation, before: before, creating: node == nil)
        if case .index = placement { lastPlacement = operation.timestamp }
        return operation
    }

    /// Adds a move made: the moved node's state, its parents' lists, the log, the clocks.
    private func note(_ operation: TreeOperation, before: TreeNodeRecord?, creating: Bool) {
        clock = operation.lamport
        nextCounter += 1
        let after = TreeNodeRecord(
            parent: operation.parent, position: operation.position, metadata: operation.metadata,
            lastMove: operation.timestamp, lastMoveIsCreation: creating)
        // Each list taken out while it changes, so that it is changed in place, not copied.
        if let before, var list = childLists.removeValue(forKey: before.parent) {
            list.removeAll { $0.child == operation.node }
            childLists[before.parent] = list
        }
        if var list = childLists.removeValue(forKey: operation.parent) {
            let entry = StoredChild(child: operation.node, position: after.position, lastMove: after.lastMove)
            list.insert(entry, at: Self.insertionIndex(of: entry, in: list, under: operation.parent))
            childLists[operation.parent] = list
        }
        if let place = nodePlace[operation.node] {
            nodes[place].after = after
        } else {
            nodePlace[operation.node] = nodes.count
            nodes.append(TreeChangeSet.NodeChange(node: operation.node, before: before, after: after))
        }
        if let before { touchedParents.insert(before.parent) }
        touchedParents.insert(operation.parent)
        log.append(TreeLogRecord(operation: operation, applied: true, old: before))
    }
}
