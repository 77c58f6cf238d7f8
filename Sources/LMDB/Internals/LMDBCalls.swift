#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLMDB

/// The one place where Swift calls into LMDB.
///
/// Every `mdb_*` call of the package goes through a method here, which first asks the
/// environment's ``FaultInjector`` (tests only) whether the call should fail. Without an
/// injector the methods are direct pass-throughs. Return values are LMDB's raw codes;
/// callers turn non-zero ones into ``LMDBError``s with the context they know.
///
/// The point read (``get(_:_:_:_:)``) is inlinable, so that a read in another module
/// calls `mdb_get` directly; the injector, an SPI type, stays out of its inlined code.
@usableFromInline
struct LMDBCalls: Sendable {
    /// Unowned: the environment's configuration holds the injector, and every copy of the
    /// calls lives in the environment or in a transaction that keeps it alive, so a
    /// transaction's copy costs no reference count.
    unowned(unsafe) let faults: FaultInjector?
    /// Whether ``faults`` is set: what inlined calls check before asking it.
    @usableFromInline let injectsFaults: Bool

    init(faults: FaultInjector?) {
        self.faults = faults
        injectsFaults = faults != nil
    }

    @inline(__always)
    private func injected(_ call: FaultInjector.Call) -> Int32? {
        guard let faults else { return nil }
        return faults.takeFailure(for: call)
    }

    // MARK: Environment

    func envCreate(_ env: inout OpaquePointer?) -> Int32 { mdb_env_create(&env) }

    func envSetMapSize(_ env: OpaquePointer, _ size: Int) -> Int32 {
        injected(.setMapSize) ?? mdb_env_set_mapsize(env, size)
    }

    func envSetMaxReaders(_ env: OpaquePointer, _ readers: UInt32) -> Int32 {
        mdb_env_set_maxreaders(env, readers)
    }

    func envSetMaxDatabases(_ env: OpaquePointer, _ count: UInt32) -> Int32 {
        mdb_env_set_maxdbs(env, MDB_dbi(count))
    }

    func envOpen(_ env: OpaquePointer, _ path: String, _ flags: UInt32, _ mode: mdb_mode_t) -> Int32 {
        injected(.openEnvironment) ?? mdb_env_open(env, path, flags, mode)
    }

    func envClose(_ env: OpaquePointer) { mdb_env_close(env) }

    func envInfo(_ env: OpaquePointer, _ info: inout MDB_envinfo) -> Int32 { mdb_env_info(env, &info) }

    func envStat(_ env: OpaquePointer, _ stat: inout MDB_stat) -> Int32 { mdb_env_stat(env, &stat) }

    func envSync(_ env: OpaquePointer, force: Bool) -> Int32 {
        injected(.sync) ?? mdb_env_sync(env, force ? 1 : 0)
    }

    func envCopy(_ env: OpaquePointer, _ path: String, compacting: Bool) -> Int32 {
        injected(.copy) ?? mdb_env_copy2(env, path, compacting ? UInt32(MDB_CP_COMPACT) : 0)
    }

    func envMaxKeySize(_ env: OpaquePointer) -> Int32 { mdb_env_get_maxkeysize(env) }

    func readerCheck(_ env: OpaquePointer, _ dead: inout Int32) -> Int32 { mdb_reader_check(env, &dead) }

    // MARK: Transactions

    func txnBegin(_ env: OpaquePointer, readOnly: Bool, _ txn: inout OpaquePointer?) -> Int32 {
        injected(.beginTransaction) ?? mdb_txn_begin(env, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn)
    }

    /// Commits, or — when a failure is injected — aborts, so the handle is freed either
    /// way, exactly as a real failed `mdb_txn_commit` frees it.
    func txnCommit(_ txn: OpaquePointer) -> Int32 {
        if let code = injected(.commit) {
            mdb_txn_abort(txn)
            return code
        }
        return mdb_txn_commit(txn)
    }

    func txnAbort(_ txn: OpaquePointer) { mdb_txn_abort(txn) }

    /// Ends a read transaction but keeps its handle and reader slot for ``txnRenew(_:)``.
    func txnReset(_ txn: OpaquePointer) { mdb_txn_reset(txn) }

    /// Starts a reset read transaction again on the latest commit.
    func txnRenew(_ txn: OpaquePointer) -> Int32 {
        injected(.renewTransaction) ?? mdb_txn_renew(txn)
    }

    @inlinable
    func txnID(_ txn: OpaquePointer) -> Int { mdb_txn_id(txn) }

    // MARK: Databases

    func dbiOpen(_ txn: OpaquePointer, _ name: String, _ flags: UInt32, _ dbi: inout MDB_dbi) -> Int32 {
        injected(.openDatabase) ?? mdb_dbi_open(txn, name, flags, &dbi)
    }

    func dbiStat(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ stat: inout MDB_stat) -> Int32 {
        mdb_stat(txn, dbi, &stat)
    }

    func drop(_ txn: OpaquePointer, _ dbi: MDB_dbi, delete: Bool) -> Int32 {
        mdb_drop(txn, dbi, delete ? 1 : 0)
    }

    // MARK: Data

    @inlinable
    func get(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: inout MDB_val, _ data: inout MDB_val) -> Int32 {
        if injectsFaults, let code = injectedGetFailure() { return code }
        return mdb_get(txn, dbi, &key, &data)
    }

    @usableFromInline
    func injectedGetFailure() -> Int32? { injected(.get) }

    func put(
        _ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: inout MDB_val, _ data: inout MDB_val, _ flags: UInt32
    ) -> Int32 {
        injected(.put) ?? mdb_put(txn, dbi, &key, &data, flags)
    }

    func delete(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: inout MDB_val) -> Int32 {
        injected(.delete) ?? mdb_del(txn, dbi, &key, nil)
    }

    // MARK: Cursors

    func cursorOpen(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ cursor: inout OpaquePointer?) -> Int32 {
        mdb_cursor_open(txn, dbi, &cursor)
    }

    func cursorClose(_ cursor: OpaquePointer) { mdb_cursor_close(cursor) }

    func cursorGet(
        _ cursor: OpaquePointer, _ key: inout MDB_val, _ data: inout MDB_val, _ op: MDB_cursor_op
    ) -> Int32 {
        injected(.cursorGet) ?? mdb_cursor_get(cursor, &key, &data, op)
    }

    /// Deletes the entry under the cursor. Only ever used on databases without
    /// `MDB_DUPSORT` (the layer never creates those), where liblmdb 0.9.24 is sound.
    func cursorDelete(_ cursor: OpaquePointer) -> Int32 {
        injected(.cursorDelete) ?? mdb_cursor_del(cursor, 0)
    }

    // MARK: File system

    /// The bytes this process may still write on the file system holding `path`
    /// (`statvfs`: the blocks available to unprivileged users, or all free blocks for
    /// root, who may use the reserved ones), or `nil` when that cannot be found out.
    /// Tests inject the answer through ``FaultInjector/reportFreeSpace(_:)``.
    func freeSpace(atPath path: String) -> Int? {
        if let injected = faults?.injectedFreeSpace() { return injected }
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let blocks = geteuid() == 0 ? info.f_bfree : info.f_bavail
        let (bytes, overflow) = Int(clamping: blocks).multipliedReportingOverflow(by: Int(clamping: info.f_frsize))
        return overflow ? Int.max : bytes
    }

    // MARK: Library

    static func version() -> (major: Int, minor: Int, patch: Int) {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        _ = mdb_version(&major, &minor, &patch)
        return (Int(major), Int(minor), Int(patch))
    }
}
