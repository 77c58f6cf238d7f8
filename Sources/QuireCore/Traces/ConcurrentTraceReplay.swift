/// Replays a concurrent trace on one document that moves between versions, after
/// Eg-walker (Gentle & Kleppmann, EuroSys 2025).
///
/// It keeps a single list of every item integrated so far in document order
/// (``ReplayItemList``), each with a prepare state for the version the next transaction
/// edits. For each transaction, in trace order, it retreats the transactions of the
/// current version its parents lack (newest first: their inserts become not-yet-inserted,
/// their deletes are undone once) and advances those its parents add (oldest first), then
/// applies the patches at that version exactly as a replica at that version would:
///
/// - a delete at visible position `p` marks the `p`-th prepare-visible item deleted;
/// - an insert at `p` takes as left origin the visible item at `p − 1` (none at the
///   start) and as right parent the first item after it that the version knows
///   (tombstones count, not-yet-inserted items do not), and is placed in the full list
///   with the FugueMax (YjsMod) scan ``ReplicatedText`` uses.
///
/// Agent `k` edits as replica `k + 1` with counters in its edit order, so every operation
/// has the ID, origins and target it gets in a per-agent replay; the operations are
/// applied once, in trace order, to one ``ReplicatedText``, which is the result. Time and
/// memory grow with the history (plus the walks between versions), not with agents ×
/// document.
///
/// Internal to ``EditingTrace/replay(progress:)``; no I/O.
struct ConcurrentTraceReplay {
    private let trace: EditingTrace
    private var list = ReplayItemList()
    // Item → its fields (the list holds item numbers).
    private var agentOfItem: [Int32] = []
    private var counterOfItem: [UInt64] = []
    private var originLeft: [Int32] = []
    private var rightParent: [Int32] = []
    private var scalars: [Unicode.Scalar] = []
    /// Item → whether any transaction deleted it (the final state).
    private var finallyDeleted: [Bool] = []
    /// Transaction → the items it inserted (contiguous: items are numbered as made).
    private var insertedItems: [Range<Int32>] = []
    /// Transaction → the range of ``deletedTargets`` holding the items it deleted.
    private var deletedRanges: [Range<Int>] = []
    private var deletedTargets: [Int32] = []
    /// Agent → its next counter.
    private var nextCounter: [Int: UInt64] = [:]
    /// Agent → its latest transaction.
    private var latestTransaction: [Int: Int] = [:]
    /// Transaction → whether it is in the version the list's prepare state shows.
    private var inVersion: [Bool] = []
    private var graph = TransactionGraph(parents: [])

    init(trace: EditingTrace) {
        self.trace = trace
    }

    /// Replays every transaction and returns a replica holding the whole history.
    ///
    /// - Throws: ``TraceError`` naming the transaction when a parent is not an earlier
    ///   transaction, an agent's transaction does not descend from its previous one, or a
    ///   patch does not fit the version it edits.
    mutating func run(progress: ((Int, Int) -> Void)?, progressStride: Int) throws -> ReplicatedText {
        let result = ReplicatedText(replica: ReplicaID(0))
        let total = trace.transactions.count
        inVersion = [Bool](repeating: false, count: total)
        graph.parents.reserveCapacity(total)
        var frontier: [Int] = []
        for (index, transaction) in trace.transactions.enumerated() {
            for parent in transaction.parents where parent < 0 || parent >= index {
                throw TraceError.badParent(transaction: index, parent: parent)
            }
            graph.parents.append(transaction.parents)
            let (retreat, advance) = graph.difference(from: frontier, to: transaction.parents)
            for old in retreat { self.retreat(old) }
            for new in advance { self.advance(new) }
            if let previous = latestTransaction[transaction.agent], !inVersion[previous] {
                throw TraceError.inconsistentHistory(
                    transaction: index, expected: version(of: transaction.parents),
                    found: version(of: transaction.parents + [previous]))
            }
            let operations = try apply(transaction, index: index)
            inVersion[index] = true
            latestTransaction[transaction.agent] = index
            frontier = [index]
            if !operations.isEmpty { try result.apply(operations) }
            if let progress, index % progressStride == 0 { progress(index, total) }
        }
        progress?(total, total)
        return result
    }

    // MARK: Moving between versions

    private mutating func retreat(_ transaction: Int) {
        for position in deletedRanges[transaction].reversed() {
            let item = deletedTargets[position]
            list.setState(item, list.state[Int(item)] - 1)
        }
        for item in insertedItems[transaction] { list.setState(item, ReplayItemList.notInserted) }
        inVersion[transaction] = false
    }

    private mutating func advance(_ transaction: Int) {
        for item in insertedItems[transaction] { list.setState(item, ReplayItemList.visible) }
        for position in deletedRanges[transaction] {
            let item = deletedTargets[position]
            list.setState(item, list.state[Int(item)] + 1)
        }
        inVersion[transaction] = true
    }

    /// The version vector of the transactions `frontier` names and their ancestors (for
    /// error messages only: O(history)).
    private func version(of frontier: [Int]) -> VersionVector {
        var seen = Set<Int>()
        var stack = frontier
        var counters: [ReplicaID: UInt64] = [:]
        while let transaction = stack.popLast() {
            guard seen.insert(transaction).inserted, transaction < graph.parents.count else { continue }
            stack.append(contentsOf: graph.parents[transaction])
            let replica = EditingTrace.replica(ofAgent: trace.transactions[transaction].agent)
            counters[replica] = max(counters[replica] ?? 0, endCounter[transaction] ?? 0)
        }
        return VersionVector(counters)
    }

    /// Transaction → the agent's next counter after it.
    private var endCounter: [Int: UInt64] = [:]

    // MARK: Editing at the prepare version

    /// Applies the transaction's patches at the current prepare version; returns its
    /// operations as a replica making them would.
    private mutating func apply(_ transaction: EditingTrace.Transaction, index: Int) throws -> [TextOperation] {
        let agent = transaction.agent
        let replica = EditingTrace.replica(ofAgent: agent)
        var counter = nextCounter[agent] ?? 0
        let firstItem = Int32(list.itemCount)
        let firstTarget = deletedTargets.count
        var operations: [TextOperation] = []
        for patch in transaction.patches {
            guard patch.deleteCount >= 0, patch.position >= 0, patch.position + patch.deleteCount <= list.visibleCount else {
                throw TraceError.patchOutOfRange(transaction: index, patch: patch, length: list.visibleCount)
            }
            for _ in 0..<patch.deleteCount {
                let item = list.item(at: list.findVisible(patch.position).location)!
                list.setState(item, list.state[Int(item)] + 1)
                finallyDeleted[Int(item)] = true
                deletedTargets.append(item)
                let target = id(of: item)
                if case .delete(var last) = operations.last, last.target.replica == target.replica,
                    last.target.counter + UInt64(last.length) == target.counter, !last.isBackward
                {
                    last.length += 1
                    operations[operations.count - 1] = .delete(last)
                } else {
                    operations.append(.delete(TextDeletion(id: OperationID(replica: replica, counter: counter), target: target, length: 1)))
                }
                counter += 1
            }
            if !patch.text.isEmpty {
                operations.append(insert(patch.text, at: patch.position, agent: agent, counter: counter))
                counter += UInt64(patch.text.unicodeScalars.count)
            }
        }
        nextCounter[agent] = counter
        endCounter[index] = counter
        insertedItems.append(firstItem..<Int32(list.itemCount))
        deletedRanges.append(firstTarget..<deletedTargets.count)
        return operations
    }

    private func id(of item: Int32) -> OperationID {
        OperationID(replica: EditingTrace.replica(ofAgent: Int(agentOfItem[Int(item)])), counter: counterOfItem[Int(item)])
    }

    /// Inserts `text` at visible `position` of the prepare version as `agent`'s
    /// operations from `counter` on; returns the operation.
    private mutating func insert(_ text: String, at position: Int, agent: Int, counter: UInt64) -> TextOperation {
        let left: Int32
        let start: ReplayItemList.Location
        let leftIndex: Int
        if position == 0 {
            left = -1
            start = list.start
            leftIndex = 0
        } else {
            let (location, index) = list.findVisible(position - 1)
            left = list.item(at: location)!
            start = list.advanced(location)
            leftIndex = index + 1
        }
        // The right parent: the first item after the left origin this version knows.
        var right: Int32 = -1
        var probe = start
        while let item = list.item(at: probe) {
            if list.state[Int(item)] != ReplayItemList.notInserted {
                right = item
                break
            }
            probe = list.advanced(probe)
        }
        var items: [Int32] = []
        var previous = left
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let item = list.makeItem(state: ReplayItemList.visible)
            agentOfItem.append(Int32(agent))
            counterOfItem.append(counter + UInt64(offset))
            originLeft.append(previous)
            rightParent.append(right)
            scalars.append(scalar)
            finallyDeleted.append(false)
            items.append(item)
            previous = item
        }
        let place = integrationPoint(for: items[0], from: start, leftIndex: leftIndex)
        list.insert(items, at: place)
        return .insert(TextInsertion(
            id: OperationID(replica: EditingTrace.replica(ofAgent: agent), counter: counter),
            originLeft: left < 0 ? nil : id(of: left), rightParent: right < 0 ? nil : id(of: right), text: text))
    }

    /// The YjsMod scan of ``ReplicatedText``, over the full list: walks right from the
    /// item after the new item's left origin over concurrently inserted items and returns
    /// where the new item goes.
    private func integrationPoint(for new: Int32, from start: ReplayItemList.Location, leftIndex: Int) -> ReplayItemList.Location {
        var location = start
        var index = leftIndex
        var scanning = false
        var scanStart = location
        var rightIndex: Int?
        let newRight = rightParent[Int(new)]
        let newID = id(of: new)
        var previous = originLeft[Int(new)]  // the item before `start`
        while let item = list.item(at: location) {
            if item == newRight { break }
            let otherOrigin = originLeft[Int(item)]
            let otherLeftIndex: Int
            if otherOrigin < 0 {
                otherLeftIndex = 0
            } else if otherOrigin == previous {
                otherLeftIndex = index  // its left origin is the item just before it
            } else {
                otherLeftIndex = list.index(of: otherOrigin) + 1
            }
            if otherLeftIndex < leftIndex { break }
            if otherLeftIndex == leftIndex {
                if rightParent[Int(item)] == newRight {
                    // Siblings with equal origins: the lower (replica, counter) goes first.
                    if newID < id(of: item) { break }
                    scanning = false
                } else {
                    let mine = rightIndex ?? (newRight < 0 ? Int.max : list.index(of: newRight))
                    rightIndex = mine
                    let theirRight = rightParent[Int(item)]
                    let theirs = theirRight < 0 ? Int.max : list.index(of: theirRight)
                    if theirs < mine {
                        if !scanning {
                            scanning = true
                            scanStart = location
                        }
                    } else {
                        scanning = false
                    }
                }
            }
            previous = item
            index += 1
            location = list.advanced(location)
        }
        return scanning ? scanStart : location
    }

    /// The final text: every item no transaction deleted, in document order.
    var finalText: String {
        var text = String.UnicodeScalarView()
        list.forEachItem { item in
            if !finallyDeleted[Int(item)] { text.append(scalars[Int(item)]) }
        }
        return String(text)
    }
}
