extension ReplicatedTree {
    /// Where a node in the trash was before it was deleted: its parent then, its position
    /// key then, and the index among that parent's current children at which that key
    /// falls (where ``move(_:to:position:)`` with the key would put it).
    ///
    /// Read from the move log: the entry of the move that put `node` under
    /// ``NodeID/deletedRoot`` keeps the node's state just before it. When that state was in
    /// the trash too (deleted twice concurrently, renamed in the trash), the entry before
    /// it is followed, until a state outside the trash.
    ///
    /// ```swift
    /// let deletion = try tree.delete(chapter)
    /// if let place = tree.placeBeforeDeletion(of: chapter) {   // (parent: drafts, index: 2, …)
    ///     try tree.move(chapter, to: place.parent, position: place.position)
    /// }
    /// ```
    ///
    /// - Parameter node: A node directly under the deleted-root.
    /// - Returns: `nil` when `node` is not directly under the deleted-root (live, inside a
    ///   deleted subtree, unknown), when it was created in the trash, or when the log
    ///   entries needed were truncated.
    /// - Complexity: O(*m* log *n* + *k*) for *m* moves inside the trash, *n* log entries
    ///   and *k* children of the old parent.
    public func placeBeforeDeletion(of node: NodeID) -> (parent: NodeID, index: Int, position: PositionKey)? {
        guard let index = indexOf[node], nodes[Int(index)].parent == Self.deletedRootIndex else { return nil }
        var state = nodes[Int(index)]
        var steps = log.count
        while state.parent == Self.deletedRootIndex {
            guard steps > 0 else { return nil }
            steps -= 1
            let at = logIndex(atOrAfter: state.lastMove)
            guard at < log.count, log[at].timestamp == state.lastMove, log[at].applied, log[at].node == index else {
                return nil  // truncated away
            }
            state = log[at].old
        }
        guard state.parent >= 0 else { return nil }  // created in the trash
        // A move now sorts after every sibling with an equal key.
        var probe = state
        probe.lastMove = Timestamp(lamport: .max, replica: ReplicaID(.max))
        return (ids[Int(state.parent)], insertionIndex(of: probe, among: children[Int(state.parent)]), state.position)
    }

    /// Moves `node` under `parent` with the position key `position`, keeping its metadata:
    /// to put a node back exactly where it was among siblings that kept their keys (see
    /// ``placeBeforeDeletion(of:)``). Siblings with an equal key sort by last move, so it
    /// goes after them.
    ///
    /// - Parameters:
    ///   - node: The node to move; must be in the tree and not fixed.
    ///   - parent: The new parent; must be in the tree and not inside `node`'s subtree.
    ///   - position: The position key among the new siblings.
    /// - Returns: The operation, to send to the other replicas.
    /// - Throws: As ``move(_:to:at:metadata:)``; ``TreeError/positionKeyTooLong(_:)`` for a
    ///   key over ``PositionKey/maximumLength``.
    @discardableResult
    public mutating func move(_ node: NodeID, to parent: NodeID, position: PositionKey) throws(TreeError) -> TreeOperation {
        guard let parentIndex = indexOf[parent], contains(parentIndex) else { throw .unknownNode(parent) }
        guard let nodeIndex = indexOf[node], contains(nodeIndex) else { throw .unknownNode(node) }
        guard nodeIndex > Self.deletedRootIndex else { throw .fixedNode(node) }
        guard !isAncestor(nodeIndex, of: parentIndex) else { throw .cycle(node: node, parent: parent) }
        guard position.bytes.count <= PositionKey.maximumLength else { throw .positionKeyTooLong(position.bytes.count) }
        return try appendLocal(node: nodeIndex, parent: parentIndex, position: position, metadata: nodes[Int(nodeIndex)].metadata)
    }
}
