extension ReplicatedTree {
    /// Creates a node under `parent`: a move of a new ID, named after this operation.
    ///
    /// ```swift
    /// let chapter = try tree.create(under: drafts, metadata: Array("Chapter 1".utf8))
    /// send(chapter)              // the operation, for the other replicas
    /// tree.parent(of: chapter.node) == drafts
    /// ```
    ///
    /// - Parameters:
    ///   - parent: The new node's parent; must be in the tree.
    ///   - index: Its place among the parent's children, `0...childCount`; `nil` for last.
    ///   - metadata: Application data for the node.
    /// - Returns: The operation, to send to the other replicas.
    /// - Throws: ``TreeError`` when the parent is unknown or the index out of range.
    /// - Complexity: O(*k* + log *n*) for *k* siblings; never undoes anything.
    @discardableResult
    public mutating func create(
        under parent: NodeID, at index: Int? = nil, metadata: [UInt8] = []
    ) throws(TreeError) -> TreeOperation {
        let node = NodeID(OperationID(replica: replica, counter: nextCounter))
        return try localMove(node, to: parent, at: index, metadata: metadata, creating: true)
    }

    /// Moves `node` under `parent` at sibling `index` (a move, a reorder, or both).
    ///
    /// - Parameters:
    ///   - node: The node to move; must be in the tree and not fixed.
    ///   - parent: The new parent; must be in the tree and not inside `node`'s subtree.
    ///   - index: The place among the new siblings (not counting `node` itself),
    ///     `0...count`; `nil` for last.
    ///   - metadata: New metadata, or `nil` to keep the current one.
    /// - Returns: The operation, to send to the other replicas.
    /// - Throws: ``TreeError/cycle(node:parent:)`` when `parent` is inside `node`'s
    ///   subtree; ``TreeError/unknownNode(_:)``, ``TreeError/fixedNode(_:)``,
    ///   ``TreeError/indexOutOfRange(_:count:)``.
    /// - Complexity: O(*k* + *d*) for *k* siblings and depth *d* of `parent`.
    @discardableResult
    public mutating func move(
        _ node: NodeID, to parent: NodeID, at index: Int? = nil, metadata: [UInt8]? = nil
    ) throws(TreeError) -> TreeOperation {
        try localMove(node, to: parent, at: index, metadata: metadata, creating: false)
    }

    /// Replaces `node`'s metadata (a rename), keeping its parent and position.
    ///
    /// Like every tree operation this is a whole move: if another replica concurrently
    /// moves the node, the later of the two decides both place and metadata.
    ///
    /// - Throws: ``TreeError/unknownNode(_:)`` or ``TreeError/fixedNode(_:)``.
    @discardableResult
    public mutating func rename(_ node: NodeID, metadata: [UInt8]) throws(TreeError) -> TreeOperation {
        let index = try existingMovable(node)
        let state = nodes[Int(index)]
        return try appendLocal(node: index, parent: state.parent, position: state.position, metadata: metadata)
    }

    /// Deletes `node` with its subtree: moves it, last, under ``NodeID/deletedRoot``.
    /// Nothing is destroyed; ``restore(_:to:at:)`` brings it back.
    ///
    /// - Throws: ``TreeError/unknownNode(_:)`` or ``TreeError/fixedNode(_:)``.
    @discardableResult
    public mutating func delete(_ node: NodeID) throws(TreeError) -> TreeOperation {
        try move(node, to: .deletedRoot)
    }

    /// Restores a deleted `node` (or moves any node) under `parent`.
    ///
    /// - Throws: As ``move(_:to:at:metadata:)``.
    @discardableResult
    public mutating func restore(_ node: NodeID, to parent: NodeID, at index: Int? = nil) throws(TreeError) -> TreeOperation {
        try move(node, to: parent, at: index)
    }

    // MARK: Internals

    private func existingMovable(_ node: NodeID) throws(TreeError) -> Int32 {
        guard let index = indexOf[node], contains(index) else { throw .unknownNode(node) }
        guard index > Self.deletedRootIndex else { throw .fixedNode(node) }
        return index
    }

    private mutating func localMove(
        _ node: NodeID, to parent: NodeID, at index: Int?, metadata: [UInt8]?, creating: Bool
    ) throws(TreeError) -> TreeOperation {
        guard let parentIndex = indexOf[parent], contains(parentIndex) else { throw .unknownNode(parent) }
        var nodeIndex: Int32 = -1
        if !creating {
            nodeIndex = try existingMovable(node)
            guard !isAncestor(nodeIndex, of: parentIndex) else { throw .cycle(node: node, parent: parent) }
        }
        // The new siblings, not counting the node itself.
        let siblings = children[Int(parentIndex)]
        let selfPlace = nodeIndex >= 0 && nodes[Int(nodeIndex)].parent == parentIndex
            ? siblings.firstIndex(of: nodeIndex) : nil
        // A copy of the generator, not `&self.random`: the sibling closure reads `self`.
        // (Nor a copy of `nodes`: holding one would make the append below copy the table.)
        var random = self.random
        let position = try Self.localPosition(
            at: index, amongCount: siblings.count - (selfPlace == nil ? 0 : 1), replica: replica,
            lastPlacement: lastPlacement, random: &random
        ) { place in
            let state = nodes[Int(siblings[selfPlace.map { place >= $0 ? place + 1 : place } ?? place])]
            return LocalSibling(position: state.position, lastMove: state.lastMove)
        }
        self.random = random
        if creating { nodeIndex = intern(node) }
        let newMetadata = metadata ?? nodes[Int(nodeIndex)].metadata
        let operation = try appendLocal(node: nodeIndex, parent: parentIndex, position: position, metadata: newMetadata)
        lastPlacement = operation.timestamp
        return operation
    }

    /// A sibling as a local move's placement sees it.
    package struct LocalSibling {
        package var position: PositionKey
        package var lastMove: Timestamp

        package init(position: PositionKey, lastMove: Timestamp) {
            self.position = position
            self.lastMove = lastMove
        }
    }

    /// The position key a local move gives a node placed at `index` among `count`
    /// siblings (in sibling order, the node itself left out): between the sibling before
    /// and the first after it with a greater key, continuing a run where
    /// ``runsToContinue(lower:upper:replica:lastPlacement:)`` allows. One function for the
    /// tree in memory and for the store's moves made on LMDB, so both place alike.
    ///
    /// - Parameters:
    ///   - index: `0...count`; `nil` for last.
    ///   - sibling: The sibling at a place, `0..<count`.
    /// - Throws: ``TreeError/indexOutOfRange(_:count:)``, ``TreeError/positionKeyTooLong(_:)``.
    package static func localPosition(
        at index: Int?, amongCount count: Int, replica: ReplicaID, lastPlacement: Timestamp?, random: inout SplitMix64,
        sibling: (Int) throws(TreeError) -> LocalSibling
    ) throws(TreeError) -> PositionKey {
        let target = index ?? count
        guard target >= 0 && target <= count else { throw .indexOutOfRange(target, count: count) }
        let lowerState = target > 0 ? try sibling(target - 1) : nil
        let lower = lowerState?.position
        var upperState: LocalSibling? = nil
        var place = target
        while place < count {
            let state = try sibling(place)
            if lower.map({ PositionKey.compare($0.bytes, state.position.bytes) < 0 }) ?? true { upperState = state; break }
            place += 1
        }
        let position = PositionKey.between(
            lower, and: upperState?.position,
            continuing: runsToContinue(lower: lowerState, upper: upperState, replica: replica, lastPlacement: lastPlacement),
            using: &random)
        guard position.bytes.count <= PositionKey.maximumLength else {
            throw .positionKeyTooLong(position.bytes.count)
        }
        return position
    }

    /// Which neighbours' runs a new key may continue. At an open end (nothing after, or
    /// nothing before) any key this replica made; in between only the key it made last,
    /// so that typing forwards, inserting at one spot or dragging to one place continue
    /// a run, while a drop between two unrelated items splits their gap instead of
    /// spending it.
    private static func runsToContinue(
        lower: LocalSibling?, upper: LocalSibling?, replica: ReplicaID, lastPlacement: Timestamp?
    ) -> PositionKey.Neighbours {
        var result: PositionKey.Neighbours = []
        if let lower, lower.lastMove == lastPlacement || (upper == nil && lower.lastMove.replica == replica) {
            result.insert(.lower)
        }
        if let upper, upper.lastMove == lastPlacement || (lower == nil && upper.lastMove.replica == replica) {
            result.insert(.upper)
        }
        return result
    }

    /// Appends a local operation, which is newer than everything seen, so it is done
    /// directly: nothing is undone.
    mutating func appendLocal(
        node: Int32, parent: Int32, position: PositionKey, metadata: [UInt8]
    ) throws(TreeError) -> TreeOperation {
        clock += 1
        let operation = TreeOperation(
            id: OperationID(replica: replica, counter: nextCounter), lamport: clock,
            node: ids[Int(node)], parent: ids[Int(parent)], position: position, metadata: metadata)
        nextCounter += 1
        session?.noteChange(at: log.count)
        log.append(TreeLogEntry(
            operation: operation, node: node, parent: parent, old: .detached, applied: false,
            flags: session == nil ? [] : [.dirty, .inserted]))
        perform(log.count - 1)
        settleChildren()
        return operation
    }
}
