import LMDB
import QuireCore
import Synchronization

/// A ``ReplicatedTree`` kept in named LMDB databases: every local change and every
/// remote batch is one write transaction, and opening the store reads the stored state
/// back without replaying the log.
///
/// ```swift
/// let environment = try Environment(path: storePath)
/// let tree = try PersistentTree(environment: environment, replica: myReplica)
/// let chapter = try tree.perform { tree in
///     let folder = try tree.create(under: .root, metadata: Array("Drafts".utf8))
///     return try tree.create(under: folder.node, metadata: Array("Chapter 1".utf8))
/// }
/// try tree.apply(operationsFromPeer)          // one transaction, all or nothing
/// let names = try tree.storedChildren(of: .root)   // a prefix scan of the children index
/// ```
///
/// The whole tree state is also held in memory (the node table and the untruncated log,
/// read once at open), so reads through ``read(_:)`` cost no I/O.
///
/// Thread-safety: all methods may be called from any thread; they are serialised by an
/// internal lock, and write transactions are synchronous (LMDB's rule).
public final class PersistentTree: Sendable {
    /// The environment the tree lives in.
    public let environment: Environment
    /// The name prefix of its databases.
    public let name: String
    /// This replica's ID.
    public let replica: ReplicaID
    let layout: TreeStorageLayout
    let state: Mutex<ReplicatedTree>
    let injectedFailure = Mutex<Int?>(nil)

    /// Opens the tree stored under `name` in `environment`, creating it when absent.
    ///
    /// Opening reads the node table and the (truncated) log; it does not replay any
    /// operation.
    ///
    /// - Parameters:
    ///   - environment: An open environment; its databases `<name>.log`, `.nodes`,
    ///     `.children` and `.meta` are used.
    ///   - replica: This replica's ID; must match the one stored, if any.
    ///   - name: The databases' name prefix; `"tree"` by default.
    ///   - seed: Seeds the random suffixes of position keys; `nil` for a random seed.
    /// - Throws: ``TreeStoreError/replicaMismatch(stored:requested:)`` when the store
    ///   belongs to another replica, ``TreeStoreError/corruptRecord(database:problem:)``
    ///   for damaged records, ``TreeError/reservedReplica`` for replica 0, or an
    ///   `LMDBError`.
    /// - Complexity: O(*n* log *n* + *m*) for *n* nodes and *m* log entries.
    public init(environment: Environment, replica: ReplicaID, name: String = "tree", seed: UInt64? = nil) throws {
        self.environment = environment
        self.name = name
        self.replica = replica
        let layout = try TreeStorageLayout(environment: environment, name: name)
        self.layout = layout
        let stored = try environment.read { tx in try layout.load(in: tx, replica: replica, seed: seed) }
        let tree: ReplicatedTree
        if let stored {
            tree = stored
        } else {
            tree = try ReplicatedTree(replica: replica, seed: seed)
            try environment.write { tx in try layout.writeInitialState(of: tree, in: tx) }
        }
        state = Mutex(tree)
    }

    /// Reads the in-memory tree.
    ///
    /// ```swift
    /// let children = tree.read { $0.children(of: .root) }
    /// ```
    ///
    /// - Parameter body: Receives the tree; must not call back into this object.
    /// - Returns: What `body` returns.
    public func read<R: Sendable>(_ body: (ReplicatedTree) throws -> R) rethrows -> R {
        try state.withLock { tree in try body(tree) }
    }

    /// Makes local changes in one write transaction: all of them or none.
    ///
    /// The body gets the tree to change with local operations (``ReplicatedTree/create(under:at:metadata:)``,
    /// ``ReplicatedTree/move(_:to:at:metadata:)``, ``ReplicatedTree/delete(_:)`` …).
    /// When it returns, every changed node, children-index entry and log entry is
    /// written and committed; when it throws, or the commit fails, the in-memory tree is
    /// rolled back to where it was and nothing is written.
    ///
    /// - Parameter body: Makes the changes; must not call back into this object.
    /// - Returns: What `body` returns (typically the operations, to send to peers).
    /// - Throws: What `body` throws, or an `LMDBError` from the write.
    /// - Complexity: O(changes) writes, each O(log *n*).
    public func perform<R: Sendable>(_ body: (inout ReplicatedTree) throws -> R) throws -> R {
        try state.withLock { tree in
            tree.beginChanges()
            let result: R
            do {
                result = try body(&tree)
            } catch {
                tree.revertChanges()
                throw error
            }
            try persist(&tree)
            return result
        }
    }

    /// Applies a batch of operations from other replicas in one write transaction.
    ///
    /// In memory the batch is undone and redone once (see ``ReplicatedTree/apply(_:)``);
    /// then the changed nodes, children-index entries and log entries are written. If the
    /// write fails nothing is stored and the in-memory tree is rolled back.
    ///
    /// - Parameter operations: Decoded operations from peers, in any order.
    /// - Returns: What happened to them.
    /// - Throws: An `LMDBError` from the write; the tree is then unchanged.
    @discardableResult
    public func apply(_ operations: [TreeOperation]) throws -> TreeMergeReport {
        try state.withLock { tree in
            tree.beginChanges()
            let report = tree.apply(operations)
            try persist(&tree)
            return report
        }
    }

    /// Drops the log entries no future operation can sort before (see
    /// ``ReplicatedTree/truncateLog(acknowledgements:received:)``), in memory and on disk.
    ///
    /// - Returns: The number of entries dropped.
    /// - Throws: An `LMDBError`; nothing is then dropped.
    @discardableResult
    public func truncateLog(acknowledgements: [TreeAcknowledgement], received: VersionVector) throws -> Int {
        try state.withLock { tree in
            let count = tree.truncatableCount(acknowledgements: acknowledgements, received: received)
            guard count > 0 else { return 0 }
            var truncated = tree
            truncated.dropLogPrefix(count)
            let meta = TreeStorageLayout.State(
                replica: replica, clock: truncated.clock, nextCounter: truncated.nextCounter,
                truncatedThrough: truncated.truncatedThrough)
            try environment.write { tx in
                if let lastDropped = truncated.truncatedThrough {
                    var end = TreeStorageLayout.logKey(lastDropped)
                    end.append(UInt8(0))  // just past the last dropped key
                    try tx.removeAll(in: layout.log, range: .below(end))
                }
                try tx.put(TreeStorageLayout.encode(meta), forKey: TreeStorageLayout.stateKey, in: layout.meta)
            }
            tree = truncated
            return count
        }
    }

    /// The children of `node` in sibling order, read from the stored children index with
    /// one prefix scan (not from memory).
    ///
    /// - Complexity: O(log *n* + *k*) for *k* children.
    public func storedChildren(of node: NodeID) throws -> [NodeID] {
        try environment.read { tx in
            var result: [NodeID] = []
            try tx.scan(layout.children, range: .prefix(TreeStorageLayout.childrenPrefix(node))) { key, _ in
                do {
                    result.append(try TreeStorageLayout.decodeChildKey(key).child)
                } catch {
                    throw TreeStoreError.corruptRecord(database: layout.children.name, problem: "\(error)")
                }
                return .continue
            }
            return result
        }
    }

    /// The number of entries in the stored log, counting the creations that node
    /// records hold instead of the log database (a node's creation while it is still its
    /// last move), after the truncation point.
    public func storedLogCount() throws -> Int {
        let truncation = state.withLock { $0.truncatedThrough }
        return try environment.read { tx in
            var held = 0
            try tx.scan(layout.nodes) { key, value in
                var reader = ByteReader(Array(value))
                guard let node = try? TreeStorageLayout.node(fromNodeKey: key),
                      let record = try? TreeStorageLayout.decodeNode(node, from: &reader) else { return .continue }
                guard record.lastMoveIsCreation, truncation.map({ record.lastMove > $0 }) ?? true else { return .continue }
                if try !tx.containsValue(forKey: TreeStorageLayout.logKey(record.lastMove), in: layout.log) { held += 1 }
                return .continue
            }
            return try tx.count(in: layout.log) + held
        }
    }

    /// Makes the next write fail with ``InjectedFailure`` after `records` records have
    /// been put in it, to test that an aborted batch leaves the previous state.
    @_spi(Testing) public func failNextWrite(afterRecords records: Int) {
        injectedFailure.withLock { $0 = records }
    }

    /// The error ``failNextWrite(afterRecords:)`` throws.
    @_spi(Testing) public struct InjectedFailure: Error, Equatable {}

    // MARK: Internals

    /// Writes the open change session in one transaction, then keeps or reverts it.
    private func persist(_ tree: inout ReplicatedTree) throws {
        let changes = tree.pendingChanges()
        let failAfter = injectedFailure.withLock { value -> Int? in
            defer { value = nil }
            return value
        }
        do {
            try environment.write { tx in try write(changes, in: tx, failingAfter: failAfter) }
        } catch {
            tree.revertChanges()
            throw error
        }
        tree.commitChanges()
    }

    private func write(_ changes: TreeChangeSet, in tx: borrowing WriteTransaction, failingAfter limit: Int?) throws {
        var written = 0
        try layout.write(changes, replica: replica, in: tx) {
            written += 1
            if let limit, written > limit { throw InjectedFailure() }
        }
    }
}
