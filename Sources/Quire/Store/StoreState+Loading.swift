import LMDB
import QuireCore

/// Reading the writer's state out of LMDB: the little opening needs, then the rest at
/// the first transaction that needs it, and again whenever another process has committed
/// since this one last looked.
///
/// LMDB is the source of truth. What a `StoreState` holds in memory is a cache of one
/// committed LMDB transaction, ``StoreState/knownTransaction``. Every write and locked
/// read of the store first compares that with LMDB's latest transaction (inside the read or
/// write transaction, so under LMDB's own cross-process writer lock for writes); when
/// they differ, another process (or another `Environment` user) wrote, and the cache is
/// read again before anything else happens. Writes therefore always start from what is
/// on disk: two processes on one store hand out unique `(replica, counter)` IDs and
/// never overwrite each other's commits.
extension StoreState {
    /// Reads the store's state in `tx` — all but the tree, records and texts, which are
    /// read on demand; `nil` when the environment holds no store yet.
    ///
    /// - Parameter snapshot: The LMDB transaction whose state `tx` sees (`tx`'s own ID for
    ///   a read; the last committed one, `tx`'s ID − 1, inside a write).
    static func load<T: ReadableTransaction & ~Copyable>(
        environment: Environment, layout: StoreLayout, in tx: borrowing T, snapshot: Int
    ) throws -> StoreState? {
        guard let bytes = try tx.value(forKey: StoreLayout.metaKey, in: layout.meta) else { return nil }
        var meta = try StoreMeta.decode(bytes)
        try StoreState.catchUp(&meta, layout: layout, in: tx)
        try checkHierarchyState(of: meta, layout: layout, in: tx)
        var failure: StoreError?
        var pending: [ChangeID: IncomingChange] = [:]
        try tx.scan(layout.pending) { _, value in
            do throws(StoreError) {
                let change = try IncomingChange.decodeStored(Array(value))
                pending[change.id] = change
            } catch {
                failure = .corrupt(database: layout.pending.name, problem: error.description)
                return .stop
            }
            return .continue
        }
        if let failure { throw failure }
        let state = StoreState(environment: environment, layout: layout, meta: meta, tree: nil, pending: pending)
        state.knownTransaction = snapshot
        try tx.scan(layout.textSlots) { key, value in
            do throws(DecodingError) {
                guard key.count == 8 else { throw .malformed("slot key of \(key.count) bytes", at: 0) }
                let slot = key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let text = try StoreLayout.decodeText(Array(value))
                state.slotTexts[slot] = text
                state.textSlots[text] = slot
            } catch {
                failure = .corrupt(database: layout.textSlots.name, problem: error.description)
                return .stop
            }
            return .continue
        }
        if let failure { throw failure }
        try state.measureSinceCheckpoint(in: tx)
        state.names = try layout.nameTables(in: tx)
        state.nameFields = try storedNameFields(layout: layout, in: tx)
        return state
    }

    /// Reads only what opening a store needs, in `tx`: the meta record (this replica's
    /// clocks caught up with its log), the hierarchy's state record (its layout checked)
    /// and the sibling-name fields; `nil` when the environment holds no store yet.
    ///
    /// Pending changes, name tables and text slots are read by the first transaction that
    /// needs the writer's state: the state knows no transaction (``isLoaded`` is `false`),
    /// so ``refresh(in:snapshot:)`` reads them. The tree is read only by a transaction
    /// that changes it (``hierarchyToChange()``), and records and texts as they are used.
    /// Read transactions need none of it (they read LMDB), so a process that only reads
    /// never loads the store, and one that only types and edits fields never loads the
    /// hierarchy.
    static func open<T: ReadableTransaction & ~Copyable>(
        environment: Environment, layout: StoreLayout, in tx: borrowing T
    ) throws -> StoreState? {
        guard let bytes = try tx.value(forKey: StoreLayout.metaKey, in: layout.meta) else { return nil }
        var meta = try StoreMeta.decode(bytes)
        try StoreState.catchUp(&meta, layout: layout, in: tx)
        try checkHierarchyState(of: meta, layout: layout, in: tx)
        let state = StoreState(environment: environment, layout: layout, meta: meta, tree: nil, pending: [:])
        state.isLoaded = false
        state.nameFields = try storedNameFields(layout: layout, in: tx)
        return state
    }

    /// Checks the hierarchy's state record, which holds no more than its layout version
    /// and replica: the tree itself is read by the first transaction that changes it
    /// (``hierarchyToChange()``).
    private static func checkHierarchyState<T: ReadableTransaction & ~Copyable>(
        of meta: StoreMeta, layout: StoreLayout, in tx: borrowing T
    ) throws {
        guard let treeState = try tx.value(forKey: TreeStorageLayout.stateKey, in: layout.tree.meta) else {
            throw StoreError.corrupt(database: layout.tree.meta.name, problem: "the hierarchy's state record is missing")
        }
        let stored: TreeStorageLayout.State
        do { stored = try TreeStorageLayout.decodeState(treeState) } catch {
            throw TreeStoreError.corruptRecord(database: layout.tree.meta.name, problem: error.description)
        }
        guard stored.replica == meta.replica else {
            throw TreeStoreError.replicaMismatch(stored: stored.replica, requested: meta.replica)
        }
    }

    /// The sibling-name fields the store keeps (empty when none were stored).
    private static func storedNameFields<T: ReadableTransaction & ~Copyable>(
        layout: StoreLayout, in tx: borrowing T
    ) throws -> [String: String] {
        guard let bytes = try tx.value(forKey: StoreLayout.nameFieldsKey, in: layout.meta) else { return [:] }
        do throws(DecodingError) {
            return try StoreLayout.decodeNameFields(bytes)
        } catch {
            throw StoreError.corrupt(database: layout.meta.name, problem: error.description)
        }
    }

    /// Creates a new store in `tx` (the environment holds none): a new replica, a new
    /// store ID, an empty hierarchy.
    static func create(
        environment: Environment, layout: StoreLayout, replica: ReplicaID, in tx: borrowing WriteTransaction
    ) throws -> StoreState {
        let meta = StoreMeta(
            replica: replica, storeID: StoreID.random(), lamport: 0, version: VersionVector([replica: 0]),
            lastDependencies: VersionVector(), checkpoint: VersionVector())
        let tree = try ReplicatedTree(replica: replica)
        try tx.put(meta.encoded(), forKey: StoreLayout.metaKey, in: layout.meta)
        try layout.tree.writeInitialState(of: tree, in: tx)
        // Not kept: a new store's hierarchy lives on LMDB like any other (see StoreState+Hierarchy).
        let state = StoreState(environment: environment, layout: layout, meta: meta, tree: nil, pending: [:])
        state.knownTransaction = tx.transactionID
        return state
    }

    /// Reads the state again when LMDB's last committed transaction is not the one the
    /// memory reflects: another process wrote. Cheap otherwise (one comparison).
    ///
    /// Call it first in every read and write transaction of the store, with no write
    /// session open. What the other process committed is noted in
    /// ``otherProcessEvent`` for the store to publish.
    ///
    /// - Parameter snapshot: The transaction `tx` sees (see ``load(environment:layout:in:snapshot:)``).
    func refresh<T: ReadableTransaction & ~Copyable>(in tx: borrowing T, snapshot: Int) throws {
        guard !isLoaded || snapshot != knownTransaction else { return }
        guard let fresh = try StoreState.load(environment: environment, layout: layout, in: tx, snapshot: snapshot) else {
            throw StoreError.corrupt(database: layout.meta.name, problem: "the store's meta record disappeared")
        }
        guard fresh.meta.replica == replica else {
            throw StoreError.corrupt(
                database: layout.meta.name,
                problem: "another process replaced the store in \(environment.path) (replica \(fresh.meta.replica), "
                    + "not \(replica)); close and open it again")
        }
        let (before, treeBefore) = (meta.version, loadedTree)
        adopt(fresh)
        noteOtherProcessChanges(since: before, treeBefore: treeBefore, in: tx)
    }

    /// Takes over everything `fresh` read from disk; keeps what only this process knows
    /// (undo histories, the closed flag).
    private func adopt(_ fresh: StoreState) {
        meta = fresh.meta
        records.removeAll()
        loadedTree = nil  // read again by the next merge that needs it
        childListsKept = [:]
        texts = [:]
        pending = fresh.pending
        session = nil
        changesSinceCheckpoint = fresh.changesSinceCheckpoint
        bytesSinceCheckpoint = fresh.bytesSinceCheckpoint
        textsSinceCheckpoint = nil
        changesSinceFold = fresh.changesSinceCheckpoint
        names = fresh.names
        textSlots = fresh.textSlots
        slotTexts = fresh.slotTexts
        nameFields = fresh.nameFields
        knownTransaction = fresh.knownTransaction
        isLoaded = true
    }

    /// Adds what the changes between `version` and the current one touched to
    /// ``otherProcessEvent``, with where moved nodes were before: in `treeBefore` when
    /// this process held the hierarchy, else in the move log, whose entry of a node's first
    /// move among the changes holds the node's place before it.
    private func noteOtherProcessChanges<T: ReadableTransaction & ~Copyable>(
        since version: VersionVector, treeBefore: ReplicatedTree?, in tx: borrowing T
    ) {
        guard reportsOtherProcessChanges.load(ordering: .relaxed), meta.version != version else { return }
        var event = otherProcessEvent ?? StoreEvent(origin: .otherProcess)
        // Best effort: a log the other process pruned meanwhile leaves the event without
        // details (its changes are still read); `verify` reports a damaged log.
        var firstMoves: [NodeID: Timestamp] = [:]
        for change in (try? storedChanges(since: version, in: tx)) ?? [] {
            event.note(change)
            for case .tree(let move) in change.operations {
                firstMoves[move.node] = min(firstMoves[move.node] ?? move.timestamp, move.timestamp)
            }
        }
        let hierarchy = layout.tree
        for id in event.nodes {
            // An event not yet published keeps where the node was before its first change.
            var from: StoreEvent.Place?? = event.moves[id].map(\.from)
            if from == nil, let treeBefore {
                from = .some(treeBefore.parent(of: id.node).map(StoreEvent.Place.init))
            } else if from == nil, let first = firstMoves[id.node] {
                // No entry: a creation kept in its node's record (or pruned: read as one).
                let entry = try? hierarchy.logEntry(at: first, in: tx)
                from = .some(entry?.old.map { StoreEvent.Place($0.parent) })
            }
            let to = (try? hierarchy.nodeRecord(id.node, in: tx))?.parent
            event.moves[id] = StoreEvent.Move(from: from ?? nil, to: to.map(StoreEvent.Place.init))
        }
        otherProcessEvent = event
    }
}
