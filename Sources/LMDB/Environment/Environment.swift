#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLMDB
import Dispatch
import Synchronization

/// An LMDB environment: one memory-mapped database file (`data.mdb`) and its lock file
/// (`lock.mdb`) in a directory, holding any number of named databases.
///
/// ```swift
/// let environment = try Environment(path: directory)
/// let notes = try environment.openDatabase(named: "notes")
/// try environment.write { tx in
///     try tx.put(Array("hello".utf8), forKey: Key(UInt64(1)), in: notes)
/// }
/// let value = try environment.read { tx in try tx.value(forKey: Key(UInt64(1)), in: notes) }
/// ```
///
/// ## Rules
///
/// - Open **one** `Environment` per file per process and share it; LMDB's locks are per
///   process, and a second handle in the same process breaks them.
/// - ``read(_:)`` may be called from any thread, concurrently. ``write(_:)`` calls are
///   serialised: one writer at a time in the process, and LMDB also serialises writers
///   across processes. A write inside a write on the same thread throws
///   ``LMDBError/Code/nestedWrite`` instead of deadlocking.
/// - Transaction bodies are synchronous. A write commits when its body returns and aborts
///   when it throws. Values read inside a transaction are valid only inside it; the API
///   hands them out as buffers inside closures, or as copies.
/// - **A write body may run more than once.** When the memory map is full, the write is
///   aborted, the map grows (doubling) while no transaction is open in the process, and
///   the body runs again. Keep bodies free of outside side effects.
/// - Keep read transactions short: a reader pins the pages of its snapshot, and map growth
///   waits for every open transaction in the process to end.
///
/// Thread-safe: `Environment` is `Sendable`.
public final class Environment: Sendable {
    /// The directory holding the environment's files.
    public let path: String
    /// The configuration the environment was opened with.
    public let configuration: Configuration
    /// How many reader slots left behind by dead processes were cleared at open.
    public let staleReadersClearedAtOpen: Int

    /// The longest key the environment accepts, in bytes (511 for Debian's liblmdb).
    public let maxKeySize: Int

    let calls: LMDBCalls
    /// This instance, as database handles remember it.
    let identity = EnvironmentIdentity.unique()
    private let file: EnvironmentRegistry.FileIdentity?
    private let handle: EnvironmentHandle
    let gate = TransactionGate()
    let idleReaders: IdleReaders
    private let currentMapSize: Atomic<Int>
    private let closed = Atomic<Bool>(false)
    /// Handles opened so far, by name. Held only for dictionary access.
    private let openDatabases = Mutex<[String: Database]>([:])
    /// Serialises `mdb_dbi_open`, which LMDB forbids in concurrent transactions.
    private let databaseOpening = Mutex<Void>(())

    /// Opens the environment in the directory at `path`, creating the directory and the
    /// files when they do not exist.
    ///
    /// Stale reader slots left by crashed processes are cleared (`mdb_reader_check`).
    ///
    /// - Parameters:
    ///   - path: A directory; created (with its parents' existence required) if missing.
    ///   - configuration: Map size, limits, durability. See ``Configuration``.
    /// - Throws: ``LMDBError`` naming the path: e.g. ``LMDBError/Code/permissionDenied``,
    ///   ``LMDBError/Code/invalidFile`` for a file that is not LMDB's,
    ///   ``LMDBError/Code/truncatedFile`` for a `data.mdb` shorter than its meta pages say
    ///   (checked with plain file reads before LMDB maps the file),
    ///   ``LMDBError/Code/alreadyOpen`` when this process already has it open.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        self.configuration = configuration
        let calls = LMDBCalls(faults: configuration.faultInjector)
        self.calls = calls
        // A few, and none where slots are scarce: each kept reader holds one.
        self.idleReaders = IdleReaders(capacity: min(4, configuration.maxReaders / 8))

        if !configuration.readOnly {
            let directoryMode = configuration.fileMode | ((configuration.fileMode & 0o444) >> 2)
            if mkdir(path, directoryMode) != 0 && errno != EEXIST {
                throw LMDBError(.init(rawValue: errno), operation: .openEnvironment, context: path)
            }
        }

        // LMDB maps the file and trusts its meta pages; a file cut short would open and
        // then fault (SIGBUS) at the first read of a missing page.
        try DataFileCheck.requireComplete(directory: path)

        // Refuse a second handle before LMDB sees it: opening resets the reader table.
        let (env, file) = try EnvironmentRegistry.opening(path) { () throws -> OpaquePointer in
            try Self.openHandle(path: path, configuration: configuration, calls: calls)
        }
        self.file = file
        self.handle = EnvironmentHandle(pointer: env)
        self.maxKeySize = Int(calls.envMaxKeySize(env))
        var dead: Int32 = 0
        let rc = calls.readerCheck(env, &dead)
        self.staleReadersClearedAtOpen = rc == 0 ? Int(dead) : 0
        var info = MDB_envinfo()
        _ = calls.envInfo(env, &info)
        self.currentMapSize = Atomic(info.me_mapsize)
    }

    deinit {
        // No transaction can be open: each runs inside a method of `self`, and an owned
        // read (``beginRead()``) keeps `self` alive until it ends. A pending reset of
        // kept readers holds the gate, not `self`: closing waits for it like for a reader.
        _ = try? gate.exclusively(operation: .close, closing: true) { () throws(LMDBError) in closeHandle() }
        closeHandle()  // does nothing when closed above
    }

    /// Closes the environment, waiting for transactions open on other threads to end.
    /// Later calls throw ``LMDBError/Code/environmentClosed``. Closing twice does nothing.
    ///
    /// - Throws: ``LMDBError/Code/insideTransaction`` when called inside a transaction body.
    public func close() throws {
        if gate.callingThreadHoldsTransaction {
            throw LMDBError(.insideTransaction, operation: .close, context: path)
        }
        try gate.exclusively(operation: .close, closing: true) { () throws(LMDBError) in
            closeHandle()
        }
    }

    /// Creates and opens an `MDB_env` for `path`, or throws with it released.
    private static func openHandle(path: String, configuration: Configuration, calls: LMDBCalls) throws -> OpaquePointer {
        var env: OpaquePointer?
        var rc = calls.envCreate(&env)
        guard rc == 0, let env else {
            throw LMDBError(.init(rawValue: rc), operation: .openEnvironment, context: path)
        }
        let pageSize = 4096
        let requested = min(max(configuration.mapSize, pageSize * 4), Int.max / 4)
        let mapSize = (requested + pageSize - 1) / pageSize * pageSize
        var flags = UInt32(MDB_NOTLS)
        switch configuration.durability {
        case .full: break
        case .noMetaSync: flags |= UInt32(MDB_NOMETASYNC)
        case .noSync: flags |= UInt32(MDB_NOSYNC)
        }
        if configuration.readOnly { flags |= UInt32(MDB_RDONLY) }
        if !configuration.usesLockFile { flags |= UInt32(MDB_NOLOCK) }
        rc = calls.envSetMapSize(env, mapSize)
        if rc == 0 { rc = calls.envSetMaxReaders(env, UInt32(clamping: configuration.maxReaders)) }
        if rc == 0 { rc = calls.envSetMaxDatabases(env, UInt32(clamping: configuration.maxDatabases)) }
        if rc == 0 { rc = calls.envOpen(env, path, flags, configuration.fileMode) }
        guard rc == 0 else {
            calls.envClose(env)
            throw LMDBError(.init(rawValue: rc), operation: .openEnvironment, context: path)
        }
        return env
    }

    /// Closes the `MDB_env` once and lets the directory be opened again. Only called
    /// while no transaction is open.
    private func closeHandle() {
        if closed.exchange(true, ordering: .acquiringAndReleasing) { return }
        idleReaders.abortAll(calls: calls)
        calls.envClose(handle.pointer)
        if let file { EnvironmentRegistry.unregister(file) }
    }

    // MARK: Transactions

    /// Runs `body` in a read-only transaction that sees one consistent snapshot: the last
    /// commit before it began. Writers, in this process or others, do not block it.
    ///
    /// - Parameter body: Reads through the transaction. It must not let values or the
    ///   transaction escape.
    /// - Returns: What `body` returns.
    /// - Throws: ``LMDBError`` if the transaction cannot begin (e.g.
    ///   ``LMDBError/Code/readersFull``), or what `body` throws.
    @inlinable
    public func read<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        let transaction = try beginRead(owned: false)
        return try body(transaction)
    }

    /// Begins a read-only transaction that the caller owns: it sees the last commit
    /// before it began, and ends when the caller lets it go (it is noncopyable).
    ///
    /// For a snapshot that must outlive one closure, such as a store's read transaction
    /// held by a noncopyable value. Writers, in this process or others, do not block it;
    /// while it is open this process cannot grow the map, so keep it short.
    ///
    /// Ending it keeps it open, with its handle and reader slot (up to a few): the next
    /// read uses it as it is while nothing was committed since, and renews it onto the
    /// latest commit otherwise, instead of beginning anew. A point read then costs little
    /// more than its `mdb_get`. A kept transaction is reset (it pins nothing) when this
    /// process next writes, and shortly after a read kept it (10 ms, the default
    /// `idleReaderLifetime`).
    ///
    /// - Important: End it on the thread that began it, as with ``read(_:)``.
    /// - Throws: ``LMDBError`` if the transaction cannot begin (e.g.
    ///   ``LMDBError/Code/readersFull``, ``LMDBError/Code/environmentClosed``).
    @inlinable
    public func beginRead() throws -> ReadTransaction {
        try beginRead(owned: true)
    }

    /// A read transaction; `owned` when it may outlive the caller's hold on `self`.
    @usableFromInline
    func beginRead(owned: Bool) throws -> ReadTransaction {
        while true {
            // Noted before a kept transaction is taken: a count that moves after is seen
            // when it ends.
            let invalidations = IdleReaders.invalidations
            guard let txn = try beginTransaction(readOnly: true) else { continue }
            return ReadTransaction(handle: txn, environment: self, owned: owned, invalidationsAtBegin: invalidations)
        }
    }

    /// Runs `body` in a write transaction, which commits when `body` returns and aborts
    /// (leaving the database exactly as it was) when `body` throws.
    ///
    /// Writers are serialised; this call waits for a writer on another thread or process
    /// to finish. When the map fills up the layer aborts, grows the map and **runs `body`
    /// again**, so `body` must have no side effects outside the transaction.
    ///
    /// - Parameter body: Reads and writes through the transaction.
    /// - Returns: What `body` returns.
    /// - Throws: ``LMDBError/Code/nestedWrite`` when this thread already writes;
    ///   ``LMDBError`` for a failed commit (``LMDBError/Code/noSpace``, also when LMDB
    ///   reports a short write on a full disk as `EIO`, see
    ///   ``LMDBError/diskFullThreshold``; ``LMDBError/Code/ioError``) or a map that reached
    ///   ``Configuration/maximumMapSize``; or what `body` throws.
    public func write<R>(_ body: (borrowing WriteTransaction) throws -> R) throws -> R {
        if configuration.readOnly {
            throw LMDBError(.permissionDenied, operation: .beginTransaction, context: path,
                            detail: "the environment was opened read-only")
        }
        while true {
            let mapSizeAtStart = currentMapSize.load(ordering: .relaxed)
            guard let txn = try beginTransaction(readOnly: false) else { continue }

            let state = WriteState()
            // No `Result` of the body: its type is generic here, so the runtime would build
            // its metadata on every write.
            let value: R
            do {
                value = try body(WriteTransaction(handle: txn, calls: calls, state: state, environment: identity))
            } catch {
                calls.txnAbort(txn)
                gate.leave(writing: true)
                // A full map poisons the transaction even if the body caught the error.
                if state.mapFull {
                    try growMap(beyond: mapSizeAtStart)
                    continue
                }
                throw error
            }
            if state.mapFull {
                calls.txnAbort(txn)
                gate.leave(writing: true)
                try growMap(beyond: mapSizeAtStart)
                continue
            }
            let rc = calls.txnCommit(txn)
            gate.leave(writing: true)
            if rc == MDB_MAP_FULL {
                try growMap(beyond: mapSizeAtStart)
                continue
            }
            guard rc == 0 else {
                let free = rc == EIO ? calls.freeSpace(atPath: path) : nil
                throw LMDBError.failedCommit(rc, path: path, freeSpace: free)
            }
            return value
        }
    }

    // MARK: Databases

    /// Opens the named database, creating it when `options` contains ``DatabaseOptions/create``.
    ///
    /// Call this before starting transactions that use the database, typically once after
    /// opening the environment; handles are cached, so opening again is cheap.
    ///
    /// - Parameters:
    ///   - name: A non-empty name without NUL characters.
    ///   - options: ``DatabaseOptions/create`` (the default) to create a missing database.
    /// - Returns: A handle valid for the life of the environment.
    /// - Throws: ``LMDBError/Code/notFound`` for a missing database without `.create`,
    ///   ``LMDBError/Code/databasesFull`` beyond ``Configuration/maxDatabases``,
    ///   ``LMDBError/Code/invalidName``, or ``LMDBError/Code/insideTransaction`` when called
    ///   inside a transaction body.
    public func openDatabase(named name: String, options: DatabaseOptions = [.create]) throws -> Database {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw LMDBError(.invalidName, operation: .openDatabase, context: "database \"\(name)\"")
        }
        if let cached = openDatabases.withLock({ $0[name] }) { return cached }
        // Waiting for the lock below while this thread holds a transaction could deadlock
        // against a thread that holds the lock and waits for LMDB's writer lock.
        if gate.callingThreadHoldsTransaction {
            throw LMDBError(.insideTransaction, operation: .openDatabase, context: "database \"\(name)\"")
        }
        let create = options.contains(.create) && !configuration.readOnly
        let context = "database \"\(name)\" in \(path)"
        // The handle only outlives the transaction that opened it if that one commits.
        let open = { (tx: borrowing WriteTransaction) throws -> Database in
            try self.openDatabaseHandle(named: name, create: create, txn: tx.handle, context: context)
        }
        return try databaseOpening.withLock { _ throws -> Database in
            if let cached = openDatabases.withLock({ $0[name] }) { return cached }
            let database: Database
            if create {
                database = try write(open)
            } else {
                database = try readCommitting { txn in
                    try self.openDatabaseHandle(named: name, create: false, txn: txn, context: context)
                }
            }
            openDatabases.withLock { $0[name] = database }
            return database
        }
    }

    private func openDatabaseHandle(
        named name: String, create: Bool, txn: OpaquePointer, context: String
    ) throws -> Database {
        var dbi: MDB_dbi = 0
        let rc = calls.dbiOpen(txn, name, create ? UInt32(MDB_CREATE) : 0, &dbi)
        guard rc == 0 else {
            let detail = rc == MDB_NOTFOUND ? "no database with that name; open it with .create" : nil
            throw LMDBError(.init(rawValue: rc), operation: .openDatabase, context: context, detail: detail)
        }
        return Database(name: name, handle: dbi, environment: identity)
    }

    /// A read-only transaction that is committed rather than aborted, which keeps the
    /// database handles it opened.
    ///
    /// A new transaction, not a kept one, and afterwards every kept open one is reset:
    /// each knows only the databases open when it began or was renewed, and LMDB would
    /// refuse the new handle in it — or, opening another database in it, reuse the new
    /// handle's slot for that one (see ``IdleReaders/invalidations``).
    private func readCommitting<R>(_ body: (OpaquePointer) throws -> R) throws -> R {
        while true {
            guard let txn = try beginTransaction(readOnly: true, reusingKept: false) else { continue }
            defer { gate.leave(writing: false) }
            let value: R
            do { value = try body(txn) } catch {
                calls.txnAbort(txn)
                throw error
            }
            let rc = calls.txnCommit(txn)
            guard rc == 0 else { throw LMDBError(.init(rawValue: rc), operation: .commit, context: path) }
            IdleReaders.invalidateOpen()
            idleReaders.resetOpen(calls: calls)
            return value
        }
    }

    /// Registers with the gate and begins a transaction — a reader by taking one an
    /// earlier read kept (see ``IdleReaders``) when there is one. Returns `nil`
    /// (registered with nothing) when another process had grown the map: the new size has
    /// been adopted and the caller begins again.
    @usableFromInline
    func beginTransaction(readOnly: Bool, reusingKept: Bool = true) throws -> OpaquePointer? {
        try gate.enter(writing: !readOnly, operation: .beginTransaction)
        if readOnly && reusingKept, let kept = idleReaders.latest(in: handle.pointer, calls: calls) { return kept }
        var txn: OpaquePointer?
        let rc = calls.txnBegin(handle.pointer, readOnly: readOnly, &txn)
        if rc == 0, let txn {
            // Kept readers of this process must not pin the snapshot this write replaces.
            if !readOnly { idleReaders.resetOpen(calls: calls) }
            return txn
        }
        gate.leave(writing: !readOnly)
        guard rc == MDB_MAP_RESIZED else {
            throw LMDBError(.init(rawValue: rc), operation: .beginTransaction, context: path)
        }
        try adoptMapGrownElsewhere()
        return nil
    }

    /// Ends the read transaction `handle`, which began when ``IdleReaders/invalidations``
    /// was `invalidationsAtBegin` — kept open for the next read, a reset of kept readers
    /// scheduled within ``Configuration/idleReaderLifetime`` — and then leaves the gate:
    /// once the gate counts no transaction, none is running, which closing and map
    /// growth rely on (they reset or abort the kept ones, which nothing uses then).
    func endRead(_ handle: OpaquePointer, invalidationsAtBegin: Int) {
        if idleReaders.end(handle, calls: calls) {
            // Kept, then checked: a transaction that failed, or a database opened since it
            // began, is reset here, or by the one that counted it after this was kept.
            if IdleReaders.invalidations != invalidationsAtBegin { idleReaders.resetOpen(calls: calls) }
            if !idleReaders.resetScheduled.load(ordering: .sequentiallyConsistent) { scheduleIdleReaderReset() }
        }
        gate.leave(writing: false)
    }

    /// Schedules a reset of the kept open readers, ``Configuration/idleReaderLifetime``
    /// from now, unless one is pending. The task holds the gate and the kept readers, not
    /// the environment: it never delays the environment's deinitialization, which waits
    /// for a running reset through the gate as closing does; after a close it does nothing.
    private func scheduleIdleReaderReset() {
        guard !idleReaders.resetScheduled.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let (seconds, attoseconds) = configuration.idleReaderLifetime.components
        let delay = Int(min(max(seconds, 0), 86_400)) * 1_000_000_000 + Int(max(attoseconds, 0) / 1_000_000_000)
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(delay)) { [gate, idleReaders, calls] in
            // Cleared first: a read that keeps a transaction after this reset schedules the next.
            idleReaders.resetScheduled.store(false, ordering: .sequentiallyConsistent)
            do { try gate.enter(writing: false, operation: .beginTransaction) } catch { return }
            idleReaders.resetOpen(calls: calls)
            gate.leave(writing: false)
        }
    }

    // MARK: Map size

    /// Doubles the map (up to ``Configuration/maximumMapSize``), unless another writer
    /// already grew it past `observed`.
    private func growMap(beyond observed: Int) throws {
        try gate.exclusively(operation: .growMap) { () throws(LMDBError) in
            let current = currentMapSize.load(ordering: .relaxed)
            if current > observed { return }
            var target = current.multipliedReportingOverflow(by: 2).overflow ? Int.max : current * 2
            if let limit = configuration.maximumMapSize {
                guard current < limit else {
                    throw LMDBError(.mapFull, operation: .growMap, context: path,
                                    detail: "the map reached Configuration.maximumMapSize (\(limit) bytes)")
                }
                target = min(target, limit)
            }
            try setMapSize(target)
        }
    }

    /// Adopts the larger map another process committed (`MDB_MAP_RESIZED`).
    private func adoptMapGrownElsewhere() throws {
        try gate.exclusively(operation: .growMap) { () throws(LMDBError) in try setMapSize(0) }
    }

    /// Resizes the map; called only while no transaction is open.
    ///
    /// A failed `mdb_env_set_mapsize` has already unmapped the old map and leaves the
    /// `MDB_env` unusable (liblmdb 0.9.24 keeps no mapping to fall back to), so the
    /// environment is closed for good and later calls throw
    /// ``LMDBError/Code/environmentFailed``. The file on disk is untouched.
    private func setMapSize(_ size: Int) throws(LMDBError) {
        idleReaders.resetOpen(calls: calls)  // no kept transaction reads the old map
        let rc = calls.envSetMapSize(handle.pointer, size)
        guard rc == 0 else {
            gate.markFailed()
            closeHandle()
            throw LMDBError(.init(rawValue: rc), operation: .growMap, context: path,
                            detail: "the memory map could not be resized (\(LMDBError.Code(rawValue: rc).name)), "
                                + "so the environment was closed; the data on disk is intact. Free memory or "
                                + "address space, then open it again")
        }
        var info = MDB_envinfo()
        _ = calls.envInfo(handle.pointer, &info)
        currentMapSize.store(info.me_mapsize, ordering: .relaxed)
    }

    // MARK: Maintenance

    /// Facts about the environment: map size, pages used, last transaction, readers.
    ///
    /// - Throws: ``LMDBError/Code/environmentClosed`` after ``close()``.
    public func info() throws -> EnvironmentInfo {
        try withOpenHandle(.statistics) { env in
            var info = MDB_envinfo()
            let rc = calls.envInfo(env, &info)
            guard rc == 0 else { throw LMDBError(.init(rawValue: rc), operation: .statistics, context: path) }
            return EnvironmentInfo(
                mapSize: info.me_mapsize, lastPageNumber: info.me_last_pgno,
                lastTransactionID: info.me_last_txnid, maxReaders: Int(info.me_maxreaders),
                readersUsed: Int(info.me_numreaders))
        }
    }

    /// Statistics of the environment's main B-tree, which holds the named databases' roots.
    /// For one database's statistics use ``ReadableTransaction/statistics(of:)``.
    ///
    /// - Throws: ``LMDBError/Code/environmentClosed`` after ``close()``.
    public func statistics() throws -> DatabaseStatistics {
        try withOpenHandle(.statistics) { env in
            var stat = MDB_stat()
            let rc = calls.envStat(env, &stat)
            guard rc == 0 else { throw LMDBError(.init(rawValue: rc), operation: .statistics, context: path) }
            return DatabaseStatistics(stat)
        }
    }

    /// Flushes committed data to disk. Needed only with ``Durability/noSync`` or
    /// ``Durability/noMetaSync``; with ``Durability/full`` every commit already did it.
    ///
    /// - Parameter force: Flush even when the durability mode says not to (the usual intent).
    /// - Throws: ``LMDBError`` such as ``LMDBError/Code/ioError``.
    public func sync(force: Bool = true) throws {
        try withOpenHandle(.sync) { env in
            let rc = calls.envSync(env, force: force)
            guard rc == 0 else { throw LMDBError(.init(rawValue: rc), operation: .sync, context: path) }
        }
    }

    /// Writes a consistent copy of the environment into the directory `destination`
    /// (a backup), while readers and writers carry on.
    ///
    /// - Parameters:
    ///   - destination: A directory that does not exist or is empty; created if missing.
    ///   - compacting: Omit free pages and renumber the rest (`MDB_CP_COMPACT`), so the copy
    ///     is as small as the live data. Slower than a plain copy.
    /// - Throws: ``LMDBError`` naming the destination; ``LMDBError/Code/insideTransaction``
    ///   inside a transaction body.
    public func copy(to destination: String, compacting: Bool = true) throws {
        // A plain copy takes LMDB's writer lock, which a write on this thread holds.
        if gate.callingThreadHoldsTransaction {
            throw LMDBError(.insideTransaction, operation: .copy, context: destination)
        }
        if mkdir(destination, 0o755) != 0 && errno != EEXIST {
            throw LMDBError(.init(rawValue: errno), operation: .copy, context: destination)
        }
        // The copy reads through a transaction of its own, which pins the map like ours.
        try gate.enter(writing: false, operation: .copy)
        defer { gate.leave(writing: false) }
        let rc = calls.envCopy(handle.pointer, destination, compacting: compacting)
        guard rc == 0 else { throw LMDBError(.init(rawValue: rc), operation: .copy, context: destination) }
    }

    /// Clears reader slots left behind by processes that died (`mdb_reader_check`).
    ///
    /// - Returns: The number of slots cleared.
    @discardableResult
    public func clearStaleReaders() throws -> Int {
        try withOpenHandle(.readerCheck) { env in
            var dead: Int32 = 0
            let rc = calls.readerCheck(env, &dead)
            guard rc == 0 else { throw LMDBError(.init(rawValue: rc), operation: .readerCheck, context: path) }
            return Int(dead)
        }
    }

    /// The version of the linked liblmdb.
    public static var libraryVersion: (major: Int, minor: Int, patch: Int) { LMDBCalls.version() }

    private func withOpenHandle<R>(_ operation: LMDBError.Operation, _ body: (OpaquePointer) throws -> R) throws -> R {
        try gate.enter(writing: false, operation: operation)
        defer { gate.leave(writing: false) }
        return try body(handle.pointer)
    }
}

/// The `MDB_env` pointer. `@unchecked Sendable`: LMDB environments are safe to use from
/// any thread (the library synchronises internally, and `MDB_NOTLS` unties readers from
/// threads); the pointer itself is immutable.
private struct EnvironmentHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Per-write-transaction flags the layer needs after the body ran.
final class WriteState {
    /// A put or delete hit `MDB_MAP_FULL`; the transaction must be aborted and retried.
    var mapFull = false
}

extension DatabaseStatistics {
    init(_ stat: MDB_stat) {
        self.init(
            pageSize: Int(stat.ms_psize), depth: Int(stat.ms_depth), branchPages: stat.ms_branch_pages,
            leafPages: stat.ms_leaf_pages, overflowPages: stat.ms_overflow_pages, entries: stat.ms_entries)
    }
}
