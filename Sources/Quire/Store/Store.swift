import Foundation
import LMDB
import QuireCore
import Synchronization

/// An offline-first object store in one directory: typed records, text values and a
/// hierarchy, persisted in LMDB and merged with other replicas of the same store.
///
/// ```swift
/// let store = try Store(directory: "/path/to/Notes.quire")
/// let file = try store.write { tx in
///     let folder = try tx.insert(Folder(name: "Drafts"))
///     let file = try tx.insert(File(name: "Ode"), under: folder)
///     try tx.insert("Hello", at: 0, in: file.text("content"))
///     return file
/// }
/// let content = try store.read { tx in try tx.string(of: file.text("content")) }
/// ```
///
/// Every write transaction that changes something becomes one ``Change`` in the change
/// log; other replicas receive it through ``changes(since:)`` and ``apply(_:)`` (or delta
/// files) and merge it without conflicts.
///
/// Thread-safety: a `Store` may be used from any thread or task. Reads run on LMDB
/// snapshots, concurrently with each other and with a writer, and never wait; writes are
/// serialised (by one lock in the process and LMDB's writer lock across processes). All
/// bodies are synchronous (LMDB's rule). Do not call the store from inside a transaction
/// body: such a call throws ``StoreError/nestedTransaction(_:)`` (``version`` and
/// ``storeID`` answer from what the body sees). One process opens a store directory once;
/// several processes may have it open at the same time (see ``init(directory:options:)``).
public final class Store: Sendable {
    /// The directory holding the store's files.
    public let directory: String
    /// This replica's ID, chosen at random when the store was created.
    public let replica: ReplicaID
    /// The store's lineage, shared by all its replicas. A new store that has made no
    /// change takes the lineage of the first full delta file it imports; one that has
    /// only its own changes, when it imports with ``importDelta(_:joiningLineage:)``.
    ///
    /// Inside a transaction body of this store it answers from the state the body sees.
    public var storeID: StoreID {
        if let held = stateHeldByThisThread { return held.meta.storeID }
        if let snapshot = snapshotReadByThisThread { return snapshot.meta.storeID }
        return (try? read { $0._view.meta.storeID }) ?? state.withLock { $0.meta.storeID }
    }

    let environment: Environment
    let layout: StoreLayout
    let state: Mutex<StoreState>
    /// Set by ``close()``; read transactions check it without taking the lock.
    let isClosed = Atomic<Bool>(false)
    /// This store among all stores this process opened: never reused, unlike its address
    /// (how ``ThreadReads`` tells a store from a freed one's successor).
    let serial = Store.serials.add(1, ordering: .relaxed).newValue
    private static let serials = Atomic<UInt64>(0)
    /// The thread that holds `state`'s lock, 0 when none (see ``withStateLock(_:_:)``).
    let lockHolder = Atomic<UInt>(0)
    /// The object `state` guards, for ``stateHeldByThisThread`` only: touched only by
    /// the thread that holds the lock.
    let lockedState: StoreState
    let observers = Mutex<Observers>(Observers())
    /// Polls for other processes' commits while someone observes (see `Store+Transactions.swift`).
    let otherProcessWatch = Mutex<(any DispatchSourceTimer)?>(nil)

    /// How a store is opened.
    public struct Options: Sendable {
        /// When commits reach the disk; ``LMDB/Environment/Durability/full`` makes every
        /// committed write survive power loss.
        public var durability: Environment.Durability = .full
        /// The initial size of the memory map; it grows on demand.
        public var initialMapSize = 16 << 20
        /// The replica ID to use when the store is created; `nil` for a random one.
        /// Fix it only in tests: two devices must never share a replica ID.
        public var replica: ReplicaID?
        /// Record types whose ``Record/siblingNameField`` merges should check.
        public var recordTypes: [any Record.Type] = []
        /// Opens an existing store read-only: writes throw, nothing is written (not even
        /// the checkpoint at ``Store/close()``). `.readOnlyWithoutLock` also skips LMDB's
        /// lock file, for a store on a read-only file system only (nobody can write it).
        public var access: Access = .readWrite
        /// How consecutive edits become one undo step: typing within 1 s, by default.
        public var undoGrouping: UndoGrouping = .standard
        /// The clock that stamps each change with the time it was made (``Change/time``,
        /// in whole seconds; a change is never stamped before its replica's previous
        /// one). Replace it only in tests.
        public var clock: @Sendable () -> Date = { Date() }

        /// Default options: full durability, random replica ID.
        public init() {}
    }

    /// Opens the store in `directory`, creating the directory and a new store (a new
    /// replica with a random ID, a new store ID) when there is none.
    ///
    /// Opening reads the records, the hierarchy and pending changes into memory, as a
    /// cache of what LMDB holds; texts are read on first use, each from one snapshot and
    /// the few edits made since. Another process may have the same store open (an app and
    /// the `quire` tool, an app and its extension): each transaction first catches up with
    /// what the other committed, and writes run under LMDB's cross-process writer lock.
    ///
    /// - Parameters:
    ///   - directory: The store's directory. Keep it out of synced folders.
    ///   - options: Durability, map size, record types.
    /// - Throws: ``StoreError`` for a damaged or incompatible store or a `directory` that is
    ///   a file (``StoreError/notADirectory(_:)``), or an `LMDBError`
    ///   (for example `.alreadyOpen` when this process has it open already).
    public init(directory: String, options: Options = Options()) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw StoreError.notADirectory(directory)
        }
        if options.access == .readWrite {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        var configuration = Environment.Configuration()
        configuration.durability = options.durability
        configuration.mapSize = options.initialMapSize
        configuration.maxDatabases = 16
        configuration.readOnly = options.access.isReadOnly
        configuration.usesLockFile = options.access.usesLockFile
        let environment = try Environment(path: directory, configuration: configuration)
        let layout = try StoreLayout(environment: environment)
        let loaded = try Self.load(environment: environment, layout: layout, options: options)
        loaded.undoHistory.grouping = options.undoGrouping
        loaded.clock = options.clock
        self.directory = directory
        self.environment = environment
        self.layout = layout
        self.replica = loaded.meta.replica
        self.state = Mutex(loaded)
        self.lockedState = loaded
        try register(options.recordTypes)
    }

    /// Writes a checkpoint (fresh snapshots of the texts changed since the last one) and
    /// closes the store; later calls throw. Pending observers finish.
    public func close() throws {
        try withStateLock("store.close") { state in
            guard !state.isClosed else { return }
            try state.writeCheckpoint()
            state.isClosed = true
            isClosed.store(true, ordering: .relaxed)
            try environment.close()
        }
        otherProcessWatch.withLock { $0?.cancel(); $0 = nil }
        for continuation in observers.withLock({ $0.removeAll() }) { continuation.finish() }
    }

    /// Every replica's next counter: what this store has of each.
    ///
    /// ```swift
    /// let delta = try phone.exportDelta(since: laptop.version)
    /// ```
    ///
    /// Read from the last commit, this process's or another's, without waiting for a
    /// writer. Inside a transaction body of this store it answers from what the body sees
    /// (the body's `tx.version` says the same).
    public var version: VersionVector {
        if let held = stateHeldByThisThread { return held.meta.version }
        if let snapshot = snapshotReadByThisThread { return snapshot.meta.version }
        return (try? read { $0.version }) ?? state.withLock { $0.meta.version }
    }

    /// Reads from a consistent view of the store.
    ///
    /// ```swift
    /// let projects = try store.read { tx in try tx.all(Project.self) }
    /// ```
    ///
    /// The body reads an LMDB snapshot: the last commit before the read began, of this
    /// process or another, and nothing committed while it runs. It takes no lock of the
    /// store and never waits for a writer — an import, a checkpoint or ``verify()`` on
    /// another thread, or another process — so reads on the main thread stay responsive.
    /// Records and tree nodes are read as the body asks for them. Keep bodies short: an
    /// open snapshot holds back the reuse of pages written since, and map growth waits
    /// for it.
    ///
    /// To factor reads into functions, pass the transaction as a `borrowing` parameter —
    /// `func f<Tx: StoreReading & ~Copyable>(…, in tx: borrowing Tx)` works in `read` and
    /// `write` alike. Do not declare a local `func` (or a closure stored in a `let`)
    /// inside the body that *captures* `tx`: Swift 6.3.1 crashes compiling it
    /// (`MoveOnlyChecker`, signal 11). Inline closures passed directly (`ids.map { try
    /// tx.record(Note.self, $0) }`) are fine. See "Helper functions over a transaction"
    /// in `docs/store.md`.
    ///
    /// - Parameter body: Reads through the transaction; must not call the store (a call
    ///   throws ``StoreError/nestedTransaction(_:)``; ``version`` and ``storeID`` answer).
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, ``StoreError/closed``, or
    ///   ``StoreError/nestedTransaction(_:)`` when called inside a transaction body of
    ///   this store.
    public func read<R>(_ body: (borrowing StoreReader) throws -> R) throws -> R {
        try withSnapshot("store.read") { snapshot in
            // Bound first, then lent: passing `StoreReader(view:)` straight to the generic
            // body crashes Swift 6.3.1's optimizer (GenericSpecializer, "Cannot initialize
            // a nonCopyable type with a guaranteed value").
            let reader = StoreReader(view: snapshot)
            return try body(reader)
        }
    }

    /// Runs `body` on a snapshot of LMDB's latest commit, as a read body of this store:
    /// no lock of the store is taken, so a write, an import or a checkpoint never makes
    /// it wait. The one path of ``read(_:)``, exports and ``changes(since:)``.
    ///
    /// - Parameter call: The public call, for ``StoreError/nestedTransaction(_:)``.
    /// - Throws: ``StoreError/closed``, ``StoreError/nestedTransaction(_:)``, what `body`
    ///   throws, or the first error a read of the snapshot noted (a damaged entry).
    func withSnapshot<R>(_ call: String, _ body: (StoreSnapshot) throws -> R) throws -> R {
        guard lockHolder.load(ordering: .relaxed) != currentThreadID() else { throw StoreError.nestedTransaction(call) }
        guard !isClosed.load(ordering: .relaxed) else { throw StoreError.closed }
        // Read bodies take no lock of the store: the thread's own snapshot of the store,
        // open while a body of this thread reads it, is how a call from inside one is
        // told apart, and how ``version`` and ``storeID`` find the snapshot the body reads.
        // Not retained: the thread's list holds the snapshot while it is open.
        return try ThreadReads.currentSnapshot(of: self)._withUnsafeGuaranteedRef { snapshot in
            guard !snapshot.isOpen else { throw StoreError.nestedTransaction(call) }
            do {
                return try environment.read { transaction in
                    try snapshot.reading(transaction) { try body(snapshot) }
                }
            } catch let error as LMDBError where error.code == .environmentClosed {
                throw StoreError.closed
            }
        }
    }

    /// Changes the store in one transaction: all of it or nothing.
    ///
    /// When the body returns, everything it did is written as one ``Change`` and
    /// committed (with ``Options/durability`` `.full`, durably) before `write` returns.
    /// When the body throws — a failed validation, an invalid position — or the commit
    /// fails, nothing is written and the store is exactly as before.
    ///
    /// The body runs inside LMDB's write transaction, after the store caught up with
    /// what other processes committed: it sees the latest state, and no other process
    /// writes until it returns. It may run more than once (after the map grew), so it
    /// must have no side effects outside the transaction.
    ///
    /// - Parameter body: Makes the changes; must not call the store (a call throws
    ///   ``StoreError/nestedTransaction(_:)``; ``version`` and ``storeID`` answer).
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, an error from the commit, or
    ///   ``StoreError/nestedTransaction(_:)`` when called inside a transaction body of
    ///   this store.
    public func write<R>(_ body: (borrowing StoreWriter) throws -> R) throws -> R {
        try committingBufferedTyping {  // for an undo (see Store+Undo.swift)
            try commitTransaction(origin: .local, call: "store.write") { state in
                let writer = StoreWriter(state: state)  // bound first, as in `read`
                return (try body(writer), [])
            }
        }
    }

    /// The changes a replica at `version` lacks, oldest first per replica.
    ///
    /// Like ``exportDelta(since:)``, it reads an LMDB snapshot and never waits for a write.
    ///
    /// - Parameter version: The other replica's version; empty for the whole history.
    /// - Throws: ``StoreError/corrupt(database:problem:)`` for a damaged log entry.
    public func changes(since version: VersionVector = VersionVector()) throws -> [Change] {
        try withSnapshot("store.changes") { snapshot in try snapshot.storedChanges(since: version) }
    }

    /// Applies changes from other replicas in one write transaction: all or nothing.
    ///
    /// Changes already known are skipped; changes whose dependencies are missing are kept
    /// (persisted) as pending and applied when a later call supplies what they wait for.
    ///
    /// - Parameter changes: Changes in any order, duplicates allowed.
    /// - Returns: What happened: applied, known, pending, overwritten values, name clashes.
    /// - Throws: ``StoreError/invalidChange(_:)`` for a change that contradicts this store
    ///   (another history under a known ID, an invalid text operation); the store is then
    ///   unchanged.
    @discardableResult
    public func apply(_ changes: [Change]) throws -> MergeReport {
        try commitTransaction(origin: .remote) { state in
            var report = try state.integrate(changes.map(IncomingChange.decoded))
            report.nameClashes = state.nameClashes(near: report)
            return (report, report.applied)
        }
    }

    /// Makes the sibling-name checks of `types` known to merges (see
    /// ``Record/siblingNameField``). Types written through this store are known already;
    /// what the store learns is kept in it, so merges after reopening check them too.
    ///
    /// - Throws: ``StoreError/closed``, or an error writing what was learned.
    public func register(_ types: [any Record.Type]) throws {
        try withStateLock("store.register") { state in
            guard !state.isClosed else { throw StoreError.closed }
            try state.register(types)
        }
        publishOtherProcessEvent()
    }

    // MARK: Opening

    private static func load(environment: Environment, layout: StoreLayout, options: Options) throws -> StoreState {
        // Opening reads the meta record, not the store (see `StoreState.open`).
        let stored = try environment.read { tx in try StoreState.open(environment: environment, layout: layout, in: tx) }
        if let stored { return stored }
        // Created under LMDB's writer lock: two processes opening a new store at once
        // agree on one replica.
        return try environment.write { tx in
            if let stored = try StoreState.open(environment: environment, layout: layout, in: tx) { return stored }
            return try StoreState.create(
                environment: environment, layout: layout, replica: options.replica ?? ReplicaID.random(), in: tx)
        }
    }
}
