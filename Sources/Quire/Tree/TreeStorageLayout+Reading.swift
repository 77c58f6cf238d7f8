import LMDB
import QuireCore

/// Reading the hierarchy straight from its LMDB databases, one node or one folder at a
/// time: how a read snapshot answers, and how the writer answers before (or without)
/// reading the whole tree into memory.
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

    /// Whether `node` is in the trash's subtree: a walk up its stored ancestors.
    func isDeleted<T: ReadableTransaction & ~Copyable>(_ node: NodeID, in tx: borrowing T) throws -> Bool {
        var current = try nodeRecord(node, in: tx)?.parent
        // A stored tree has no cycles; the bound only stops a damaged one.
        for _ in 0..<(1 << 20) {
            guard let parent = current else { return false }
            if parent == .deletedRoot { return true }
            current = try nodeRecord(parent, in: tx)?.parent
        }
        throw StoreError.corrupt(database: nodes.name, problem: "the ancestors of \(node) form a cycle")
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

    /// The children of `node` in sibling order, with their position keys.
    func childEntries<T: ReadableTransaction & ~Copyable>(
        of node: NodeID, in tx: borrowing T
    ) throws -> [(child: NodeID, position: PositionKey)] {
        let children = children
        var result: [(child: NodeID, position: PositionKey)] = []
        try tx.scan(children, range: .prefix(Self.childrenPrefix(node))) { key, _ in
            do {
                let entry = try Self.decodeChildKey(key)
                result.append((entry.child, entry.position))
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

    /// Where a deleted node was before the move that put it in the trash, as
    /// `ReplicatedTree.placeBeforeDeletion(of:)` answers from memory; `nil` when it is not
    /// in the trash directly, was created there, or the log no longer holds the way back.
    func placeBeforeDeletion<T: ReadableTransaction & ~Copyable>(
        of node: NodeID, in tx: borrowing T
    ) throws -> (parent: NodeID, index: Int, position: PositionKey)? {
        guard var state = try nodeRecord(node, in: tx), state.parent == .deletedRoot, !state.lastMoveIsCreation else { return nil }
        // Back through the moves that kept it in the trash; each step goes to an earlier move.
        while state.parent == .deletedRoot {
            guard let entry = try logEntry(at: state.lastMove, in: tx), entry.applied, entry.operation.node == node,
                let old = entry.old, old.lastMove < state.lastMove
            else {
                return nil  // truncated away, or created in the trash
            }
            state = old
        }
        // A move now sorts after every sibling with an equal key.
        let index = try childEntries(of: state.parent, in: tx).count { $0.position <= state.position }
        return (state.parent, index, state.position)
    }
}
