/// A node of the run tree: a leaf holds runs in document order, an internal node holds
/// children; every node knows the counts of its subtree.
final class RunNode {
    unowned(unsafe) var parent: RunNode?
    var counts = TextCounts()
    var runs: [TextRun] = []
    var children: [RunNode] = []
    let isLeaf: Bool
    /// For leaves: the index in ``RunTree/leaves``, which the ID index stores.
    var leafID: Int32 = -1

    init(isLeaf: Bool) { self.isLeaf = isLeaf }

    /// The position of `child` among this node's children.
    @inline(__always)
    func index(of child: RunNode) -> Int {
        var index = 0
        while children[index] !== child { index += 1 }
        return index
    }
}

/// A position in the item sequence: the item at `offset` of `leaf.runs[runIndex]`, or the
/// end of the document when `runIndex == leaf.runs.count` in the last leaf.
struct ItemCursor {
    unowned(unsafe) var leaf: RunNode
    var runIndex: Int
    var offset: Int
}

/// A B-tree of ``TextRun``s in document order with subtree counts (items, scalars, UTF-16,
/// UTF-8), plus an index from operation ID to the leaf holding the item.
///
/// Finding a visible position, the document index of an item, and inserting or splitting
/// a run are O(log n) in the number of runs (leaves hold up to ``leafCapacity`` runs).
struct RunTree {
    static let leafCapacity = 48
    static let branchCapacity = 32

    private(set) var root: RunNode
    /// Every leaf ever made; the ID index refers to leaves by position here.
    private(set) var leaves: [RunNode]
    /// Replica → dense agent number.
    private(set) var agents: [ReplicaID: Int32] = [:]
    /// Agent number → replica.
    private(set) var replicas: [ReplicaID] = []
    /// Agent → the UTF-8 of every character it inserted, in counter order.
    private(set) var content: [[UInt8]] = []
    /// Agent → counter → leaf ID (−1 where the counter is not an insert in this tree).
    private var leafOfCounter: [[Int32]] = []

    init() {
        let leaf = RunNode(isLeaf: true)
        leaf.leafID = 0
        root = leaf
        leaves = [leaf]
    }

    var counts: TextCounts { root.counts }

    // MARK: Agents and content

    /// The agent number of `replica`, assigned on first use.
    mutating func agent(for replica: ReplicaID) -> Int32 {
        if let known = agents[replica] { return known }
        let agent = Int32(replicas.count)
        agents[replica] = agent
        replicas.append(replica)
        content.append([])
        leafOfCounter.append([])
        return agent
    }

    /// The reference for an operation ID, or `nil` for a replica never seen.
    func ref(_ id: OperationID) -> ItemRef? {
        agents[id.replica].map { ItemRef(agent: $0, counter: id.counter) }
    }

    /// The operation ID of a reference (which must not be `.none`).
    func id(_ ref: ItemRef) -> OperationID {
        OperationID(replica: replicas[Int(ref.agent)], counter: ref.counter)
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

    // MARK: Finding positions

    /// The cursor at the document's first item (or its end, when empty).
    var start: ItemCursor {
        var node = root
        while !node.isLeaf { node = node.children[0] }
        return ItemCursor(leaf: node, runIndex: 0, offset: 0)
    }

    /// The visible item at visible position `position` in `unit`, as a cursor and the
    /// offset of `position` inside that item's run in `unit` (0 when it starts the item).
    /// `position` must be less than the visible count.
    func findVisible(_ position: Int, in unit: TextUnit) -> (cursor: ItemCursor, unitRemainder: Int) {
        var remaining = position
        var node = root
        while !node.isLeaf {
            var chosen = node.children.count - 1
            for (index, child) in node.children.enumerated() {
                let size = child.counts.visible(unit)
                if remaining < size { chosen = index; break }
                remaining -= size
            }
            node = node.children[chosen]
        }
        for (index, run) in node.runs.enumerated() where !run.isDeleted {
            let size = run.counts.visible(unit)
            if remaining < size {
                return (ItemCursor(leaf: node, runIndex: index, offset: 0), remaining)
            }
            remaining -= size
        }
        // Unreachable for valid positions; land at the end of this leaf.
        return (ItemCursor(leaf: node, runIndex: node.runs.count, offset: 0), remaining)
    }

    /// The cursor of the item `ref`, or `nil` when this tree has no such item.
    func cursor(of ref: ItemRef) -> ItemCursor? {
        guard !ref.isNone, ref.counter < UInt64(leafOfCounter[Int(ref.agent)].count) else { return nil }
        let leafID = leafOfCounter[Int(ref.agent)][Int(ref.counter)]
        guard leafID >= 0 else { return nil }
        let leaf = leaves[Int(leafID)]
        return leaf.runs.withUnsafeBufferPointer { runs -> ItemCursor? in
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

    /// The document index (tombstones counted) of the item under `cursor`.
    func itemIndex(of cursor: ItemCursor) -> Int {
        var index = cursor.offset
        let runs = cursor.leaf.runs
        for runIndex in 0..<cursor.runIndex { index += runs[runIndex].length }
        var node = cursor.leaf
        while let parent = node.parent {
            for child in parent.children {
                if child === node { break }
                index += child.counts.items
            }
            node = parent
        }
        return index
    }

    /// The number of visible units before `cursor`.
    func visibleOffset(of cursor: ItemCursor, in unit: TextUnit) -> Int {
        var offset = 0
        let runs = cursor.leaf.runs
        for runIndex in 0..<cursor.runIndex { offset += runs[runIndex].counts.visible(unit) }
        if cursor.runIndex < runs.count, !runs[cursor.runIndex].isDeleted {
            offset += unitCount(in: runs[cursor.runIndex], ofFirst: cursor.offset, unit: unit)
        }
        var node = cursor.leaf
        while let parent = node.parent {
            for child in parent.children {
                if child === node { break }
                offset += child.counts.visible(unit)
            }
            node = parent
        }
        return offset
    }

    /// The cursor one item after `cursor`, normalised to a run start across run and leaf
    /// boundaries; `nil` at the end of the document.
    func advanced(_ cursor: ItemCursor, by items: Int = 1) -> ItemCursor {
        var result = cursor
        result.offset += items
        return normalized(result)
    }

    /// Moves a cursor whose offset ran past its run onto the next run (or leaf).
    func normalized(_ cursor: ItemCursor) -> ItemCursor {
        var result = cursor
        while result.runIndex < result.leaf.runs.count, result.offset >= result.leaf.runs[result.runIndex].length {
            result.offset -= result.leaf.runs[result.runIndex].length
            result.runIndex += 1
        }
        if result.runIndex == result.leaf.runs.count, let next = nextLeaf(after: result.leaf) {
            return normalized(ItemCursor(leaf: next, runIndex: 0, offset: result.offset))
        }
        return result
    }

    /// The cursor at the start of the run after the one under `cursor`.
    func nextRun(after cursor: ItemCursor) -> ItemCursor {
        if cursor.runIndex + 1 < cursor.leaf.runs.count {
            return ItemCursor(leaf: cursor.leaf, runIndex: cursor.runIndex + 1, offset: 0)
        }
        if let next = nextLeaf(after: cursor.leaf) { return ItemCursor(leaf: next, runIndex: 0, offset: 0) }
        return ItemCursor(leaf: cursor.leaf, runIndex: cursor.leaf.runs.count, offset: 0)
    }

    /// The leaf after `leaf` in document order.
    func nextLeaf(after leaf: RunNode) -> RunNode? {
        var node = leaf
        while let parent = node.parent {
            let index = parent.index(of: node)
            if index + 1 < parent.children.count {
                var next = parent.children[index + 1]
                while !next.isLeaf { next = next.children[0] }
                return next
            }
            node = parent
        }
        return nil
    }

    /// The run under a cursor that is not at the end.
    @inline(__always)
    func run(at cursor: ItemCursor) -> TextRun? {
        cursor.runIndex < cursor.leaf.runs.count ? cursor.leaf.runs[cursor.runIndex] : nil
    }

    // MARK: Changing

    /// Inserts `run` before the item under `cursor` (splitting its run when the cursor is
    /// inside one), merging it into the preceding run when it continues it.
    mutating func insert(_ run: TextRun, at cursor: ItemCursor) {
        let leaf = cursor.leaf
        var runIndex = cursor.runIndex
        if cursor.offset > 0 {
            let right = split(&leaf.runs[runIndex], at: cursor.offset)
            leaf.runs.insert(right, at: runIndex + 1)
            runIndex += 1
        }
        if runIndex > 0, leaf.runs[runIndex - 1].canAppend(run) {
            leaf.runs[runIndex - 1].append(run)
        } else {
            leaf.runs.insert(run, at: runIndex)
        }
        record(run, in: leaf)
        addCounts(run.counts, from: leaf)
        splitIfNeeded(leaf)
    }

    /// Marks up to `count` items from `cursor` on, within its run, deleted. Returns the
    /// number of items the call covered and whether they were visible before.
    mutating func markDeleted(at cursor: ItemCursor, upTo count: Int) -> (covered: Int, wasVisible: Bool) {
        let leaf = cursor.leaf
        var runIndex = cursor.runIndex
        let available = leaf.runs[runIndex].length - cursor.offset
        let covered = min(count, available)
        guard !leaf.runs[runIndex].isDeleted else { return (covered, false) }
        if cursor.offset > 0 {
            let right = split(&leaf.runs[runIndex], at: cursor.offset)
            leaf.runs.insert(right, at: runIndex + 1)
            runIndex += 1
        }
        if covered < leaf.runs[runIndex].length {
            let right = split(&leaf.runs[runIndex], at: covered)
            leaf.runs.insert(right, at: runIndex + 1)
        }
        let before = leaf.runs[runIndex].counts
        leaf.runs[runIndex].isDeleted = true
        addCounts(leaf.runs[runIndex].counts - before, from: leaf)
        // Backspacing leaves adjacent tombstones of one typing run: keep them one run.
        if runIndex + 1 < leaf.runs.count, leaf.runs[runIndex].canAppend(leaf.runs[runIndex + 1]) {
            let next = leaf.runs.remove(at: runIndex + 1)
            leaf.runs[runIndex].append(next)
        }
        if runIndex > 0, leaf.runs[runIndex - 1].canAppend(leaf.runs[runIndex]) {
            let current = leaf.runs.remove(at: runIndex)
            leaf.runs[runIndex - 1].append(current)
        }
        splitIfNeeded(leaf)
        return (covered, true)
    }

    private func addCounts(_ delta: TextCounts, from leaf: RunNode) {
        var node: RunNode? = leaf
        while let current = node {
            current.counts += delta
            node = current.parent
        }
    }

    /// Points the ID index at `leaf` for every item of `run`.
    private mutating func record(_ run: TextRun, in leaf: RunNode) {
        let agent = Int(run.agent)
        let end = Int(run.counter) + run.length
        if leafOfCounter[agent].count < end {
            leafOfCounter[agent].append(contentsOf: repeatElement(-1, count: end - leafOfCounter[agent].count))
        }
        let id = leaf.leafID
        leafOfCounter[agent].withUnsafeMutableBufferPointer { table in
            for counter in Int(run.counter)..<end { table[counter] = id }
        }
    }

    private mutating func splitIfNeeded(_ node: RunNode) {
        if node.isLeaf {
            guard node.runs.count > Self.leafCapacity else { return }
        } else {
            guard node.children.count > Self.branchCapacity else { return }
        }
        let sibling = RunNode(isLeaf: node.isLeaf)
        if node.isLeaf {
            let half = node.runs.count / 2
            sibling.runs = Array(node.runs[half...])
            node.runs.removeSubrange(half...)
            sibling.leafID = Int32(leaves.count)
            leaves.append(sibling)
            for run in sibling.runs { record(run, in: sibling) }
            sibling.counts = sibling.runs.reduce(TextCounts()) { $0 + $1.counts }
        } else {
            let half = node.children.count / 2
            sibling.children = Array(node.children[half...])
            node.children.removeSubrange(half...)
            for child in sibling.children { child.parent = sibling }
            sibling.counts = sibling.children.reduce(TextCounts()) { $0 + $1.counts }
        }
        node.counts = node.counts - sibling.counts
        if let parent = node.parent {
            sibling.parent = parent
            parent.children.insert(sibling, at: parent.index(of: node) + 1)
            splitIfNeeded(parent)
        } else {
            let newRoot = RunNode(isLeaf: false)
            newRoot.children = [node, sibling]
            newRoot.counts = node.counts + sibling.counts
            node.parent = newRoot
            sibling.parent = newRoot
            root = newRoot
        }
    }

    /// The bytes the tree holds: nodes, runs, the ID index and the content buffers.
    var memoryFootprint: Int {
        let objectHeader = 64  // node fields plus the allocation's own header
        var bytes = 0
        var stack = [root]
        while let node = stack.popLast() {
            bytes += objectHeader + 32 * 2
            bytes += node.runs.capacity * MemoryLayout<TextRun>.stride + node.children.capacity * 8
            stack.append(contentsOf: node.children)
        }
        bytes += content.reduce(0) { $0 + $1.capacity + 32 }
        bytes += leafOfCounter.reduce(0) { $0 + $1.capacity * 4 + 32 }
        bytes += leaves.capacity * 8 + replicas.capacity * 8 + agents.capacity * 24
        return bytes
    }

    // MARK: Bulk

    /// Every run in document order.
    func forEachRun(_ body: (TextRun) throws -> Void) rethrows {
        var leaf: RunNode? = start.leaf
        while let current = leaf {
            for run in current.runs { try body(run) }
            leaf = nextLeaf(after: current)
        }
    }

    /// A tree holding `runs` in order, built bottom-up without searching, for agents
    /// `replicas` whose inserted characters are `content`.
    static func bulkLoaded(_ runs: [TextRun], replicas: [ReplicaID], content: [[UInt8]]) -> RunTree {
        var tree = RunTree()
        for replica in replicas { _ = tree.agent(for: replica) }
        tree.content = content
        guard !runs.isEmpty else { return tree }
        let perLeaf = leafCapacity * 3 / 4
        var level: [RunNode] = []
        var leaves: [RunNode] = []
        var index = 0
        while index < runs.count {
            let leaf = RunNode(isLeaf: true)
            leaf.runs = Array(runs[index..<min(index + perLeaf, runs.count)])
            leaf.leafID = Int32(leaves.count)
            leaf.counts = leaf.runs.reduce(TextCounts()) { $0 + $1.counts }
            leaves.append(leaf)
            index += perLeaf
        }
        tree.leaves = leaves
        for leaf in leaves { for run in leaf.runs { tree.record(run, in: leaf) } }
        level = leaves
        let perBranch = branchCapacity * 3 / 4
        while level.count > 1 {
            var next: [RunNode] = []
            var start = 0
            while start < level.count {
                let node = RunNode(isLeaf: false)
                node.children = Array(level[start..<min(start + perBranch, level.count)])
                for child in node.children {
                    child.parent = node
                    node.counts += child.counts
                }
                next.append(node)
                start += perBranch
            }
            level = next
        }
        tree.root = level[0]
        return tree
    }
}
