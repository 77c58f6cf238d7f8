import LMDB
import QuireCore

/// The records the writer has read or written: a cache over the `records` database of
/// the transaction the writer's state reflects, plus what the open write session changed.
///
/// Opening reads no record; a record is read from LMDB on first use and kept. The cache
/// is emptied when another process has written (``StoreState/refresh(in:snapshot:)``), and
/// after a commit once it holds more than ``limit`` records, so its size follows what the
/// writer touches, not the size of the store. Records are never removed from the store (a
/// delete moves the node to the trash), so a cached "absent" only ever stands for a record
/// the session has not created yet, or one a rollback took back.
///
/// Not thread-safe: it belongs to the writer's state, used under the store's lock.
final class RecordCache {
    /// Clean entries kept after a commit, at the most.
    static let limit = 50_000

    private let environment: Environment
    private let database: Database
    /// `nil` value: known to be absent.
    private var entries: [RecordID: RecordState?] = [:]
    /// The read transaction misses are read in, begun at the first miss of a transaction
    /// body and ended by ``endReading()`` when the body returns: one per body, not one
    /// per record (an import of 100,000 new records misses 100,000 times).
    private var reader: Reader?

    /// A read transaction held by the cache (a class: an optional noncopyable value cannot
    /// be borrowed through here).
    private final class Reader {
        let transaction: ReadTransaction
        init(_ transaction: consuming ReadTransaction) { self.transaction = transaction }
    }
    /// The first error reading LMDB met; the body's transaction throws it (see
    /// ``takeFailure()``). A record that failed to read is not cached.
    private var failure: (any Error)?

    init(environment: Environment, database: Database) {
        self.environment = environment
        self.database = database
    }

    /// The record `id`, read from LMDB on first use; `nil` when there is none.
    ///
    /// A read that fails (LMDB, or a damaged value) answers `nil` and keeps the error for
    /// ``takeFailure()``: a write that met it throws instead of committing.
    subscript(id: RecordID) -> RecordState? {
        get {
            if let entry = entries[id] { return entry }
            do {
                let record = try read(id)
                entries[id] = .some(record)
                return record
            } catch {
                // Not cached: the next transaction reads it again.
                note(error)
                return nil
            }
        }
        set { entries[id] = .some(newValue) }
    }

    /// Notes that `id` names a record not in LMDB — a node this replica just created, whose
    /// ID is new — so that writing it reads nothing.
    func noteNew(_ id: RecordID) { entries[id] = .some(nil) }

    /// The transaction misses are read in: the body's, begun now if need be.
    private func readTransaction() throws -> Reader {
        if let reader { return reader }
        let begun = Reader(try environment.beginRead())
        reader = begun
        return begun
    }

    /// Makes `transaction` the one this body's misses are read in: a locked read body
    /// reads at the very transaction the state was caught up in, not a later one.
    func install(_ transaction: consuming ReadTransaction) {
        reader = Reader(transaction)
    }

    /// Runs `body` in the body's read transaction, begun now if need be (ended by
    /// ``endReading()``, as for a record read): the hierarchy's reads share it.
    func withReadTransaction<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        try body(readTransaction().transaction)
    }

    /// Keeps `error`, met reading LMDB for the body without a way to throw it, for the
    /// body's transaction to throw (see ``takeFailure()``).
    func note(_ error: any Error) {
        if failure == nil { failure = error }
    }

    /// Runs `body` in the body's read transaction when one is open; `nil` when none is.
    func withOpenTransaction<R>(_ body: (borrowing ReadTransaction) throws -> R) rethrows -> R? {
        guard let reader else { return nil }
        return try body(reader.transaction)
    }

    /// Ends the read transaction of the body that just returned. Called by the store after
    /// every transaction body (LMDB cannot grow the map while this thread holds a reader,
    /// and an open reader pins old pages).
    func endReading() { reader = nil }

    private func read(_ id: RecordID) throws -> RecordState? {
        let database = database
        let reader = try readTransaction()
        guard let bytes = try reader.transaction.value(forKey: StoreLayout.recordKey(id), in: database) else { return nil }
        do { return try RecordState.decode(bytes) } catch {
            throw StoreError.corrupt(database: database.name, problem: "record \(id): \(error)")
        }
    }

    /// Every record of the type named `type`, in any order: the committed ones as LMDB has
    /// them, with the session's changes over them.
    /// A read that fails answers what it read so far and keeps the error, as the
    /// subscript does.
    func records(ofType type: String) -> [(id: RecordID, record: RecordState)] {
        var result: [(id: RecordID, record: RecordState)] = []
        var stored = Set<RecordID>()
        do {
            try scan(type: type, into: &result, stored: &stored)
        } catch {
            note(error)
        }
        for (id, entry) in entries where !stored.contains(id) {
            if let record = entry, record.type == type { result.append((id, record)) }
        }
        return result
    }

    private func scan(
        type: String, into result: inout [(id: RecordID, record: RecordState)], stored: inout Set<RecordID>
    ) throws {
        let database = database
        let reader = try readTransaction()
        do {
            try reader.transaction.scan(database) { key, value in
                guard key.count == 16 else {
                    throw StoreError.corrupt(database: database.name, problem: "record key of \(key.count) bytes")
                }
                let id = RecordID(TreeStorageLayout.nodeID(fromKey: key))
                stored.insert(id)
                if let entry = entries[id] {
                    if let record = entry, record.type == type { result.append((id, record)) }
                    return .continue
                }
                let record: RecordState
                do { record = try RecordState.decode(Array(value)) } catch {
                    throw StoreError.corrupt(database: database.name, problem: "record \(id): \(error)")
                }
                if record.type == type { result.append((id, record)) }
                return .continue
            }
        }
    }

    /// The records held (read, written or known absent).
    var cachedCount: Int { entries.count }

    /// Forgets every record read: another process wrote, or the cache grew past ``limit``.
    func removeAll() { entries.removeAll() }

    /// After a commit: keeps at most ``limit`` records.
    func trim() {
        if entries.count > Self.limit { entries.removeAll() }
    }

    /// The error a read met since the last call, once.
    func takeFailure() -> (any Error)? {
        defer { failure = nil }
        return failure
    }
}
