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
/// Thread-safety: a `Store` may be used from any thread or task. Transactions are
/// serialised by one lock, and their bodies are synchronous (LMDB's rule). Do not call
/// the store from inside a transaction body. One process opens a store directory once.
public final class Store: Sendable {
    /// The directory holding the store's files.
    public let directory: String
    /// This replica's ID, chosen at random when the store was created.
    public let replica: ReplicaID
    /// The store's lineage, shared by all its replicas. A new store that has made no
    /// change takes the lineage of the first full delta file it imports.
    public var storeID: StoreID { state.withLock { $0.meta.storeID } }

    let environment: Environment
    let state: Mutex<StoreState>
    let observers = Mutex<Observers>(Observers())

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

        /// Default options: full durability, random replica ID.
        public init() {}
    }

    /// Opens the store in `directory`, creating the directory and a new store (a new
    /// replica with a random ID, a new store ID) when there is none.
    ///
    /// Opening reads the records, the hierarchy and pending changes into memory; texts
    /// are read on first use, each from one snapshot and the few edits made since.
    ///
    /// - Parameters:
    ///   - directory: The store's directory. Keep it out of synced folders.
    ///   - options: Durability, map size, record types.
    /// - Throws: ``StoreError`` for a damaged or incompatible store, or an `LMDBError`
    ///   (for example `.alreadyOpen` when this process has it open already).
    public init(directory: String, options: Options = Options()) throws {
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
        self.directory = directory
        self.environment = environment
        self.replica = loaded.meta.replica
        self.state = Mutex(loaded)
        try register(options.recordTypes)
    }

    /// Writes a checkpoint (fresh snapshots of the texts changed since the last one) and
    /// closes the store; later calls throw. Pending observers finish.
    public func close() throws {
        try state.withLock { state in
            guard !state.isClosed else { return }
            try state.writeCheckpoint()
            state.isClosed = true
            try environment.close()
        }
        for continuation in observers.withLock({ $0.removeAll() }) { continuation.finish() }
    }

    /// Every replica's next counter: what this store has of each.
    public var version: VersionVector { state.withLock { $0.meta.version } }

    /// Reads from a consistent view of the store.
    ///
    /// ```swift
    /// let projects = try store.read { tx in try tx.all(Project.self) }
    /// ```
    ///
    /// - Parameter body: Reads through the transaction; must not call the store.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``StoreError/closed``.
    public func read<R>(_ body: (borrowing StoreReader) throws -> R) throws -> R {
        try state.withLock { state in
            guard !state.isClosed else { throw StoreError.closed }
            // Bound first, then lent: passing `StoreReader(state:)` straight to the generic
            // body crashes Swift 6.3.1's optimizer (GenericSpecializer, "Cannot initialize
            // a nonCopyable type with a guaranteed value").
            let reader = StoreReader(state: state)
            return try body(reader)
        }
    }

    /// Changes the store in one transaction: all of it or nothing.
    ///
    /// When the body returns, everything it did is written as one ``Change`` and
    /// committed (with ``Options/durability`` `.full`, durably) before `write` returns.
    /// When the body throws — a failed validation, an invalid position — or the commit
    /// fails, nothing is written and the store is exactly as before.
    ///
    /// - Parameter body: Makes the changes; must not call the store.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or an error from the commit.
    public func write<R>(_ body: (borrowing StoreWriter) throws -> R) throws -> R {
        let (result, event) = try state.withLock { state -> (R, StoreEvent?) in
            guard !state.isClosed else { throw StoreError.closed }
            state.beginSession()
            do {
                let writer = StoreWriter(state: state)  // bound first, as in `read`
                let result = try body(writer)
                let event = try state.commitSession(origin: .local)
                return (result, event)
            } catch {
                state.rollbackSession()
                throw error
            }
        }
        if let event { publish(event) }
        return result
    }

    /// The changes a replica at `version` lacks, oldest first per replica.
    ///
    /// - Parameter version: The other replica's version; empty for the whole history.
    /// - Throws: ``StoreError/corrupt(database:problem:)`` for a damaged log entry.
    public func changes(since version: VersionVector = VersionVector()) throws -> [Change] {
        try state.withLock { state in
            guard !state.isClosed else { throw StoreError.closed }
            return try state.storedChanges(since: version)
        }
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
        let (report, event) = try state.withLock { state -> (MergeReport, StoreEvent?) in
            guard !state.isClosed else { throw StoreError.closed }
            state.beginSession()
            do {
                var report = try state.integrate(changes.map(IncomingChange.decoded))
                report.nameClashes = state.nameClashes(near: report)
                let event = try state.commitSession(origin: .remote, applied: report.applied)
                return (report, event)
            } catch {
                state.rollbackSession()
                throw error
            }
        }
        if let event { publish(event) }
        return report
    }

    /// Makes the sibling-name checks of `types` known to merges (see
    /// ``Record/siblingNameField``). Types written through this store are known already;
    /// what the store learns is kept in it, so merges after reopening check them too.
    ///
    /// - Throws: ``StoreError/closed``, or an error writing what was learned.
    public func register(_ types: [any Record.Type]) throws {
        try state.withLock { state in
            guard !state.isClosed else { throw StoreError.closed }
            try state.register(types)
        }
    }

    // MARK: Opening

    private static func load(environment: Environment, layout: StoreLayout, options: Options) throws -> StoreState {
        let stored = try environment.read { tx -> StoreState? in
            guard let bytes = try tx.value(forKey: StoreLayout.metaKey, in: layout.meta) else { return nil }
            var meta = try StoreMeta.decode(bytes)
            try StoreState.catchUp(&meta, layout: layout, in: tx)
            guard let tree = try layout.tree.load(in: tx, replica: meta.replica, seed: nil) else {
                throw StoreError.corrupt(database: "tree.meta", problem: "the hierarchy's state record is missing")
            }
            var records: [RecordID: RecordState] = [:]
            var failure: StoreError?
            try tx.scan(layout.records) { key, value in
                do throws(DecodingError) {
                    guard key.count == 16 else { throw .malformed("record key of \(key.count) bytes", at: 0) }
                    records[RecordID(TreeStorageLayout.nodeID(fromKey: key))] = try RecordState.decode(Array(value))
                } catch {
                    failure = .corrupt(database: layout.records.name, problem: error.description)
                    return .stop
                }
                return .continue
            }
            if let failure { throw failure }
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
            let state = StoreState(environment: environment, layout: layout, meta: meta, records: records, tree: tree, pending: pending)
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
            try tx.scan(layout.names) { key, value in
                do throws(DecodingError) {
                    guard key.count == 16 else { throw .malformed("name key of \(key.count) bytes", at: 0) }
                    let node = TreeStorageLayout.nodeID(fromKey: key)  // (replica, position)
                    let (name, firstUse) = try StoreLayout.decodeName(Array(value))
                    var table = state.names[node.replica] ?? ReplicaNames()
                    guard table.count == Int(node.counter), table.note(name, firstUsedAt: firstUse) != nil else {
                        throw .malformed("name table of \(node.replica) is not contiguous", at: 0)
                    }
                    state.names[node.replica] = table
                } catch {
                    failure = .corrupt(database: layout.names.name, problem: error.description)
                    return .stop
                }
                return .continue
            }
            if let failure { throw failure }
            if let bytes = try tx.value(forKey: StoreLayout.nameFieldsKey, in: layout.meta) {
                do throws(DecodingError) {
                    state.nameFields = try StoreLayout.decodeNameFields(bytes)
                } catch {
                    throw StoreError.corrupt(database: layout.meta.name, problem: error.description)
                }
            }
            return state
        }
        if let stored { return stored }
        let replica = options.replica ?? ReplicaID.random()
        let meta = StoreMeta(
            replica: replica, storeID: StoreID.random(), lamport: 0, version: VersionVector([replica: 0]),
            lastDependencies: VersionVector(), checkpoint: VersionVector())
        let tree = try ReplicatedTree(replica: replica)
        try environment.write { tx in
            try tx.put(meta.encoded(), forKey: StoreLayout.metaKey, in: layout.meta)
            try layout.tree.writeInitialState(of: tree, in: tx)
        }
        return StoreState(environment: environment, layout: layout, meta: meta, records: [:], tree: tree, pending: [:])
    }
}
