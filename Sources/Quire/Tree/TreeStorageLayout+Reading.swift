import LMDB
import QuireCore

/// A child as the children index lists it: in sibling order, with what orders it.
struct StoredChild: Equatable {
    var child: NodeID
    var position: PositionKey
    var lastMove: Timestamp
}

/// The siblings a local move's placement looks at (see `ReplicatedTree.localPosition`):
/// `count` siblings, of which `entries` are those from `first` on, at most ``window``.
struct PlacementSiblings {
    /// How many siblings from `index − 1` on are decoded: the placement stops at the first
    /// after `index` whose key is greater than the one before it, which is the first
    /// unless keys are equal (concurrent moves to one spot).
    static let window = 16
    var count: Int
    var first: Int
    var entries: [StoredChild]

    init(count: Int, first: Int, entries: [StoredChild]) {
        self.count = count
        self.first = first
        self.entries = entries
    }

    /// The window into a whole list of children (`node` left out, without copying the
    /// list); all from `index − 1` on when the placement needs more than a window.
    init(among all: [StoredChild], leaving node: NodeID?, at index: Int?) {
        let selfPlace = node.flatMap { node in all.firstIndex { $0.child == node } }
        let count = all.count - (selfPlace == nil ? 0 : 1)
        let first = max(0, (index ?? count) - 1)
        func window(_ length: Int) -> [StoredChild] {
            let end = min(count, first + length)
            guard first < end else { return [] }
            return (first..<end).map { place in all[selfPlace.map { place >= $0 ? place + 1 : place } ?? place] }
        }
        self.init(count: count, first: first, entries: window(Self.window))
        if !suffices(for: index) { entries = window(count) }
    }

    /// The sibling at `place` (in `first ..< first + entries.count`).
    subscript(place: Int) -> StoredChild { entries[place - first] }

    /// Whether the placement at `index` finds what it needs in ``entries``: every place it
    /// may read, up to the first sibling after `index` whose key is greater than the one
    /// before `index`, or the end.
    func suffices(for index: Int?) -> Bool {
        let target = index ?? count
        guard target <= count else { return true }  // out of range: refused without reading
        guard target > 0 else { return entries.count >= min(1, count) || count == 0 }
        let lowerPlace = target - 1 - first
        guard lowerPlace >= 0, lowerPlace < entries.count else { return false }
        let lower = entries[lowerPlace].position
        var place = target - first
        while place < entries.count {
            if lower < entries[place].position { return true }
            place += 1
        }
        return first + entries.count == count
    }
}

/// Reading the hierarchy straight from its LMDB databases, one node or one folder at a
/// time: how a read snapshot answers, and how the writer answers and changes the
/// hierarchy without reading the whole tree into memory.
///
/// Every function reads in the transaction it is given and throws
/// ``StoreError/corrupt(database:problem:)`` for a damaged entry.
extension TreeStorageLayout {
    /// The stored record of `node`; `nil` for a fixed node or one not in the tree.
    func nodeRecord<T: ReadableTransaction & ~Copyable>(_ node: NodeID, in tx: borrowing T) throws -> TreeNodeRecord? {
        guard !node.isFixed else { return nil }
        guard let bytes = try tx.value(forKey: Self.nodeKey(node), in: nodes) else { return nil }
        var reader = ByteReader(bytes)
        do { return try Self.decodeNode(node, from: &reader) } catch {
            throw StoreError.corrupt(database: nodes.name, problem: "\(error)")
        }
    }

    /// The first `limit` children of `node` (all for `nil`) in sibling order: one prefix
    /// scan of the children index, decoding only each key's child.
    func children<T: ReadableTransaction & ~Copyable>(of node: NodeID, limit: Int?, in tx: borrowing T) throws -> [NodeID] {
        let limit = limit.map { max(0, $0) } ?? .max
        guard limit > 0 else { return [] }
        let children = children
        var result: [NodeID] = []
        try tx.scan(children, range: .prefix(Self.childrenPrefix(node))) { key, _ in
            do {
                result.append(try Self.child(fromChildKey: key))
            } catch {
                throw StoreError.corrupt(database: children.name, problem: "\(error)")
            }
            return result.count < limit ? .continue : .stop
        }
        return result
    }

    /// The children of `node` in sibling order, with their position keys and last moves.
    func childEntries<T: ReadableTransaction & ~Copyable>(of node: NodeID, in tx: borrowing T) throws -> [StoredChild] {
        let children = children
        var result: [StoredChild] = []
        try tx.scan(children, range: .prefix(Self.childrenPrefix(node))) { key, _ in
            do {
                let entry = try Self.decodeChildKey(key)
                result.append(StoredChild(child: entry.child, position: entry.position, lastMove: entry.lastMove))
            } catch {
                throw StoreError.corrupt(database: children.name, problem: "\(error)")
            }
            return .continue
        }
        return result
    }

    /// The siblings a local move to `index` among `parent`'s children looks at
    /// (``PlacementSiblings``), decoding only those: the last child for the end (`nil`, a
    /// reverse seek), else the children from `index − 1` on, counting the rest without
    /// decoding them. The entry whose key is `nodeKey` (the moved node, if a child already)
    /// is left out.
    func placementSiblings<T: ReadableTransaction & ~Copyable>(
        under parent: NodeID, nodeKey: Key?, at index: Int?, in tx: borrowing T
    ) throws -> PlacementSiblings {
        let children = children
        let ownKey = nodeKey?.bytes
        func decode(_ key: UnsafeRawBufferPointer) throws -> StoredChild {
            do {
                let entry = try Self.decodeChildKey(key)
                return StoredChild(child: entry.child, position: entry.position, lastMove: entry.lastMove)
            } catch {
                throw StoreError.corrupt(database: children.name, problem: "\(error)")
            }
        }
        guard let index else {
            var last: StoredChild?
            try tx.scan(children, range: .prefix(Self.childrenPrefix(parent)), reverse: true) { key, _ in
                if let ownKey, key.elementsEqual(ownKey) { return .continue }
                last = try decode(key)
                return .stop
            }
            return PlacementSiblings(count: last == nil ? 0 : 1, first: 0, entries: last.map { [$0] } ?? [])
        }
        let first = max(0, index - 1)
        var entries: [StoredChild] = []
        var count = 0
        try tx.scan(children, range: .prefix(Self.childrenPrefix(parent))) { key, _ in
            if let ownKey, key.elementsEqual(ownKey) { return .continue }
            if count >= first, entries.count < PlacementSiblings.window { entries.append(try decode(key)) }
            count += 1
            return .continue
        }
        return PlacementSiblings(count: count, first: first, entries: entries)
    }

    /// The log entry of the move made at `timestamp`; `nil` when the log does not hold it
    /// (truncated away, or a creation kept in its node's record).
    func logEntry<T: ReadableTransaction & ~Copyable>(at timestamp: Timestamp, in tx: borrowing T) throws -> TreeLogRecord? {
        guard let bytes = try tx.value(forKey: Self.logKey(timestamp), in: log) else { return nil }
        do { return try Self.decodeLogEntry(bytes) } catch {
            throw StoreError.corrupt(database: log.name, problem: "\(error)")
        }
    }

    /// The hierarchy's clocks, from its state record.
    func state<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws -> State {
        guard let bytes = try tx.value(forKey: Self.stateKey, in: meta) else {
            throw StoreError.corrupt(database: meta.name, problem: "the hierarchy's state record is missing")
        }
        do { return try Self.decodeState(bytes) } catch {
            throw StoreError.corrupt(database: meta.name, problem: error.description)
        }
    }
}

/// The hierarchy in its stored form, one node, one folder or one log entry at a time:
/// a read snapshot's LMDB transaction, or the writer's, with the moves of its open
/// session over it. What is worked out from those three reads is written once, here.
protocol StoredHierarchy {
    /// The record of `node`; `nil` for a fixed node or one not in the tree.
    func storedNode(_ node: NodeID) throws -> TreeNodeRecord?
    /// The first `limit` children of `node` (all for `nil`), in sibling order.
    func storedChildren(of node: NodeID, limit: Int?) throws -> [NodeID]
    /// The children of `node` in sibling order, with what orders them.
    func storedChildEntries(of node: NodeID) throws -> [StoredChild]
    /// The log entry of the move made at `timestamp`, if the log holds it.
    func storedLogEntry(at timestamp: Timestamp) throws -> TreeLogRecord?
    /// The siblings a local move of `node` (`nil`: a new node) to `index` under `parent`
    /// looks at, `node` left out; by default from ``storedChildEntries(of:)``.
    func storedPlacementSiblings(under parent: NodeID, leaving node: NodeID?, at index: Int?) throws -> PlacementSiblings
    /// Names the database a damaged ancestor chain is reported in.
    var nodesDatabaseName: String { get }
}

extension StoredHierarchy {
    func storedPlacementSiblings(under parent: NodeID, leaving node: NodeID?, at index: Int?) throws -> PlacementSiblings {
        PlacementSiblings(among: try storedChildEntries(of: parent), leaving: node, at: index)
    }

    /// Whether `node` is in the trash's subtree: a walk up its stored ancestors.
    func storedIsDeleted(_ node: NodeID) throws -> Bool {
        var current = try storedNode(node)?.parent
        // A stored tree has no cycles; the bound only stops a damaged one.
        for _ in 0..<(1 << 20) {
            guard let parent = current else { return false }
            if parent == .deletedRoot { return true }
            current = try storedNode(parent)?.parent
        }
        throw StoreError.corrupt(database: nodesDatabaseName, problem: "the ancestors of \(node) form a cycle")
    }

    /// Whether `ancestor` is `node` or one of its ancestors.
    func storedIsAncestor(_ ancestor: NodeID, of node: NodeID) throws -> Bool {
        var current: NodeID? = node
        for _ in 0..<(1 << 20) {
            guard let visited = current else { return false }
            if visited == ancestor { return true }
            current = try storedNode(visited)?.parent
        }
        throw StoreError.corrupt(database: nodesDatabaseName, problem: "the ancestors of \(node) form a cycle")
    }

    /// Where a deleted node was before the move that put it in the trash, as
    /// `ReplicatedTree.placeBeforeDeletion(of:)` answers from memory; `nil` when it is not
    /// in the trash directly, was created there, or the log no longer holds the way back.
    func storedPlaceBeforeDeletion(of node: NodeID) throws -> (parent: NodeID, index: Int, position: PositionKey)? {
        guard var state = try storedNode(node), state.parent == .deletedRoot, !state.lastMoveIsCreation else { return nil }
        // Back through the moves that kept it in the trash; each step goes to an earlier move.
        while state.parent == .deletedRoot {
            guard let entry = try storedLogEntry(at: state.lastMove), entry.applied, entry.operation.node == node,
                let old = entry.old, old.lastMove < state.lastMove
            else {
                return nil  // truncated away, or created in the trash
            }
            state = old
        }
        // A move now sorts after every sibling with an equal key.
        let index = try storedChildEntries(of: state.parent).count { $0.position <= state.position }
        return (state.parent, index, state.position)
    }
}
