import CLMDB

/// The reads both transaction kinds offer: point lookups, counts, scans and cursors.
///
/// Values read here point into LMDB's memory map and are valid only until the
/// transaction ends, so they are lent to closures as `UnsafeRawBufferPointer`s
/// (``withValue(forKey:in:_:)``, ``scan(_:range:reverse:_:)``) or returned as copies
/// (``value(forKey:in:)``, ``entries(in:range:reverse:limit:)``). Do not let a lent
/// buffer escape its closure.
public protocol ReadableTransaction: ~Copyable {
    /// The underlying transaction; an implementation detail of the layer.
    var _core: TransactionCore { get }
}

/// The handle of an open transaction. Opaque outside the layer, and noncopyable, so it
/// cannot be taken out of the transaction that lends it.
public struct TransactionCore: ~Copyable {
    @usableFromInline let handle: OpaquePointer
    @usableFromInline let calls: LMDBCalls
    let writeState: WriteState?
    /// The environment the transaction belongs to; databases of others are refused.
    @usableFromInline let environment: EnvironmentIdentity

    /// The raw handle for `database`, after checking that it belongs to this environment.
    @inlinable
    func dbi(_ database: Database, _ operation: LMDBError.Operation) throws -> MDB_dbi {
        guard database.environment == environment else { throw Self.foreignDatabase(database, operation) }
        return database.handle
    }

    @usableFromInline
    static func foreignDatabase(_ database: Database, _ operation: LMDBError.Operation) -> LMDBError {
        LMDBError(.badDatabase, operation: operation, context: "database \"\(database.name)\"",
                  detail: "the database handle belongs to another (or a closed) environment")
    }

    /// An error for a failed call on `database`; remembers `MDB_MAP_FULL` so the write can
    /// be retried after the map grows.
    @usableFromInline
    func error(_ rc: Int32, _ operation: LMDBError.Operation, _ database: Database) -> LMDBError {
        transactionError(rc, operation, database, writeState)
    }
}

/// An error for a failed call on `database`, noting `MDB_MAP_FULL` in `writeState`.
func transactionError(
    _ rc: Int32, _ operation: LMDBError.Operation, _ database: Database, _ writeState: WriteState?
) -> LMDBError {
    if rc == MDB_MAP_FULL { writeState?.mapFull = true }
    // A failed read may leave LMDB's transaction refusing every later call (a damaged
    // page): it must not be kept open for another read.
    if writeState == nil && rc != MDB_NOTFOUND { IdleReaders.invalidateOpen() }
    return LMDBError(.init(rawValue: rc), operation: operation, context: "database \"\(database.name)\"")
}

/// An entry copied out of a database.
public struct Entry: Hashable, Sendable {
    /// The key's bytes.
    public var key: [UInt8]
    /// The value's bytes.
    public var value: [UInt8]

    /// Creates an entry.
    public init(key: [UInt8], value: [UInt8]) {
        self.key = key
        self.value = value
    }
}

/// What a scan body asks for next.
public enum ScanControl: Sendable {
    /// Visit the next entry.
    case `continue`
    /// End the scan.
    case stop
}

extension ReadableTransaction where Self: ~Copyable {
    /// Lends the value stored under `key` to `body`, without copying it.
    ///
    /// - Parameters:
    ///   - key: The key; 1 to ``Environment/maxKeySize`` bytes.
    ///   - database: The database to look in.
    ///   - body: Receives the value's bytes, or `nil` when the key is absent. The buffer
    ///     is valid only during the call.
    /// - Returns: What `body` returns.
    /// - Throws: ``LMDBError`` (e.g. ``LMDBError/Code/badValueSize`` for an empty key),
    ///   or what `body` throws.
    /// - Complexity: O(log *n*).
    @inlinable
    public func withValue<R>(
        forKey key: some RawBytes, in database: Database, _ body: (UnsafeRawBufferPointer?) throws -> R
    ) throws -> R {
        let (handle, calls, dbi) = (_core.handle, _core.calls, try _core.dbi(database, .get))
        var data = MDB_val()
        let rc = key.withUnsafeBytes { keyBytes in
            var keyValue = MDB_val(keyBytes)
            return calls.get(handle, dbi, &keyValue, &data)
        }
        switch rc {
        case 0: return try body(UnsafeRawBufferPointer(data))
        case MDB_NOTFOUND: return try body(nil)
        default: throw _core.error(rc, .get, database)
        }
    }

    /// A copy of the value stored under `key`, or `nil` when the key is absent.
    ///
    /// - Complexity: O(log *n* + value size).
    public func value(forKey key: some RawBytes, in database: Database) throws -> [UInt8]? {
        try withValue(forKey: key, in: database) { $0.map { Array($0) } }
    }

    /// Whether a value is stored under `key`.
    public func containsValue(forKey key: some RawBytes, in database: Database) throws -> Bool {
        try withValue(forKey: key, in: database) { $0 != nil }
    }

    /// The number of entries in `database`. O(1): LMDB keeps the count.
    public func count(in database: Database) throws -> Int {
        try statistics(of: database).entries
    }

    /// The B-tree statistics of `database`: depth, pages, entries.
    public func statistics(of database: Database) throws -> DatabaseStatistics {
        var stat = MDB_stat()
        let rc = _core.calls.dbiStat(_core.handle, try _core.dbi(database, .statistics), &stat)
        guard rc == 0 else { throw _core.error(rc, .statistics, database) }
        return DatabaseStatistics(stat)
    }

    /// Visits the entries of `range` in key order (or reverse order), lending each key and
    /// value to `body` without copying.
    ///
    /// ```swift
    /// try tx.scan(log, range: .prefix(Key(replica))) { key, value in
    ///     total += value.count
    ///     return .continue
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - database: The database to scan.
    ///   - range: The keys to visit; ``KeyRange/all`` by default.
    ///   - reverse: Visit from the largest key down.
    ///   - body: Receives each key and value, valid only during the call; returns
    ///     ``ScanControl/stop`` to end early.
    /// - Complexity: O(log *n* + *k*) for *k* visited entries.
    public func scan(
        _ database: Database, range: KeyRange = .all, reverse: Bool = false,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> ScanControl
    ) throws {
        try withCursor(on: database) { cursor in
            let advance = reverse ? MDB_PREV : MDB_NEXT
            var entry = try cursor.firstEntry(in: range, reverse: reverse)
            while let (key, value) = entry {
                let inside = reverse ? range.isAtOrAboveLowerBound(key) : range.isBelowUpperBound(key)
                guard inside, try body(key, value) == .continue else { return }
                entry = try cursor.step(advance)
            }
        }
    }

    /// Copies of the entries of `range`, in key order (or reverse order).
    ///
    /// - Parameters:
    ///   - database: The database to read.
    ///   - range: The keys to include; ``KeyRange/all`` by default.
    ///   - reverse: List from the largest key down.
    ///   - limit: The most entries to return; `nil` for all.
    /// - Complexity: O(log *n* + *k*) for *k* returned entries.
    public func entries(
        in database: Database, range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil
    ) throws -> [Entry] {
        var result: [Entry] = []
        try scan(database, range: range, reverse: reverse) { key, value in
            result.append(Entry(key: Array(key), value: Array(value)))
            return result.count == limit ? .stop : .continue
        }
        return result
    }

    /// Opens a cursor on `database` for the duration of `body`.
    ///
    /// - Parameters:
    ///   - database: The database to walk.
    ///   - body: Moves the cursor and reads through it.
    /// - Returns: What `body` returns.
    public func withCursor<R>(on database: Database, _ body: (borrowing Cursor) throws -> R) throws -> R {
        let calls = _core.calls
        var pointer: OpaquePointer?
        let rc = calls.cursorOpen(_core.handle, try _core.dbi(database, .cursor), &pointer)
        guard rc == 0, let pointer else { throw _core.error(rc, .cursor, database) }
        defer { calls.cursorClose(pointer) }
        return try body(Cursor(pointer: pointer, calls: calls, writeState: _core.writeState, database: database))
    }

    /// The ID of this transaction: for a reader, the snapshot it reads; for a writer, the
    /// ID its commit will have.
    @inlinable
    public var transactionID: Int { _core.calls.txnID(_core.handle) }
}

extension MDB_val {
    /// A value pointing at `bytes`; valid only as long as `bytes` is.
    @inlinable
    init(_ bytes: UnsafeRawBufferPointer) {
        self.init(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes an `MDB_val` points at.
    @inlinable
    init(_ value: MDB_val) {
        self.init(start: value.mv_data, count: value.mv_size)
    }
}
