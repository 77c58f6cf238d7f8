import LMDB
import QuireCore

/// A child as the children index lists it: in sibling order, with what orders it.
struct StoredChild: Equatable {
    var child: NodeID
    var position: PositionKey
    var lastMove: Timestamp
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
    /// Names the database a damaged ancestor chain is reported in.
    var nodesDatabaseName: String { get }
}

extension StoredHierarchy {
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
