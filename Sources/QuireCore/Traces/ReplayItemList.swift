/// Every item a trace replay has integrated, in document (CRDT) order, each with its
/// *prepare state*: whether it exists, is visible or is deleted in the version the replay
/// currently looks at.
///
/// Items are numbered densely in the order they were created; the list holds those
/// numbers in chunks of at most ``maximumChunk``. Two Fenwick trees over the chunks in
/// document order count their items and their prepare-visible items, so finding the
/// `p`-th visible item or the document index of an item is O(log *c*) for *c* chunks plus
/// a walk through one chunk; a split (every ~128 inserts into one chunk) rebuilds the
/// trees in O(*c*).
///
/// Internal to ``EditingTrace/replay(progress:)``; no I/O.
struct ReplayItemList {
    /// A place in the list: chunk `order` (a position in document order) and the item at
    /// `offset` inside it; `order == chunkOrder.count` is the end.
    struct Location {
        var order: Int
        var offset: Int
    }

    /// The prepare state of an item not in the current version.
    static let notInserted: Int32 = -1
    /// The prepare state of a visible item; `k > 0` means deleted `k` times.
    static let visible: Int32 = 0

    /// The most items a chunk holds before it is split.
    static let maximumChunk = 256

    /// Chunk id → its items, in document order.
    private var chunks: [[Int32]] = [[]]
    /// Chunk id → the number of its items that are visible in the prepare state.
    private var chunkVisible: [Int] = [0]
    /// Chunk ids in document order.
    private var chunkOrder: [Int] = [0]
    /// Chunk id → its position in ``chunkOrder``.
    private var orderOfChunk: [Int] = [0]
    /// Item → the chunk id holding it.
    private var chunkOfItem: [Int32] = []
    /// Item → its prepare state.
    private(set) var state: [Int32] = []
    /// The number of items visible in the prepare state.
    private(set) var visibleCount = 0
    /// By position in ``chunkOrder``: the chunks' visible items and all their items.
    private var visibleSums = FenwickTree(count: 1)
    private var itemSums = FenwickTree(count: 1)

    /// The number of items created.
    var itemCount: Int { state.count }

    /// The list's first place.
    var start: Location { normalized(Location(order: 0, offset: 0)) }

    /// The item at `location`, or `nil` at the end.
    func item(at location: Location) -> Int32? {
        guard location.order < chunkOrder.count else { return nil }
        let chunk = chunks[chunkOrder[location.order]]
        return location.offset < chunk.count ? chunk[location.offset] : nil
    }

    /// The place after `location`, skipping empty chunks.
    func advanced(_ location: Location) -> Location {
        normalized(Location(order: location.order, offset: location.offset + 1))
    }

    private func normalized(_ location: Location) -> Location {
        var result = location
        while result.order < chunkOrder.count, result.offset >= chunks[chunkOrder[result.order]].count {
            result.offset -= chunks[chunkOrder[result.order]].count
            result.order += 1
        }
        if result.order >= chunkOrder.count { result = Location(order: chunkOrder.count, offset: 0) }
        return result
    }

    /// The place and document index (all items counted) of the item visible at
    /// `position` in the prepare state; `position` must be below ``visibleCount``.
    func findVisible(_ position: Int) -> (location: Location, index: Int) {
        precondition(position < visibleCount, "visible position \(position) beyond the \(visibleCount) visible items")
        let (order, before) = visibleSums.lastPrefix(atMost: position)
        var remaining = position - before
        let index = itemSums.prefixSum(order)
        for (offset, item) in chunks[chunkOrder[order]].enumerated() where state[Int(item)] == Self.visible {
            if remaining == 0 { return (Location(order: order, offset: offset), index + offset) }
            remaining -= 1
        }
        preconditionFailure("the visible counts of chunk \(order) are out of date")
    }

    /// The document index of `item` (all items counted).
    func index(of item: Int32) -> Int {
        let id = Int(chunkOfItem[Int(item)])
        let order = orderOfChunk[id]
        // Search from the end: the items looked up are mostly recent ones.
        let chunk = chunks[id]
        var offset = chunk.count - 1
        while chunk[offset] != item { offset -= 1 }
        return itemSums.prefixSum(order) + offset
    }

    /// Creates a new item in state `state` (not yet placed in the list); returns its number.
    mutating func makeItem(state: Int32) -> Int32 {
        self.state.append(state)
        chunkOfItem.append(-1)
        return Int32(self.state.count - 1)
    }

    /// Places `items` (made by ``makeItem(state:)``, not yet placed) before the item at
    /// `location`, in order.
    mutating func insert(_ items: [Int32], at location: Location) {
        var order = location.order
        var offset = location.offset
        if order == chunkOrder.count {
            order = chunkOrder.count - 1
            offset = chunks[chunkOrder[order]].count
        }
        let id = chunkOrder[order]
        chunks[id].insert(contentsOf: items, at: offset)
        var visible = 0
        for item in items {
            chunkOfItem[Int(item)] = Int32(id)
            if state[Int(item)] == Self.visible { visible += 1 }
        }
        chunkVisible[id] += visible
        visibleCount += visible
        if chunks[id].count > Self.maximumChunk {
            split(order)
        } else {
            itemSums.add(items.count, at: order)
            visibleSums.add(visible, at: order)
        }
    }

    /// Splits the chunk at `order` into chunks of half the maximum.
    private mutating func split(_ order: Int) {
        let id = chunkOrder[order]
        let all = chunks[id]
        let piece = Self.maximumChunk / 2
        var pieces: [[Int32]] = []
        var start = 0
        while start < all.count {
            pieces.append(Array(all[start..<min(start + piece, all.count)]))
            start += piece
        }
        chunks[id] = pieces[0]
        chunkVisible[id] = pieces[0].reduce(0) { $0 + (state[Int($1)] == Self.visible ? 1 : 0) }
        var newIDs: [Int] = []
        for items in pieces.dropFirst() {
            let newID = chunks.count
            chunks.append(items)
            chunkVisible.append(items.reduce(0) { $0 + (state[Int($1)] == Self.visible ? 1 : 0) })
            orderOfChunk.append(0)
            for item in items { chunkOfItem[Int(item)] = Int32(newID) }
            newIDs.append(newID)
        }
        chunkOrder.insert(contentsOf: newIDs, at: order + 1)
        for position in (order + 1)..<chunkOrder.count { orderOfChunk[chunkOrder[position]] = position }
        itemSums = FenwickTree(chunkOrder.map { chunks[$0].count })
        visibleSums = FenwickTree(chunkOrder.map { chunkVisible[$0] })
    }

    /// Sets the prepare state of a placed item, keeping the visible counts.
    mutating func setState(_ item: Int32, _ newState: Int32) {
        let old = state[Int(item)]
        state[Int(item)] = newState
        let change = (newState == Self.visible ? 1 : 0) - (old == Self.visible ? 1 : 0)
        if change != 0 {
            let id = Int(chunkOfItem[Int(item)])
            chunkVisible[id] += change
            visibleCount += change
            visibleSums.add(change, at: orderOfChunk[id])
        }
    }

    /// Every placed item in document order.
    func forEachItem(_ body: (Int32) -> Void) {
        for id in chunkOrder {
            for item in chunks[id] { body(item) }
        }
    }
}
