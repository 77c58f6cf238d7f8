import CLMDB

/// The same work as the layer's, done with bare `mdb_*` calls: the baseline that
/// `quire bench lmdb` measures the layer's overhead against.
///
/// It opens its own environment with the flags ``Environment`` uses (`MDB_NOTLS`, the
/// chosen durability) and one database, and does no locking, no bookkeeping and no
/// error context. Not for use outside benchmarks: it has none of the layer's safety.
@_spi(Benchmarks)
public final class RawLMDBBaseline {
    private let calls = LMDBCalls(faults: nil)
    private let env: OpaquePointer
    private let dbi: MDB_dbi
    /// A read transaction reset after its read, for ``copyValueRenewing(for:)``.
    private var keptReader: OpaquePointer?

    /// Opens (creating) an environment in the existing directory `path`.
    public init(path: String, mapSize: Int, durability: Environment.Durability) throws {
        var env: OpaquePointer?
        var rc = calls.envCreate(&env)
        guard rc == 0, let env else { throw LMDBError(.init(rawValue: rc), operation: .openEnvironment) }
        var flags = UInt32(MDB_NOTLS)
        if durability == .noSync { flags |= UInt32(MDB_NOSYNC) }
        if durability == .noMetaSync { flags |= UInt32(MDB_NOMETASYNC) }
        rc = calls.envSetMapSize(env, mapSize)
        if rc == 0 { rc = calls.envSetMaxDatabases(env, 4) }
        if rc == 0 { rc = calls.envOpen(env, path, flags, 0o644) }
        var txn: OpaquePointer?
        if rc == 0 { rc = calls.txnBegin(env, readOnly: false, &txn) }
        var dbi: MDB_dbi = 0
        if rc == 0, let txn {
            rc = calls.dbiOpen(txn, "bench", UInt32(MDB_CREATE), &dbi)
            rc = rc == 0 ? calls.txnCommit(txn) : rc
        }
        guard rc == 0 else {
            calls.envClose(env)
            throw LMDBError(.init(rawValue: rc), operation: .openEnvironment, context: path)
        }
        self.env = env
        self.dbi = dbi
    }

    deinit {
        if let keptReader { calls.txnAbort(keptReader) }
        calls.envClose(env)
    }

    /// Commits one transaction that puts each of `entries`.
    public func commit(_ entries: [(key: [UInt8], value: [UInt8])]) throws {
        var txn: OpaquePointer?
        var rc = calls.txnBegin(env, readOnly: false, &txn)
        guard rc == 0, let txn else { throw LMDBError(.init(rawValue: rc), operation: .beginTransaction) }
        for entry in entries where rc == 0 {
            rc = entry.key.withUnsafeBytes { key in
                entry.value.withUnsafeBytes { value in
                    var keyValue = MDB_val(key)
                    var dataValue = MDB_val(value)
                    return calls.put(txn, dbi, &keyValue, &dataValue, 0)
                }
            }
        }
        guard rc == 0 else {
            calls.txnAbort(txn)
            throw LMDBError(.init(rawValue: rc), operation: .put)
        }
        rc = calls.txnCommit(txn)
        guard rc == 0 else { throw LMDBError(.init(rawValue: rc), operation: .commit) }
    }

    /// Begins a read transaction, gets `key`, and returns the value's length (or -1).
    public func readLength(ofValueFor key: [UInt8]) throws -> Int {
        try withValue(for: key) { $0?.count ?? -1 }
    }

    /// Begins a read transaction, gets `key`, and returns a copy of its value (or `nil`):
    /// what a reader that keeps the value, such as a decoder, has to do at least.
    public func copyValue(for key: [UInt8]) throws -> [UInt8]? {
        try withValue(for: key) { $0.map { [UInt8]($0) } }
    }

    /// As ``copyValue(for:)``, but renewing one kept read transaction (`mdb_txn_renew`,
    /// then `mdb_txn_reset`) instead of beginning and aborting one: what the layer's reads
    /// do when something was committed since the last read (see `IdleReaders`).
    public func copyValueRenewing(for key: [UInt8]) throws -> [UInt8]? {
        var rc: Int32 = 0
        if let kept = keptReader {
            rc = calls.txnRenew(kept)
            if rc != 0 {
                calls.txnAbort(kept)
                keptReader = nil
            }
        } else {
            rc = calls.txnBegin(env, readOnly: true, &keptReader)
        }
        guard rc == 0, let txn = keptReader else { throw LMDBError(.init(rawValue: rc), operation: .beginTransaction) }
        defer { calls.txnReset(txn) }
        return value(for: key, in: txn).map { [UInt8]($0) }
    }

    /// One read transaction, one `mdb_get`: `body` sees the value in place (`nil` when absent).
    private func withValue<R>(for key: [UInt8], _ body: (UnsafeRawBufferPointer?) -> R) throws -> R {
        var txn: OpaquePointer?
        let rc = calls.txnBegin(env, readOnly: true, &txn)
        guard rc == 0, let txn else { throw LMDBError(.init(rawValue: rc), operation: .beginTransaction) }
        defer { calls.txnAbort(txn) }
        return body(value(for: key, in: txn))
    }

    /// One `mdb_get` in `txn`: the value in place, valid until `txn` ends (`nil` when absent).
    private func value(for key: [UInt8], in txn: OpaquePointer) -> UnsafeRawBufferPointer? {
        var data = MDB_val()
        let found = key.withUnsafeBytes { key in
            var keyValue = MDB_val(key)
            return calls.get(txn, dbi, &keyValue, &data)
        }
        return found == 0 ? UnsafeRawBufferPointer(start: data.mv_data, count: data.mv_size) : nil
    }

    /// Walks every entry in one read transaction; returns the total bytes of keys and values.
    public func scanAll() throws -> Int {
        var txn: OpaquePointer?
        var rc = calls.txnBegin(env, readOnly: true, &txn)
        guard rc == 0, let txn else { throw LMDBError(.init(rawValue: rc), operation: .beginTransaction) }
        defer { calls.txnAbort(txn) }
        var cursor: OpaquePointer?
        rc = calls.cursorOpen(txn, dbi, &cursor)
        guard rc == 0, let cursor else { throw LMDBError(.init(rawValue: rc), operation: .cursor) }
        defer { calls.cursorClose(cursor) }
        var key = MDB_val()
        var data = MDB_val()
        var total = 0
        var op = MDB_FIRST
        while calls.cursorGet(cursor, &key, &data, op) == 0 {
            total += key.mv_size + data.mv_size
            op = MDB_NEXT
        }
        return total
    }
}
