import CLMDB

/// A read-write transaction, lent to the body of ``Environment/write(_:)``.
///
/// It sees its own writes. It commits when the body returns and aborts when the body
/// throws; it cannot be copied, kept, or committed by hand. Reads come from
/// ``ReadableTransaction``.
public struct WriteTransaction: ~Copyable, ReadableTransaction {
    /// The underlying transaction; an implementation detail of the layer.
    public let _core: TransactionCore

    init(handle: OpaquePointer, calls: LMDBCalls, state: WriteState, environment: EnvironmentIdentity) {
        _core = TransactionCore(handle: handle, calls: calls, writeState: state, environment: environment)
    }

    var handle: OpaquePointer { _core.handle }

    /// Stores `value` under `key`, replacing any value already there.
    ///
    /// ```swift
    /// try tx.put(encoded, forKey: Key(recordID), in: records)
    /// try tx.put(entry, forKey: Key(counter), in: log, options: .append)   // bulk load in order
    /// ```
    ///
    /// - Parameters:
    ///   - value: The bytes to store; may be empty.
    ///   - key: 1 to ``Environment/maxKeySize`` bytes.
    ///   - database: The database to write.
    ///   - options: ``PutOptions/noOverwrite`` to refuse replacing, ``PutOptions/append``
    ///     for keys arriving in ascending order.
    /// - Throws: ``LMDBError/Code/keyExists`` when an option refuses the write;
    ///   ``LMDBError/Code/badValueSize`` for an empty or too long key.
    /// - Complexity: O(log *n*), or amortised O(1) with `.append`.
    public func put(
        _ value: some RawBytes, forKey key: some RawBytes, in database: Database, options: PutOptions = []
    ) throws {
        let (handle, calls, dbi) = (_core.handle, _core.calls, try _core.dbi(database, .put))
        let rc = key.withUnsafeBytes { keyBytes in
            value.withUnsafeBytes { valueBytes in
                var keyValue = MDB_val(keyBytes)
                var dataValue = MDB_val(valueBytes)
                return calls.put(handle, dbi, &keyValue, &dataValue, options.rawValue)
            }
        }
        guard rc == 0 else { throw _core.error(rc, .put, database) }
    }

    /// Removes the value stored under `key`.
    ///
    /// - Returns: Whether there was one.
    /// - Complexity: O(log *n*).
    @discardableResult
    public func removeValue(forKey key: some RawBytes, in database: Database) throws -> Bool {
        let (handle, calls, dbi) = (_core.handle, _core.calls, try _core.dbi(database, .delete))
        let rc = key.withUnsafeBytes { keyBytes in
            var keyValue = MDB_val(keyBytes)
            return calls.delete(handle, dbi, &keyValue)
        }
        switch rc {
        case 0: return true
        case MDB_NOTFOUND: return false
        default: throw _core.error(rc, .delete, database)
        }
    }

    /// Removes every entry in `range`.
    ///
    /// - Returns: The number of entries removed.
    /// - Complexity: O(log *n* + *k*) for *k* removed entries.
    @discardableResult
    public func removeAll(in database: Database, range: KeyRange) throws -> Int {
        try withCursor(on: database) { cursor in
            var removed = 0
            var entry = try cursor.firstEntry(in: range, reverse: false)
            while let (key, _) = entry, range.isBelowUpperBound(key) {
                let deletedKey = Array(key)
                try cursor.deleteCurrent()
                removed += 1
                // Seek past the deleted key rather than trust the cursor's position: LMDB
                // leaves it unset when the delete emptied the tree.
                entry = try cursor.entry(atLeast: deletedKey)
            }
            return removed
        }
    }

    /// Removes every entry of `database`, keeping the database itself.
    public func removeAll(in database: Database) throws {
        let rc = _core.calls.drop(_core.handle, try _core.dbi(database, .clear), delete: false)
        guard rc == 0 else { throw _core.error(rc, .clear, database) }
    }
}
