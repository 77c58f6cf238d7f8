/// A node's stored state, by ID: what the persistence layer keeps in its node table.
package struct TreeNodeRecord: Hashable, Sendable {
    package var parent: NodeID
    package var position: PositionKey
    package var metadata: [UInt8]
    package var lastMove: Timestamp
    /// Whether the last move is the node's own creation (the operation whose ID is the
    /// node's), applied to a node not yet in the tree: then the record holds everything
    /// that log entry does, and the persistence layer need not store the entry apart.
    package var lastMoveIsCreation: Bool

    package init(parent: NodeID, position: PositionKey, metadata: [UInt8], lastMove: Timestamp, lastMoveIsCreation: Bool = false) {
        self.parent = parent
        self.position = position
        self.metadata = metadata
        self.lastMove = lastMove
        self.lastMoveIsCreation = lastMoveIsCreation
    }

    /// The log entry of the node's creation, when ``lastMoveIsCreation``.
    package func creationEntry(of node: NodeID) -> TreeLogRecord {
        TreeLogRecord(
            operation: TreeOperation(
                id: OperationID(replica: node.replica, counter: node.counter), lamport: lastMove.lamport,
                node: node, parent: parent, position: position, metadata: metadata),
            applied: true, old: nil)
    }
}

/// A log entry as stored: the operation, whether it is in effect, and the moved node's
/// state before it (`nil`: the node was not in the tree), which undoing it restores.
package struct TreeLogRecord: Hashable, Sendable {
    package var operation: TreeOperation
    package var applied: Bool
    package var old: TreeNodeRecord?

    package init(operation: TreeOperation, applied: Bool, old: TreeNodeRecord?) {
        self.operation = operation
        self.applied = applied
        self.old = old
    }
}

/// Everything a change session altered, for the persistence layer to write in one
/// transaction: nodes whose state differs from the session's start, log entries new or
/// changed, and the clocks.
package struct TreeChangeSet: Sendable {
    /// A node whose state changed; `nil` means not in the tree.
    package struct NodeChange: Sendable {
        package var node: NodeID
        package var before: TreeNodeRecord?
        package var after: TreeNodeRecord?

        package init(node: NodeID, before: TreeNodeRecord?, after: TreeNodeRecord?) {
            self.node = node
            self.before = before
            self.after = after
        }
    }

    package var nodes: [NodeChange] = []
    package var logEntries: [TreeLogRecord] = []
    package var clock: UInt64 = 0
    package var nextCounter: UInt64 = 0
    package var truncatedThrough: Timestamp?

    package init(
        nodes: [NodeChange] = [], logEntries: [TreeLogRecord] = [], clock: UInt64, nextCounter: UInt64,
        truncatedThrough: Timestamp?
    ) {
        self.nodes = nodes
        self.logEntries = logEntries
        self.clock = clock
        self.nextCounter = nextCounter
        self.truncatedThrough = truncatedThrough
    }
}

/// The bookkeeping of an open change session.
struct TreeChangeSession: Sendable {
    var mark: [Bool]
    var touched: [(node: Int32, before: TreeNodeState)] = []
    var lowestChange: Int
    let savedClock: UInt64
    let savedCounter: UInt64

    @inline(__always)
    mutating func touch(_ node: Int32, before: TreeNodeState) {
        if !mark[Int(node)] {
            mark[Int(node)] = true
            touched.append((node, before))
        }
    }

    @inline(__always)
    mutating func noteChange(at index: Int) {
        if index < lowestChange { lowestChange = index }
    }
}

extension ReplicatedTree {
    /// Starts recording changes, so that they can be listed (``pendingChanges()``) for a
    /// write transaction and then kept (``commitChanges()``) or rolled back
    /// (``revertChanges()``).
    package mutating func beginChanges() {
        session = TreeChangeSession(
            mark: Array(repeating: false, count: nodes.count), lowestChange: log.count,
            savedClock: clock, savedCounter: nextCounter)
    }

    /// What changed since ``beginChanges()``.
    ///
    /// - Complexity: O(*t* + *s*) for *t* touched nodes and *s* log entries at or after
    ///   the oldest change.
    package func pendingChanges() -> TreeChangeSet {
        var changes = TreeChangeSet(clock: clock, nextCounter: nextCounter, truncatedThrough: truncatedThrough)
        guard let session else { return changes }
        for (node, before) in session.touched {
            let after = nodes[Int(node)]
            guard before.parent != after.parent || before.lastMove != after.lastMove else { continue }
            changes.nodes.append(.init(node: ids[Int(node)], before: record(before, of: node), after: record(after, of: node)))
        }
        if session.lowestChange < log.count {
            for entry in log[session.lowestChange...] where entry.flags.contains(.dirty) {
                changes.logEntries.append(record(entry))
            }
        }
        return changes
    }

    /// Ends the session, keeping its changes.
    package mutating func commitChanges() {
        guard let session else { return }
        if session.lowestChange < log.count {
            for index in session.lowestChange..<log.count { log[index].flags = [] }
        }
        self.session = nil
    }

    /// Ends the session, rolling the tree back to its state at ``beginChanges()``: the
    /// entries it added are removed and the ones after them redone.
    ///
    /// - Complexity: O(*s* · *d*) for *s* log entries at or after the oldest change.
    package mutating func revertChanges() {
        guard let session else { return }
        self.session = nil
        let start = session.lowestChange
        var index = log.count
        while index > start {
            index -= 1
            undo(index)
        }
        if start < log.count {
            var kept: [TreeLogEntry] = []
            kept.reserveCapacity(log.count - start)
            for entry in log[start...] where !entry.flags.contains(.inserted) {
                var entry = entry
                entry.flags = []
                kept.append(entry)
            }
            log.replaceSubrange(start..., with: kept)
            for index in start..<log.count { perform(index) }
        }
        clock = session.savedClock
        nextCounter = session.savedCounter
        settleChildren()
    }

    /// A state as stored inside a log entry (its node is the entry's).
    func record(_ state: TreeNodeState) -> TreeNodeRecord? {
        guard state.parent >= 0 else { return nil }
        return TreeNodeRecord(
            parent: ids[Int(state.parent)], position: state.position, metadata: state.metadata,
            lastMove: state.lastMove)
    }

    /// The state of `node` as its node record stores it.
    func record(_ state: TreeNodeState, of node: Int32) -> TreeNodeRecord? {
        guard var record = record(state) else { return nil }
        record.lastMoveIsCreation = lastMoveIsCreation(of: node, state)
        return record
    }

    /// Whether `state`'s last move is the creation of `node`, applied with nothing
    /// before it, and still in the log.
    func lastMoveIsCreation(of node: Int32, _ state: TreeNodeState) -> Bool {
        let id = ids[Int(node)]
        guard state.lastMove.replica == id.replica else { return false }
        let index = logIndex(atOrAfter: state.lastMove)
        guard index < log.count, log[index].timestamp == state.lastMove else { return false }
        let entry = log[index]
        return entry.applied && entry.old.parent < 0 && entry.operation.node == id
            && entry.operation.id == OperationID(replica: id.replica, counter: id.counter)
    }

    func record(_ entry: TreeLogEntry) -> TreeLogRecord {
        TreeLogRecord(operation: entry.operation, applied: entry.applied, old: record(entry.old))
    }

    /// Every log entry as stored.
    package var logRecords: [TreeLogRecord] { log.map { record($0) } }

    /// Every node in the tree with its stored state.
    package var nodeRecords: [(node: NodeID, record: TreeNodeRecord)] {
        var result: [(NodeID, TreeNodeRecord)] = []
        for index in 2..<nodes.count {
            if let state = record(nodes[index], of: Int32(index)) { result.append((ids[index], state)) }
        }
        return result
    }

    /// Rebuilds a tree from stored state, without replaying the log.
    ///
    /// - Parameters:
    ///   - nodes: Every node in the tree with its state.
    ///   - log: The log entries, in timestamp order.
    /// - Complexity: O(*n* log *n* + *m*) for *n* nodes and *m* log entries.
    package init(
        replica: ReplicaID, clock: UInt64, nextCounter: UInt64, truncatedThrough: Timestamp?,
        nodes records: [(node: NodeID, record: TreeNodeRecord)], log entries: [TreeLogRecord],
        seed: UInt64? = nil
    ) throws(TreeError) {
        try self.init(replica: replica, seed: seed)
        self.clock = clock
        self.nextCounter = nextCounter
        self.truncatedThrough = truncatedThrough
        func state(_ record: TreeNodeRecord?) -> TreeNodeState {
            guard let record else { return .detached }
            return TreeNodeState(
                parent: intern(record.parent), position: record.position, metadata: record.metadata,
                lastMove: record.lastMove)
        }
        // Every stored node is interned here; reserving up front spares the dictionary's
        // rehashes while it grows (a tenth of opening a large store).
        let capacity = records.count + 2
        ids.reserveCapacity(capacity)
        indexOf.reserveCapacity(capacity)
        nodes.reserveCapacity(capacity)
        children.reserveCapacity(capacity)
        operationMark.reserveCapacity(capacity)
        for (node, record) in records {
            let index = intern(node)
            guard index > Self.deletedRootIndex else { continue }
            nodes[Int(index)] = state(record)
        }
        log.reserveCapacity(entries.count)
        for entry in entries {
            log.append(TreeLogEntry(
                operation: entry.operation, node: intern(entry.operation.node),
                parent: intern(entry.operation.parent), old: state(entry.old), applied: entry.applied, flags: []))
        }
        for index in 2..<nodes.count where nodes[index].parent >= 0 {
            children[Int(nodes[index].parent)].append(Int32(index))
            attachedCount += 1
        }
        let table = nodes
        for parent in children.indices where children[parent].count > 1 {
            children[parent].sort { Self.childPrecedes(table[Int($0)], table[Int($1)]) }
        }
    }
}
