extension ReplicatedTree {
    /// Whether child `a` sorts before child `b`: by position key, then last move.
    @inline(__always)
    static func childPrecedes(_ a: TreeNodeState, _ b: TreeNodeState) -> Bool {
        let order = PositionKey.compare(a.position.bytes, b.position.bytes)
        return order != 0 ? order < 0 : a.lastMove < b.lastMove
    }

    /// Records that `node`'s state is about to change, keeping its state from before the
    /// current operation (for the ordered children lists) and from before the change
    /// session (for persistence).
    @inline(__always)
    mutating func touch(_ node: Int32) {
        let slot = Int(node)
        if operationMark[slot] != operationEpoch {
            operationMark[slot] = operationEpoch
            operationTouched.append((node, nodes[slot]))
        }
        if session != nil { session?.touch(node, before: nodes[slot]) }
    }

    /// Brings the ordered children lists up to date with the parent pointers of every
    /// node touched since the last call. Undo and redo only move parent pointers; this
    /// runs once per operation or batch, for the nodes whose final state differs.
    mutating func settleChildren() {
        guard !operationTouched.isEmpty else { return }
        // Removals first, by identity: until every moved node is out, a list may hold
        // nodes whose current state no longer matches their place in it.
        for (node, before) in operationTouched {
            let after = nodes[Int(node)]
            guard before.parent != after.parent || before.lastMove != after.lastMove else { continue }
            if before.parent >= 0 {
                let parent = Int(before.parent)
                if let place = children[parent].lastIndex(of: node) { children[parent].remove(at: place) }
                attachedCount -= 1
            }
        }
        for (node, before) in operationTouched {
            let after = nodes[Int(node)]
            guard before.parent != after.parent || before.lastMove != after.lastMove else { continue }
            if after.parent >= 0 {
                let parent = Int(after.parent)
                let place = insertionIndex(of: after, among: children[parent])
                children[parent].insert(node, at: place)
                attachedCount += 1
            }
        }
        operationTouched.removeAll(keepingCapacity: true)
        operationEpoch &+= 1
        if operationEpoch == 0 {
            for index in operationMark.indices { operationMark[index] = 0 }
            operationEpoch = 1
        }
    }

    /// Where a child with `state` goes in the ordered `siblings`: binary search.
    func insertionIndex(of state: TreeNodeState, among siblings: [Int32]) -> Int {
        var low = 0, high = siblings.count
        while low < high {
            let middle = (low + high) / 2
            if Self.childPrecedes(nodes[Int(siblings[middle])], state) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
