import Foundation
import LMDB
import QuireCore
import Synchronization

/// The contents of an open store: a cache, in memory and guarded by the store's lock,
/// of one committed LMDB transaction (``knownTransaction``), read again when another
/// process commits.
///
/// Opaque outside the module: transactions reach it through ``StoreReader`` and
/// ``StoreWriter``.
///
/// `@unchecked Sendable` is safe because every access happens inside the store's
/// `Mutex` (`Store.state.withLock`): the only references handed out are the noncopyable
/// transactions, which cannot leave the closure that runs under the lock.
final class StoreState: StoreView, @unchecked Sendable {
    // The stored properties skip Swift's dynamic exclusivity checks: every access happens
    // under the store's lock, on the one thread that holds it, and never overlaps. The
    // checks cost a keystroke's commit some fifty calls into the runtime.
    let environment: Environment
    let layout: StoreLayout
    @exclusivity(unchecked) var meta: StoreMeta
    /// The records read or written so far; others are read from LMDB on first use.
    let records: RecordCache
    /// The whole hierarchy in memory, for transactions that change it: read from LMDB by
    /// the first one (``willChangeTree()``), dropped when another process writes. `nil`
    /// until then: reads of the hierarchy go to LMDB, one node or one folder at a time, so
    /// a process that only types and edits fields never reads the whole tree.
    @exclusivity(unchecked) var loadedTree: ReplicatedTree?
    /// For local moves made on LMDB (see ``StoredTreeEdits``), as the tree in memory keeps
    /// them: the last move that placed a node by index, and position keys' random suffixes.
    @exclusivity(unchecked) var lastPlacement: Timestamp?
    @exclusivity(unchecked) var placementRandom = SplitMix64(seed: UInt64.random(in: .min ... .max))
    /// Lists of children that local moves on LMDB read, kept from one session to the next
    /// as committed (a folder filled over many writes is listed once); dropped when another
    /// process writes, when a session rolls back, when the tree is read whole, and past
    /// ``childListsLimit`` entries.
    @exclusivity(unchecked) var childListsKept: [NodeID: [StoredChild]] = [:]
    static let childListsLimit = 200_000
    /// Texts read so far; others are read from disk on first use.
    @exclusivity(unchecked) var texts: [TextID: StoredText] = [:]
    /// Changes from other replicas waiting for their dependencies.
    @exclusivity(unchecked) var pending: [ChangeID: IncomingChange]
    /// The write transaction in progress, if any.
    @exclusivity(unchecked) var session: WriteSession?
    /// Changes and change-log bytes since the last checkpoint (see ``StoredText``).
    @exclusivity(unchecked) var changesSinceCheckpoint = 0
    @exclusivity(unchecked) var bytesSinceCheckpoint = 0
    /// The size of the snapshots the last checkpoint wrote (0 until one is written):
    /// the next is due after a quarter of that in log (see ``StoredText``).
    @exclusivity(unchecked) var lastSnapshotBytes = 0
    /// Commits since the log's keystroke changes were last folded into runs.
    @exclusivity(unchecked) var changesSinceFold = 0
    /// The texts changed since the last checkpoint; `nil` until known (after opening,
    /// the first checkpoint reads them from the log).
    @exclusivity(unchecked) var textsSinceCheckpoint: Set<TextID>?
    /// Each replica's names in order of first use (see ``ReplicaNames``).
    @exclusivity(unchecked) var names: [ReplicaID: ReplicaNames] = [:]
    /// The change log names texts by these store-local numbers.
    @exclusivity(unchecked) var textSlots: [TextID: UInt64] = [:]
    @exclusivity(unchecked) var slotTexts: [UInt64: TextID] = [:]
    /// Record type name → its ``Record/siblingNameField``, as learned from the types
    /// used; kept in the store.
    @exclusivity(unchecked) var nameFields: [String: String] = [:]
    /// The texts the record types used in this process declare; shared with the read
    /// snapshots, and kept when the state is read again.
    let declarations = TextDeclarations()
    /// Set by ``Store/close()``.
    @exclusivity(unchecked) var isClosed = false
    /// The wall clock that stamps this replica's changes (``Store/Options/clock``).
    var clock: @Sendable () -> Date = { Date() }
    /// This replica's undo and redo steps.
    @exclusivity(unchecked) var undoHistory = UndoHistory()
    /// The editing sessions holding typing not committed yet.
    let bufferedTyping = BufferedTyping()
    /// The LMDB transaction whose committed state the memory reflects; another value in
    /// LMDB means another process wrote (see `StoreState+Loading.swift`).
    @exclusivity(unchecked) var knownTransaction = 0
    /// Whether pending changes, names and text slots have been read: not after
    /// ``open(environment:layout:in:)``, until the first transaction that needs them.
    @exclusivity(unchecked) var isLoaded = true
    /// What other processes committed, noticed by ``refresh(in:snapshot:)`` and not yet
    /// published.
    @exclusivity(unchecked) var otherProcessEvent: StoreEvent?
    /// Whether anyone observes the store: only then is what other processes committed
    /// worked out for an event (reading their changes back costs as much as the reload).
    /// Atomic: set as observers come and go, which may happen inside a transaction.
    let reportsOtherProcessChanges = Atomic<Bool>(false)

    var replica: ReplicaID { meta.replica }

    init(environment: Environment, layout: StoreLayout, meta: StoreMeta, tree: ReplicatedTree?,
         pending: [ChangeID: IncomingChange]) {
        self.environment = environment
        self.layout = layout
        self.meta = meta
        records = RecordCache(environment: environment, database: layout.records)
        loadedTree = tree
        self.pending = pending
    }

    // MARK: Reading

    func text(inSlot slot: UInt64) -> TextID? { slotTexts[slot] }

    func nameTable(of replica: ReplicaID) -> ReplicaNames? { names[replica] }

    func withLogTransaction<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        try environment.read(body)
    }

    func record(_ id: RecordID) -> RecordState? { records[id] }

    func records(ofType type: String) -> [(id: RecordID, record: RecordState)] {
        records.records(ofType: type)
    }

    func withText<R>(_ id: TextID, _ body: (ReplicatedText?) throws -> R) throws -> R {
        try body(existingText(id)?.text)
    }

    /// Always `nil`: the writer reads texts whole and keeps them, for the edits to come
    /// (and a write session's own edits are in them, not on disk).
    func checkpointedString(of id: TextID) throws -> String? { nil }

    /// The text `id`, read from disk on first use; `nil` when it was never written.
    ///
    /// Read in the body's read transaction when one is open (a locked read installs the
    /// one it caught up in), else in a new one — inside a write, under LMDB's writer
    /// lock, that sees the transaction the state reflects. Either way the text kept is of
    /// ``knownTransaction``, which read snapshots rely on (`StoreSnapshot.withText`).
    func existingText(_ id: TextID) throws -> StoredText? {
        if let loaded = texts[id] { return loaded }
        let load = { (tx: borrowing ReadTransaction) throws -> StoredText? in
            try StoredText.load(id, from: self, replica: self.replica, in: tx)
        }
        guard let loaded = try records.withOpenTransaction(load) ?? environment.read(load) else { return nil }
        texts[id] = loaded
        return loaded
    }

    /// The text `id`, created empty when it was never written.
    func text(_ id: TextID) throws -> StoredText {
        if let existing = try existingText(id) { return existing }
        let created = StoredText(text: ReplicatedText(replica: replica))
        texts[id] = created
        return created
    }
}

/// What a write transaction has done so far, to write it as one change or to undo it.
///
/// A class: the state holds one for the transaction and every step of a write reads or
/// adds to it in place. As a struct of some twenty collections, each `guard let session`
/// copied (retained, then released) all of them, several times per keystroke.
final class WriteSession {
    // Unchecked exclusivity, as for `StoreState`: a session is reached only through the
    // state, under the store's lock.
    /// The Lamport time of the change being made.
    let lamport: UInt64
    /// Whether the tree records changes (see `StoreState.willChangeTree()`).
    @exclusivity(unchecked) var touchesTree = false
    /// Local moves made on LMDB, while the tree is not in memory (see ``StoredTreeEdits``).
    @exclusivity(unchecked) var treeEdits: StoredTreeEdits?
    /// Tree operations, in the order they were made.
    @exclusivity(unchecked) var treeOperations: [TreeOperation] = []
    /// Field writes per record (the last value of each field).
    @exclusivity(unchecked) var fieldWrites: [RecordID: (type: String, values: [String: [UInt8]])] = [:]
    /// Records as they were before the transaction touched them (`nil`: absent).
    @exclusivity(unchecked) var savedRecords: [RecordID: RecordState?] = [:]
    /// Texts touched, in order, with where they were before the transaction.
    @exclusivity(unchecked) var texts = TouchedTexts()
    /// The sibling-name fields before the transaction learned new ones.
    @exclusivity(unchecked) var savedNameFields: [String: String]?
    /// Undo: the step this transaction undoes or redoes, if it does.
    @exclusivity(unchecked) var reverted: UndoHistory.Reverted?
    /// Undo: copies an undo or redo made of deleted characters, per text.
    @exclusivity(unchecked) var undoRedirects: [TextID: [ReplicatedText.Redirect]] = [:]
    /// Undo: the fields written and the nodes moved, with what they were before.
    @exclusivity(unchecked) var undoFields: [UndoStep.FieldPart] = []
    @exclusivity(unchecked) var undoMoves: [UndoStep.MovePart] = []
    /// Where each node's entry is in `undoMoves`.
    @exclusivity(unchecked) var undoMoveIndex: [NodeID: Int] = [:]
    /// Undo grouping: the transaction's typing, while it only types into one text (see
    /// ``TypingRun``); `typingEnded` once it did anything else.
    @exclusivity(unchecked) var typing: TypingRun?
    @exclusivity(unchecked) var typingEnded = false
    /// Editing sessions whose buffered typing must be committed before this
    /// transaction's undo (see ``BufferedTyping``); the transaction is then run again.
    @exclusivity(unchecked) var typingToCommit: [TextEditingSession] = []
    /// What a merge integrated; `nil` for a local write (see ``merging``).
    @exclusivity(unchecked) var merge: MergeSession?
    /// Names learned in this transaction, per replica (positions), and the tables before.
    @exclusivity(unchecked) var learnedNames: [ReplicaID: [Int]] = [:]
    @exclusivity(unchecked) var savedNames: [ReplicaID: ReplicaNames]?

    init(lamport: UInt64) {
        self.lamport = lamport
    }

    /// The merge's parts, made on first use: a local write (a keystroke) never makes or
    /// frees them.
    var merging: MergeSession {
        if let merge { return merge }
        let made = MergeSession()
        merge = made
        return made
    }
}

/// What a merge (``Store/apply(_:)``, an import, a sync) has integrated so far, kept apart
/// from ``WriteSession`` so a local write carries none of it.
final class MergeSession {
    /// The changes and runs integrated, per replica in counter order.
    @exclusivity(unchecked) var integrated: [ReplicaID: [ChangeUnit]] = [:]
    /// The text operations of runs integrated whole, as their delta file encoded them, by
    /// run: logged as they came (see `ChangeUnit.encodeLogEntry`).
    @exclusivity(unchecked) var integratedRunBytes: [ChangeID: EncodedRunOperations] = [:]
    /// Pending changes applied now, and changes newly kept as pending.
    @exclusivity(unchecked) var pendingRemoved: Set<ChangeID> = []
    @exclusivity(unchecked) var pendingAdded: Set<ChangeID> = []
    /// The store's clocks after the merge; pending entries before it.
    @exclusivity(unchecked) var mergedMeta: StoreMeta?
    @exclusivity(unchecked) var savedPending: [ChangeID: IncomingChange]?
}

extension StoreState {
    /// Notes `type`'s sibling-name field inside a write; the commit stores it.
    func learn(_ type: any Record.Type) {
        learnTexts(type)
        guard nameFields[type.typeName] != type.siblingNameField else { return }
        if session?.savedNameFields == nil { session?.savedNameFields = nameFields }
        nameFields[type.typeName] = type.siblingNameField
    }

    /// Notes and stores the sibling-name fields of `types` outside a write.
    func register(_ types: [any Record.Type]) throws {
        for type in types { learnTexts(type) }
        func adding(to fields: [String: String]) -> [String: String] {
            var learned = fields
            for type in types { learned[type.typeName] = type.siblingNameField }
            return learned
        }
        guard adding(to: nameFields) != nameFields else { return }
        // A read-only store keeps what it learned in memory only.
        guard !environment.configuration.readOnly else {
            nameFields = adding(to: nameFields)
            return
        }
        let layout = layout
        let (learned, transaction) = try environment.write { tx in
            try refresh(in: tx, snapshot: tx.transactionID - 1)  // another process may have learned others
            let learned = adding(to: nameFields)
            try tx.put(StoreLayout.encode(nameFields: learned), forKey: StoreLayout.nameFieldsKey, in: layout.meta)
            return (learned, tx.transactionID)
        }
        nameFields = learned
        knownTransaction = transaction
    }
}
