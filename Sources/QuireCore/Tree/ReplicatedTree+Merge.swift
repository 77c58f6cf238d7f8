extension ReplicatedTree {
    /// Applies operations from other replicas (or re-delivered ones), in any order and
    /// with duplicates, as one batch.
    ///
    /// The batch is sorted; the log is undone once, down to the batch's oldest
    /// timestamp; then the new operations and the undone ones are done in timestamp
    /// order. Moves that would make a cycle, or move a fixed node, are skipped but kept
    /// in the log, and re-evaluated whenever an older operation arrives later.
    ///
    /// ```swift
    /// let report = tree.apply(operationsFromPeer)
    /// report.skipped   // timestamps of new moves that would have made a cycle
    /// ```
    ///
    /// - Parameter operations: The operations; already-known ones are counted as
    ///   duplicates and ignored.
    /// - Returns: What happened to the batch.
    /// - Complexity: O(*b* log *b* + *s* · *d*) for a batch of *b* operations, *s* log
    ///   entries at or after the oldest new timestamp, and tree depth *d*.
    @discardableResult
    public mutating func apply(_ operations: some Sequence<TreeOperation>) -> TreeMergeReport {
        var report = TreeMergeReport()
        var incoming: [TreeOperation] = []
        for operation in operations {
            if let truncatedThrough, operation.timestamp <= truncatedThrough {
                report.duplicates += 1
            } else {
                incoming.append(operation)
            }
        }
        incoming.sort { $0.timestamp < $1.timestamp }
        // Drop duplicates within the batch and of what the log holds.
        var fresh: [TreeLogEntry] = []
        fresh.reserveCapacity(incoming.count)
        for operation in incoming {
            let timestamp = operation.timestamp
            if let last = fresh.last, last.timestamp == timestamp { report.duplicates += 1; continue }
            let found = logIndex(atOrAfter: timestamp)
            if found < log.count && log[found].timestamp == timestamp { report.duplicates += 1; continue }
            fresh.append(TreeLogEntry(
                operation: operation, node: intern(operation.node), parent: intern(operation.parent),
                old: .detached, applied: false, flags: session == nil ? [] : [.dirty, .inserted]))
            if operation.lamport > clock { clock = operation.lamport }
        }
        guard let oldest = fresh.first?.timestamp else { return report }

        let start = logIndex(atOrAfter: oldest)
        session?.noteChange(at: start)
        // Undo, newest first.
        var index = log.count
        while index > start {
            index -= 1
            undo(index)
        }
        report.redone = log.count - start
        var previouslyApplied: [Bool] = []
        previouslyApplied.reserveCapacity(report.redone)
        for entry in log[start...] { previouslyApplied.append(entry.applied) }

        // Merge the new entries into the suffix, from the back, in place.
        let oldCount = log.count
        log.append(contentsOf: fresh)
        var write = log.count - 1
        var fromOld = oldCount - 1
        var fromNew = fresh.count - 1
        while fromNew >= 0 {
            if fromOld >= start && log[fromOld].timestamp > fresh[fromNew].timestamp {
                log.swapAt(write, fromOld)
                fromOld -= 1
            } else {
                log[write] = fresh[fromNew]
                fromNew -= 1
            }
            write -= 1
        }

        // Do and redo, oldest first.
        var oldPosition = 0
        var newPosition = 0
        for index in start..<log.count {
            let applied = perform(index)
            if newPosition < fresh.count && log[index].timestamp == fresh[newPosition].timestamp {
                newPosition += 1
                if applied { report.applied += 1 } else { report.skipped.append(log[index].timestamp) }
            } else {
                if previouslyApplied[oldPosition] != applied { report.flipped.append(log[index].timestamp) }
                oldPosition += 1
            }
        }
        settleChildren()
        return report
    }

    /// Undoes log entry `index`: the node gets back the state from before it.
    @inline(__always)
    mutating func undo(_ index: Int) {
        guard log[index].applied else { return }
        let node = log[index].node
        touch(node)
        nodes[Int(node)] = log[index].old
    }

    /// Does log entry `index` on the current state: records the node's state for undo,
    /// then moves it unless that is invalid or would make a cycle.
    ///
    /// - Returns: Whether the move took effect.
    @inline(__always)
    @discardableResult
    mutating func perform(_ index: Int) -> Bool {
        let node = log[index].node
        let parent = log[index].parent
        let current = nodes[Int(node)]
        let valid = node > Self.deletedRootIndex
            && log[index].operation.position.bytes.count <= PositionKey.maximumLength
            && !isAncestor(node, of: parent)
        if session != nil && (log[index].applied != valid || log[index].old.lastMove != current.lastMove
            || log[index].old.parent != current.parent) {
            log[index].flags.insert(.dirty)
        }
        log[index].applied = valid
        guard valid else {
            log[index].old = current
            return false
        }
        touch(node)
        log[index].old = current
        let operation = log[index].operation
        nodes[Int(node)] = TreeNodeState(
            parent: parent, position: operation.position, metadata: operation.metadata,
            lastMove: operation.timestamp)
        return true
    }
}
