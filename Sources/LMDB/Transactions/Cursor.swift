import CLMDB

/// A position in a database, moved in key order. Lent by
/// ``ReadableTransaction/withCursor(on:_:)``; it cannot be copied or kept.
///
/// ```swift
/// try tx.withCursor(on: log) { cursor in
///     var found = try cursor.seek(atLeast: Key(UInt64(100)))
///     while found {
///         let key = try cursor.key()
///         found = try cursor.next()
///     }
/// }
/// ```
///
/// Moves return whether the cursor now rests on an entry.
public struct Cursor: ~Copyable {
    let pointer: OpaquePointer
    let calls: LMDBCalls
    let writeState: WriteState?
    let database: Database

    /// Moves to the first entry. Returns `false` when the database is empty.
    public func first() throws -> Bool { try move(MDB_FIRST) }

    /// Moves to the last entry. Returns `false` when the database is empty.
    public func last() throws -> Bool { try move(MDB_LAST) }

    /// Moves to the next entry. Returns `false` past the end.
    public func next() throws -> Bool { try move(MDB_NEXT) }

    /// Moves to the previous entry. Returns `false` before the start.
    public func previous() throws -> Bool { try move(MDB_PREV) }

    /// Whether the cursor rests on an entry.
    public func current() throws -> Bool { try move(MDB_GET_CURRENT) }

    /// Moves to the first entry whose key is greater than or equal to `key`.
    public func seek(atLeast key: some RawBytes) throws -> Bool {
        try key.withUnsafeBytes { try move(MDB_SET_RANGE, key: $0) }
    }

    /// Moves to the entry with exactly `key`. Returns `false` (and leaves the position
    /// undefined) when there is none.
    public func seek(exactly key: some RawBytes) throws -> Bool {
        try key.withUnsafeBytes { try move(MDB_SET_KEY, key: $0) }
    }

    /// Lends the current key and value to `body`, valid only during the call.
    ///
    /// - Throws: ``LMDBError/Code/notFound`` when the cursor rests on no entry.
    public func withCurrent<R>(
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        var key = MDB_val()
        var data = MDB_val()
        let rc = calls.cursorGet(pointer, &key, &data, MDB_GET_CURRENT)
        guard rc == 0 else { throw transactionError(rc, .cursor, database, writeState) }
        return try body(UnsafeRawBufferPointer(key), UnsafeRawBufferPointer(data))
    }

    /// A copy of the current key.
    public func key() throws -> [UInt8] { try withCurrent { key, _ in Array(key) } }

    /// A copy of the current value.
    public func value() throws -> [UInt8] { try withCurrent { _, value in Array(value) } }

    /// Deletes the current entry; the cursor moves to the entry after it. Write
    /// transactions only (a read transaction throws ``LMDBError/Code/permissionDenied``).
    public func deleteCurrent() throws {
        let rc = calls.cursorDelete(pointer)
        guard rc == 0 else { throw transactionError(rc, .delete, database, writeState) }
    }

    /// Moves to the first entry at or above the range's lower bound.
    func positionAtFirst(in range: KeyRange) throws -> Bool {
        guard let lower = range.lowerBound, !lower.isEmpty else { return try first() }
        return try seek(atLeast: lower)
    }

    /// Moves to the last entry below the range's upper bound.
    func positionAtLast(in range: KeyRange) throws -> Bool {
        guard let upper = range.upperBound else { return try last() }
        if upper.isEmpty { return false }  // no key is below the empty key
        // The first key at or above the bound is outside; step back from it.
        return try seek(atLeast: upper) ? try previous() : try last()
    }

    private func move(_ operation: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil) throws -> Bool {
        try step(operation, key: key) != nil
    }

    /// Performs `operation` and returns the entry it lands on, or `nil` at an end. The
    /// buffers are valid until the cursor moves or the transaction ends.
    func step(
        _ operation: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil
    ) throws -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var keyValue = key.map { MDB_val($0) } ?? MDB_val()
        var data = MDB_val()
        let rc = calls.cursorGet(pointer, &keyValue, &data, operation)
        switch rc {
        case 0: return (UnsafeRawBufferPointer(keyValue), UnsafeRawBufferPointer(data))
        case MDB_NOTFOUND: return nil
        default: throw transactionError(rc, .cursor, database, writeState)
        }
    }

    /// The first entry whose key is at least `key`, or `nil`.
    func entry(atLeast key: some RawBytes) throws -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        try key.withUnsafeBytes { try step(MDB_SET_RANGE, key: $0) }
    }

    /// The first entry of `range` in the given direction, or `nil` when it is empty.
    func firstEntry(
        in range: KeyRange, reverse: Bool
    ) throws -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        guard try reverse ? positionAtLast(in: range) : positionAtFirst(in: range) else { return nil }
        return try step(MDB_GET_CURRENT)
    }
}
