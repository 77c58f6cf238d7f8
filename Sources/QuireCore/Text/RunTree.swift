/// A position in the item sequence: the item at `offset` of run `runIndex` of leaf
/// `leaf`, or the end of the document when `runIndex` equals the last leaf's run count.
struct ItemCursor {
    var leaf: Int32
    var runIndex: Int
    var offset: Int
}

/// A B-tree of ``TextRun``s in document order with subtree counts (items, scalars, UTF-16,
/// UTF-8), plus an index from operation ID to the leaf holding the item.
///
/// Nodes live in flat arrays and refer to each other by index (an arena): no objects, so
/// walking and editing the tree costs no reference counting. Leaf `k` owns the run slots
/// `k × leafCapacity ..< (k + 1) × leafCapacity`; branch `k` owns child slots likewise.
/// Finding a visible position, the document index of an item, and inserting or splitting
/// a run are O(log n) in the number of runs.
struct RunTree {
    static let leafCapacity = 64
    static let branchCapacity = 32

    // Leaves.
    private var slots: [TextRun] = []
    private var leafSize: [Int32] = []
    private var leafParent: [Int32] = []
    private var leafCounts: [TextCounts] = []
    // Branches.
    private var children: [Int32] = []
    private var branchSize: [Int32] = []
    private var branchParent: [Int32] = []
    private var branchCounts: [TextCounts] = []
    private var branchHoldsLeaves: [Bool] = []
    // The root: a leaf while the document has at most one leaf's worth of runs.
    private var root: Int32 = 0
    private var rootIsLeaf = true

    /// Replica → dense agent number.
    private(set) var agents: [ReplicaID: Int32] = [:]
    /// Agent number → replica.
    private(set) var replicas: [ReplicaID] = []
    /// Agent → the UTF-8 of every character it inserted, in counter order.
    private(set) var content: [[UInt8]] = []
    /// Agent → counter → leaf (−1 where the counter is not an insert in this tree; the
    /// table may reach past the agent's last counter, grown geometrically).
    private var leafOfCounter: [[Int32]] = []
    /// The run the last insert or deletion left its items in. The next operation of a
    /// typing or backspacing history refers to an item of that run or of the one before
    /// it, so ``cursor(of:)`` looks at those two before it scans the leaf. Only a hint:
    /// a split or a merge may have moved the run, and every use checks what it finds.
    private var recentRun = (leaf: Int32(-1), runIndex: 0)

    static let emptyRun = TextRun(
        agent: -1, isDeleted: true, counter: 0, length: 0, utf16Count: 0, utf8Count: 0, byteStart: 0,
        originLeft: .none, rightParent: .none)

    /// The most items one run holds: runs are never merged past it, so every run the
    /// tree holds fits the state and operation encodings
    /// (``TextOperationCoding/maximumRunLength``; smaller in tests).
    var maximumRunLength = TextOperationCoding.maximumRunLength

    init() { _ = makeLeaf() }

    var counts: TextCounts { rootIsLeaf ? leafCounts[Int(root)] : branchCounts[Int(root)] }

    // MARK: Agents and content

    /// The agent number of `replica`, if it has one.
    ///
    /// Few replicas edit one text: up to eight, a scan of `replicas` beats hashing the
    /// ID, which profiles of an import showed in a fifth of the time integration takes.
    @inline(__always)
    func agentNumber(of replica: ReplicaID) -> Int32? {
        guard replicas.count <= 8 else { return agents[replica] }
        for (agent, known) in replicas.enumerated() where known == replica { return Int32(agent) }
        return nil
    }

    /// The agent number of `replica`, assigned on first use.
    mutating func agent(for replica: ReplicaID) -> Int32 {
        if let known = agentNumber(of: replica) { return known }
        let agent = Int32(replicas.count)
        agents[replica] = agent
        replicas.append(replica)
        content.append([])
        leafOfCounter.append([])
        return agent
    }

    /// The reference for an operation ID, or `nil` for a replica never seen.
    func ref(_ id: OperationID) -> ItemRef? {
        agentNumber(of: id.replica).map { ItemRef(agent: $0, counter: id.counter) }
    }

    /// The operation ID of a reference (which must not be `.none`).
    func id(_ ref: ItemRef) -> OperationID {
        OperationID(replica: replicas[Int(ref.agent)], counter: ref.counter)
    }

    /// Makes room, in one allocation each, for `runs` more runs and for `agent`'s
    /// counters up to `counterEnd` and `contentBytes` more bytes of its characters: a
    /// large batch (a history imported whole) grows its tables once instead of by
    /// doubling, which copied each and faulted fresh pages in a tenth of an import.
    mutating func reserveCapacity(runs: Int, agent: Int32, counterEnd: Int, contentBytes: Int) {
        Self.grow(&slots, toHold: slots.count + (runs / Self.leafCapacity + 1) * Self.leafCapacity * 2)
        Self.grow(&leafOfCounter[Int(agent)], toHold: counterEnd)
        Self.grow(&content[Int(agent)], toHold: content[Int(agent)].count + contentBytes)
    }

    /// Reserves room for `count` elements, at least doubling: batches applied one after
    /// another must not copy the table each time.
    private static func grow<Element>(_ array: inout [Element], toHold count: Int) {
        guard count > array.capacity else { return }
        array.reserveCapacity(max(count, array.capacity * 2))
    }

    /// Appends inserted characters to `agent`'s content; returns where they start.
    mutating func appendContent(_ utf8: some Collection<UInt8>, for agent: Int32) -> Int {
        let start = content[Int(agent)].count
        content[Int(agent)].append(contentsOf: utf8)
        return start
    }

    /// The UTF-8 of `run`.
    func bytes(of run: TextRun) -> ArraySlice<UInt8> {
        content[Int(run.agent)][run.byteStart..<run.byteStart + run.utf8Count]
    }

    /// The UTF-8 offset, within `run`, of its scalar at `offset`.
    func byteOffset(in run: TextRun, ofScalar offset: Int) -> Int {
        if run.isASCII { return offset }
        return content[Int(run.agent)].withUnsafeBufferPointer { bytes in
            var byte = 0
            for _ in 0..<offset { byte += UTF8Scan.sequenceLength(leading: bytes[run.byteStart + byte]) }
            return byte
        }
    }

    /// The scalar offset, within `run`, of a `unit` offset into its text; `nil` when the
    /// offset falls inside a character.
    func scalarOffset(in run: TextRun, of unitOffset: Int, unit: TextUnit) -> Int? {
        if unit == .unicodeScalars || run.isASCII { return unitOffset }
        return content[Int(run.agent)].withUnsafeBufferPointer { bytes -> Int? in
            var units = 0
            var scalars = 0
            var byte = run.byteStart
            while units < unitOffset {
                let width = UTF8Scan.sequenceLength(leading: bytes[byte])
                units += unit == .utf8 ? width : (width == 4 ? 2 : 1)
                byte += width
                scalars += 1
            }
            return units == unitOffset ? scalars : nil
        }
    }

    /// The size in `unit` of the first `scalars` characters of `run`.
    func unitCount(in run: TextRun, ofFirst scalars: Int, unit: TextUnit) -> Int {
        switch unit {
        case .unicodeScalars: return scalars
        case .utf8: return byteOffset(in: run, ofScalar: scalars)
        case .utf16:
            if run.isASCII { return scalars }
            let bytes = content[Int(run.agent)][run.byteStart..<run.byteStart + byteOffset(in: run, ofScalar: scalars)]
            return UTF8Scan.utf16Count(of: bytes)
        }
    }

    /// Splits off and returns the items of `run` from `offset` on; `run` keeps the rest.
    func split(_ run: inout TextRun, at offset: Int) -> TextRun {
        let byte = byteOffset(in: run, ofScalar: offset)
        let rightUTF16 = run.isASCII
            ? run.length - offset
            : UTF8Scan.utf16Count(of: content[Int(run.agent)][run.byteStart + byte..<run.byteStart + run.utf8Count])
        let right = TextRun(
            agent: run.agent, isDeleted: run.isDeleted, counter: run.counter &+ UInt64(offset),
            length: run.length - offset, utf16Count: rightUTF16, utf8Count: run.utf8Count - byte,
            byteStart: run.byteStart + byte, originLeft: ItemRef(agent: run.agent, counter: run.counter &+ UInt64(offset - 1)),
            rightParent: run.rightParent)
        run.length = offset
        run.utf16Count -= rightUTF16
        run.utf8Count = byte
        return right
    }

    // MARK: Nodes

    /// A leaf's worth of empty slots, appended with one copy for each new leaf.
    private static let emptyLeaf = [TextRun](repeating: emptyRun, count: leafCapacity)

    private mutating func makeLeaf() -> Int32 {
        let leaf = Int32(leafSize.count)
        slots.append(contentsOf: Self.emptyLeaf)
        leafSize.append(0)
        leafParent.append(-1)
        leafCounts.append(TextCounts())
        return leaf
    }

    private mutating func makeBranch(holdsLeaves: Bool) -> Int32 {
        let branch = Int32(branchSize.count)
        children.append(contentsOf: repeatElement(-1, count: Self.branchCapacity))
        branchSize.append(0)
        branchParent.append(-1)
        branchCounts.append(TextCounts())
        branchHoldsLeaves.append(holdsLeaves)
        return branch
    }

    @inline(__always) private func slot(_ leaf: Int32, _ index: Int) -> Int { Int(leaf) * Self.leafCapacity + index }
    @inline(__always) private func childSlot(_ branch: Int32, _ index: Int) -> Int { Int(branch) * Self.branchCapacity + index }

    @inline(__always) private func childCounts(_ branch: Int32, _ child: Int32) -> TextCounts {
        branchHoldsLeaves[Int(branch)] ? leafCounts[Int(child)] : branchCounts[Int(child)]
    }

    /// The number of runs in `leaf`.
    @inline(__always) func runCount(_ leaf: Int32) -> Int { Int(leafSize[Int(leaf)]) }

    // MARK: Finding positions

    /// The cursor at the document's first item (or its end, when empty).
    var start: ItemCursor {
        var node = root
        var isLeaf = rootIsLeaf
        while !isLeaf {
            isLeaf = branchHoldsLeaves[Int(node)]
            node = children[childSlot(node, 0)]
        }
        return ItemCursor(leaf: node, runIndex: 0, offset: 0)
    }

    /// The visible item at visible position `position` in `unit`, as a cursor at the start
    /// of its run and the offset of `position` inside that run in `unit`. `position` must
    /// be less than the visible count.
    func findVisible(_ position: Int, in unit: TextUnit) -> (cursor: ItemCursor, unitRemainder: Int) {
        var remaining = position
        var node = root
        var isLeaf = rootIsLeaf
        while !isLeaf {
            let holdsLeaves = branchHoldsLeaves[Int(node)]
            let count = Int(branchSize[Int(node)])
            var chosen = children[childSlot(node, count - 1)]
            for index in 0..<count {
                let child = children[childSlot(node, index)]
                let size = (holdsLeaves ? leafCounts[Int(child)] : branchCounts[Int(child)]).visible(unit)
                if remaining < size {
                    chosen = child
                    break
                }
                if index < count - 1 { remaining -= size }
            }
            node = chosen
            isLeaf = holdsLeaves
        }
        let base = slot(node, 0)
        for index in 0..<runCount(node) where !slots[base + index].isDeleted {
            let size = slots[base + index].counts.visible(unit)
            if remaining < size { return (ItemCursor(leaf: node, runIndex: index, offset: 0), remaining) }
            remaining -= size
        }
        return (ItemCursor(leaf: node, runIndex: runCount(node), offset: 0), remaining)
    }

    /// The cursor of the item `ref`, or `nil` when this tree has no such item.
    func cursor(of ref: ItemRef) -> ItemCursor? {
        guard !ref.isNone, ref.counter < UInt64(leafOfCounter[Int(ref.agent)].count) else { return nil }
        let leaf = leafOfCounter[Int(ref.agent)][Int(ref.counter)]
        guard leaf >= 0 else { return nil }
        let base = slot(leaf, 0)
        if recentRun.leaf == leaf {
            let recent = recentRun.runIndex
            for index in max(recent - 1, 0)...recent where index < runCount(leaf) && slots[base + index].contains(ref) {
                return ItemCursor(leaf: leaf, runIndex: index, offset: Int(ref.counter - slots[base + index].counter))
            }
        }
        // Without bounds checks: the scan of a leaf is the hottest loop of an import.
        let count = runCount(leaf)
        return slots.withUnsafeBufferPointer { buffer -> ItemCursor? in
            let runs = UnsafeBufferPointer(rebasing: buffer[base..<(base + count)])
            for index in runs.indices where runs[index].contains(ref) {
                return ItemCursor(leaf: leaf, runIndex: index, offset: Int(ref.counter - runs[index].counter))
            }
            return nil
        }
    }

    /// Whether the item `ref` is in the tree.
    func contains(_ ref: ItemRef) -> Bool {
        guard !ref.isNone, ref.counter < UInt64(leafOfCounter[Int(ref.agent)].count) else { return false }
        return leafOfCounter[Int(ref.agent)][Int(ref.counter)] >= 0
    }

    /// Sums `measure` over the nodes before `cursor`'s leaf and the runs before its run.
    @inline(__always)
    private func sumBefore(_ cursor: ItemCursor, _ measure: (TextCounts) -> Int) -> Int {
        var total = 0
        let base = slot(cursor.leaf, 0)
        for index in 0..<cursor.runIndex { total += measure(slots[base + index].counts) }
        var node = cursor.leaf
        var parent = leafParent[Int(node)]
        while parent >= 0 {
            let base = childSlot(parent, 0)
            var index = 0
            while children[base + index] != node {
                total += measure(childCounts(parent, children[base + index]))
                index += 1
            }
            node = parent
            parent = branchParent[Int(node)]
        }
        return total
    }

    /// Whether none of the `count` counters from `first` on is an item in the tree.
    func containsNone(_ first: ItemRef, count: Int) -> Bool {
        guard !first.isNone else { return true }
        return leafOfCounter[Int(first.agent)].withUnsafeBufferPointer { table in
            let end = min(Int(first.counter) + count, table.count)
            return Int(first.counter) >= end || (Int(first.counter)..<end).allSatisfy { table[$0] < 0 }
        }
    }

    /// The document index (tombstones counted) of the item under `cursor`.
    func itemIndex(of cursor: ItemCursor) -> Int {
        sumBefore(cursor) { $0.items } + cursor.offset
    }

    /// The number of visible units before `cursor`.
    /// The document-order position of the item at `cursor`, deleted items included.
    func itemOffset(of cursor: ItemCursor) -> Int {
        sumBefore(cursor) { $0.items } + cursor.offset
    }

    func visibleOffset(of cursor: ItemCursor, in unit: TextUnit) -> Int {
        var offset = sumBefore(cursor) { $0.visible(unit) }
        if let run = run(at: cursor), !run.isDeleted {
            offset += unitCount(in: run, ofFirst: cursor.offset, unit: unit)
        }
        return offset
    }

    /// The cursor `items` items after `cursor`, normalised onto a run.
    func advanced(_ cursor: ItemCursor, by items: Int = 1) -> ItemCursor {
        var result = cursor
        result.offset += items
        return normalized(result)
    }

    /// Moves a cursor whose offset ran past its run onto the next run (or leaf).
    func normalized(_ cursor: ItemCursor) -> ItemCursor {
        var result = cursor
        while true {
            let count = runCount(result.leaf)
            while result.runIndex < count, result.offset >= slots[slot(result.leaf, result.runIndex)].length {
                result.offset -= slots[slot(result.leaf, result.runIndex)].length
                result.runIndex += 1
            }
            guard result.runIndex == count, let next = nextLeaf(after: result.leaf) else { return result }
            result = ItemCursor(leaf: next, runIndex: 0, offset: result.offset)
        }
    }

    /// The cursor at the start of the run after the one under `cursor`.
    func nextRun(after cursor: ItemCursor) -> ItemCursor {
        if cursor.runIndex + 1 < runCount(cursor.leaf) {
            return ItemCursor(leaf: cursor.leaf, runIndex: cursor.runIndex + 1, offset: 0)
        }
        if let next = nextLeaf(after: cursor.leaf) { return ItemCursor(leaf: next, runIndex: 0, offset: 0) }
        return ItemCursor(leaf: cursor.leaf, runIndex: runCount(cursor.leaf), offset: 0)
    }

    /// The leaf after `leaf` in document order (skipping empty leaves).
    func nextLeaf(after leaf: Int32) -> Int32? {
        var node = leaf
        var parent = leafParent[Int(leaf)]
        while parent >= 0 {
            let base = childSlot(parent, 0)
            var index = 0
            while children[base + index] != node { index += 1 }
            if index + 1 < Int(branchSize[Int(parent)]) {
                var next = children[base + index + 1]
                var holdsLeaves = branchHoldsLeaves[Int(parent)]
                while !holdsLeaves {
                    holdsLeaves = branchHoldsLeaves[Int(next)]
                    next = children[childSlot(next, 0)]
                }
                return next
            }
            node = parent
            parent = branchParent[Int(node)]
        }
        return nil
    }

    /// The run under a cursor that is not at the end.
    @inline(__always)
    func run(at cursor: ItemCursor) -> TextRun? {
        cursor.runIndex < runCount(cursor.leaf) ? slots[slot(cursor.leaf, cursor.runIndex)] : nil
    }

    // MARK: Changing

    /// Inserts `run` before the item under `cursor` (splitting its run when the cursor is
    /// inside one), merging it into the preceding run when it continues it.
    mutating func insert(_ run: TextRun, at cursor: ItemCursor) {
        var cursor = makeRoom(for: 2, at: cursor)
        let leaf = cursor.leaf
        if cursor.offset > 0 {
            splitRun(leaf, cursor.runIndex, at: cursor.offset)
            cursor.runIndex += 1
        }
        let previous = slot(leaf, cursor.runIndex - 1)
        if cursor.runIndex > 0, slots[previous].canAppend(run, limit: maximumRunLength) {
            slots[previous].append(run)
            recentRun = (leaf, cursor.runIndex - 1)
        } else {
            insertRun(run, in: leaf, at: cursor.runIndex)
            recentRun = (leaf, cursor.runIndex)
        }
        record(run, in: leaf)
        addCounts(run.counts, from: leaf)
    }

    /// Marks up to `count` items from `cursor` on, within its run, deleted. Returns the
    /// number of items the call covered and whether they were visible before.
    mutating func markDeleted(at cursor: ItemCursor, upTo count: Int) -> (covered: Int, wasVisible: Bool) {
        let available = slots[slot(cursor.leaf, cursor.runIndex)].length - cursor.offset
        let covered = min(count, available)
        guard !slots[slot(cursor.leaf, cursor.runIndex)].isDeleted else { return (covered, false) }
        let cursor = makeRoom(for: 2, at: cursor)
        let leaf = cursor.leaf
        var runIndex = cursor.runIndex
        if cursor.offset > 0 {
            splitRun(leaf, runIndex, at: cursor.offset)
            runIndex += 1
        }
        if covered < slots[slot(leaf, runIndex)].length { splitRun(leaf, runIndex, at: covered) }
        let before = slots[slot(leaf, runIndex)].counts
        slots[slot(leaf, runIndex)].isDeleted = true
        addCounts(slots[slot(leaf, runIndex)].counts - before, from: leaf)
        // Backspacing leaves adjacent tombstones of one typing run: keep them one run.
        if runIndex + 1 < runCount(leaf), slots[slot(leaf, runIndex)].canAppend(slots[slot(leaf, runIndex + 1)], limit: maximumRunLength) {
            slots[slot(leaf, runIndex)].append(slots[slot(leaf, runIndex + 1)])
            removeRun(in: leaf, at: runIndex + 1)
        }
        if runIndex > 0, slots[slot(leaf, runIndex - 1)].canAppend(slots[slot(leaf, runIndex)], limit: maximumRunLength) {
            slots[slot(leaf, runIndex - 1)].append(slots[slot(leaf, runIndex)])
            removeRun(in: leaf, at: runIndex)
            runIndex -= 1
        }
        recentRun = (leaf, runIndex)
        return (covered, true)
    }

    /// Splits run `index` of `leaf` at `offset`; the right part becomes run `index + 1`.
    /// The leaf must have room for one more run.
    private mutating func splitRun(_ leaf: Int32, _ index: Int, at offset: Int) {
        var left = slots[slot(leaf, index)]
        let right = split(&left, at: offset)
        slots[slot(leaf, index)] = left
        insertRun(right, in: leaf, at: index + 1)
    }

    private mutating func insertRun(_ run: TextRun, in leaf: Int32, at index: Int) {
        let base = slot(leaf, 0)
        let count = runCount(leaf)
        // Runs are plain values: the ones after `index` move up by one in a single copy.
        slots.withUnsafeMutableBufferPointer { slots in
            let start = slots.baseAddress.unsafelyUnwrapped + base + index
            (start + 1).update(from: start, count: count - index)
            start.pointee = run
        }
        leafSize[Int(leaf)] += 1
    }

    private mutating func removeRun(in leaf: Int32, at index: Int) {
        let base = slot(leaf, 0)
        let count = runCount(leaf)
        slots.withUnsafeMutableBufferPointer { slots in
            let start = slots.baseAddress.unsafelyUnwrapped + base + index
            start.update(from: start + 1, count: count - 1 - index)
        }
        leafSize[Int(leaf)] -= 1
    }

    private mutating func addCounts(_ delta: TextCounts, from leaf: Int32) {
        leafCounts[Int(leaf)] += delta
        var branch = leafParent[Int(leaf)]
        while branch >= 0 {
            branchCounts[Int(branch)] += delta
            branch = branchParent[Int(branch)]
        }
    }

    /// Points the ID index at `leaf` for every item of `run`.
    private mutating func record(_ run: TextRun, in leaf: Int32) {
        let agent = Int(run.agent)
        let end = Int(run.counter) + run.length
        if leafOfCounter[agent].count < end {
            // Grown geometrically, with −1 (not an item) beyond the items: growing by each
            // run's length cost more than the rest of an insert's bookkeeping.
            // Up to the room already reserved (``reserveCapacity(runs:agent:counterEnd:contentBytes:)``)
            // when that suffices, so the table is not copied again.
            let count = leafOfCounter[agent].count, capacity = leafOfCounter[agent].capacity
            let target = end <= capacity ? capacity : max(end, 2 * count)
            leafOfCounter[agent].append(contentsOf: repeatElement(-1, count: target - count))
        }
        leafOfCounter[agent].withUnsafeMutableBufferPointer { table in
            UnsafeMutableBufferPointer(rebasing: table[Int(run.counter)..<end]).update(repeating: leaf)
        }
    }

    /// Ensures the cursor's leaf can take `extra` more runs, splitting it if needed, and
    /// returns the cursor's position after the split.
    private mutating func makeRoom(for extra: Int, at cursor: ItemCursor) -> ItemCursor {
        guard runCount(cursor.leaf) + extra > Self.leafCapacity else { return cursor }
        let leaf = cursor.leaf
        let half = runCount(leaf) / 2
        let sibling = makeLeaf()
        let moved = runCount(leaf) - half
        var movedCounts = TextCounts()
        for index in 0..<moved {
            let run = slots[slot(leaf, half + index)]
            slots[slot(sibling, index)] = run
            movedCounts += run.counts
            record(run, in: sibling)
        }
        leafSize[Int(leaf)] = Int32(half)
        leafSize[Int(sibling)] = Int32(moved)
        // Attach first, with the counts still on `leaf`: parents may split while attaching,
        // and they must see consistent totals. Both leaves end under one parent, so moving
        // the counts across afterwards leaves every ancestor's total unchanged.
        attach(sibling, isLeaf: true, after: leaf)
        leafCounts[Int(leaf)] = leafCounts[Int(leaf)] - movedCounts
        leafCounts[Int(sibling)] = movedCounts
        return cursor.runIndex >= half
            ? ItemCursor(leaf: sibling, runIndex: cursor.runIndex - half, offset: cursor.offset)
            : cursor
    }

    /// Inserts the new node `node` (whose counts are still carried by `left`) right after
    /// `left` in `left`'s parent, splitting parents (or growing a new root) as needed.
    private mutating func attach(_ node: Int32, isLeaf: Bool, after left: Int32) {
        var parent = isLeaf ? leafParent[Int(left)] : branchParent[Int(left)]
        if parent < 0 {
            let newRoot = makeBranch(holdsLeaves: isLeaf)
            children[childSlot(newRoot, 0)] = left
            children[childSlot(newRoot, 1)] = node
            branchSize[Int(newRoot)] = 2
            branchCounts[Int(newRoot)] = childCounts(newRoot, left)
            setParent(left, isLeaf: isLeaf, to: newRoot)
            setParent(node, isLeaf: isLeaf, to: newRoot)
            root = newRoot
            rootIsLeaf = false
            return
        }
        if Int(branchSize[Int(parent)]) == Self.branchCapacity {
            splitBranch(parent)
            parent = isLeaf ? leafParent[Int(left)] : branchParent[Int(left)]
        }
        let base = childSlot(parent, 0)
        var index = Int(branchSize[Int(parent)])
        while children[base + index - 1] != left {
            children[base + index] = children[base + index - 1]
            index -= 1
        }
        children[base + index] = node
        branchSize[Int(parent)] += 1
        setParent(node, isLeaf: isLeaf, to: parent)
    }

    private mutating func setParent(_ node: Int32, isLeaf: Bool, to parent: Int32) {
        if isLeaf { leafParent[Int(node)] = parent } else { branchParent[Int(node)] = parent }
    }

    /// Moves the upper half of `branch`'s children to a new sibling branch.
    private mutating func splitBranch(_ branch: Int32) {
        let holdsLeaves = branchHoldsLeaves[Int(branch)]
        let sibling = makeBranch(holdsLeaves: holdsLeaves)
        let count = Int(branchSize[Int(branch)])
        let half = count / 2
        var movedCounts = TextCounts()
        for index in half..<count {
            let child = children[childSlot(branch, index)]
            children[childSlot(sibling, index - half)] = child
            setParent(child, isLeaf: holdsLeaves, to: sibling)
            movedCounts += childCounts(branch, child)
        }
        branchSize[Int(branch)] = Int32(half)
        branchSize[Int(sibling)] = Int32(count - half)
        attach(sibling, isLeaf: false, after: branch)  // counts moved after, as for leaves
        branchCounts[Int(branch)] = branchCounts[Int(branch)] - movedCounts
        branchCounts[Int(sibling)] = movedCounts
    }

    /// Checks the tree's invariants (counts, parent links, ID index); returns the problems.
    func invariantViolations() -> [String] {
        var problems: [String] = []
        func check(_ node: Int32, isLeaf: Bool, parent: Int32) -> TextCounts {
            if isLeaf {
                if leafParent[Int(node)] != parent { problems.append("leaf \(node) has parent \(leafParent[Int(node)]), expected \(parent)") }
                var total = TextCounts()
                for index in 0..<runCount(node) {
                    let run = slots[slot(node, index)]
                    total += run.counts
                    for offset in 0..<run.length where leafOfCounter[Int(run.agent)][Int(run.counter) + offset] != node {
                        problems.append("item \(run.agent):\(Int(run.counter) + offset) indexed in the wrong leaf")
                        break
                    }
                }
                if total != leafCounts[Int(node)] { problems.append("leaf \(node) counts \(leafCounts[Int(node)]) but holds \(total)") }
                return total
            }
            if branchParent[Int(node)] != parent { problems.append("branch \(node) has wrong parent") }
            var total = TextCounts()
            for index in 0..<Int(branchSize[Int(node)]) {
                total += check(children[childSlot(node, index)], isLeaf: branchHoldsLeaves[Int(node)], parent: node)
            }
            if total != branchCounts[Int(node)] { problems.append("branch \(node) counts \(branchCounts[Int(node)]) but holds \(total)") }
            return total
        }
        _ = check(root, isLeaf: rootIsLeaf, parent: -1)
        return problems
    }

    /// The number of levels (1 for a lone leaf).
    var depth: Int {
        var levels = 1
        var node = root
        var isLeaf = rootIsLeaf
        while !isLeaf {
            levels += 1
            isLeaf = branchHoldsLeaves[Int(node)]
            node = children[childSlot(node, 0)]
        }
        return levels
    }

    /// Breaks the root's counts, so tests can see the invariant checker fail.
    mutating func corruptCountsForTesting() {
        if rootIsLeaf { leafCounts[Int(root)].scalars += 1 } else { branchCounts[Int(root)].scalars += 1 }
    }

    // MARK: Bulk

    /// The number of runs. O(leaves).
    var runCount: Int { leafSize.reduce(0) { $0 + Int($1) } }

    /// Every run in document order.
    func forEachRun(_ body: (TextRun) throws -> Void) rethrows {
        var leaf: Int32? = start.leaf
        while let current = leaf {
            let base = slot(current, 0)
            for index in 0..<runCount(current) { try body(slots[base + index]) }
            leaf = nextLeaf(after: current)
        }
    }

    /// The visible text, its UTF-8 copied run by run into the string's own storage.
    func visibleString() -> String {
        let total = counts.utf8
        return String(unsafeUninitializedCapacity: total) { bytes in
            // One agent's buffer at a time, held in a local: no reference counting per run.
            var agent: Int32 = -1
            var buffer: [UInt8] = []
            var written = 0
            var leaf: Int32? = start.leaf
            while let current = leaf {
                let base = slot(current, 0)
                for index in 0..<runCount(current) {
                    let run = slots[base + index]
                    if run.isDeleted { continue }
                    if run.agent != agent {
                        agent = run.agent
                        buffer = content[Int(agent)]
                    }
                    let count = min(run.utf8Count, total - written)  // the leaf totals say they fit
                    buffer.withUnsafeBufferPointer { source in
                        let run = UnsafeBufferPointer(rebasing: source[run.byteStart..<run.byteStart + count])
                        _ = UnsafeMutableBufferPointer(rebasing: bytes[written...]).initialize(fromContentsOf: run)
                    }
                    written += count
                }
                leaf = nextLeaf(after: current)
            }
            return written
        }
    }

    /// The bytes the tree holds: node arrays, the ID index and the content buffers.
    var memoryFootprint: Int {
        var bytes = slots.capacity * MemoryLayout<TextRun>.stride
        bytes += leafSize.capacity * 4 + leafParent.capacity * 4 + leafCounts.capacity * MemoryLayout<TextCounts>.stride
        bytes += children.capacity * 4 + branchSize.capacity * 4 + branchParent.capacity * 4
        bytes += branchCounts.capacity * MemoryLayout<TextCounts>.stride + branchHoldsLeaves.capacity
        bytes += content.reduce(0) { $0 + $1.capacity + 32 }
        bytes += leafOfCounter.reduce(0) { $0 + $1.capacity * 4 + 32 }
        bytes += replicas.capacity * 8 + agents.capacity * 24
        return bytes
    }

    /// The runs per leaf when bulk loading: all slots but two, so loading writes little
    /// padding and the first edit in a leaf still fits without a split.
    static let bulkRunsPerLeaf = leafCapacity - 2

    /// A tree from `slots` laid out as leaves: `bulkRunsPerLeaf` runs then padding to
    /// `leafCapacity`, the last leaf possibly shorter and unpadded, with each leaf's totals
    /// and the ID index (agent → counter → leaf) already computed by the caller, which has
    /// checked that no two runs hold the same item.
    static func bulkLoaded(
        slots: [TextRun], runCount: Int, leafCounts: [TextCounts], index: [[Int32]], replicas: [ReplicaID],
        content: [[UInt8]]
    ) -> RunTree {
        var tree = RunTree()
        for replica in replicas { _ = tree.agent(for: replica) }
        tree.content = content
        tree.leafOfCounter = index
        guard runCount > 0 else { return tree }
        let perLeaf = bulkRunsPerLeaf
        let leafCount = (runCount + perLeaf - 1) / perLeaf
        tree.slots = slots
        let missing = leafCount * leafCapacity - tree.slots.count
        if missing > 0 { tree.slots.append(contentsOf: repeatElement(emptyRun, count: missing)) }
        tree.leafCounts = leafCounts
        tree.leafSize = (0..<leafCount).map { Int32(min(perLeaf, runCount - $0 * perLeaf)) }
        tree.leafParent = [Int32](repeating: -1, count: leafCount)
        var level = (0..<leafCount).map { Int32($0) }
        var levelIsLeaves = true
        let perBranch = branchCapacity * 3 / 4
        while level.count > 1 {
            var next: [Int32] = []
            var start = 0
            while start < level.count {
                let branch = tree.makeBranch(holdsLeaves: levelIsLeaves)
                let end = min(start + perBranch, level.count)
                for position in start..<end {
                    let child = level[position]
                    tree.children[tree.childSlot(branch, position - start)] = child
                    tree.setParent(child, isLeaf: levelIsLeaves, to: branch)
                    tree.branchCounts[Int(branch)] += tree.childCounts(branch, child)
                }
                tree.branchSize[Int(branch)] = Int32(end - start)
                next.append(branch)
                start = end
            }
            level = next
            levelIsLeaves = false
        }
        tree.root = level[0]
        tree.rootIsLeaf = levelIsLeaves
        return tree
    }
}
