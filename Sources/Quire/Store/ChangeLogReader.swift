import LMDB
import QuireCore

/// What reading the change log takes: the store's layout and meta record, the table of
/// text slots, and a read transaction. Both the writer's in-memory ``StoreState`` and a
/// read transaction's ``StoreSnapshot`` provide it, so histories, versions and texts are
/// read from the log by one piece of code for both.
protocol ChangeLogReader: AnyObject {
    var layout: StoreLayout { get }
    /// The store's meta record as the reader sees it (this replica's clocks caught up
    /// with its log).
    var meta: StoreMeta { get }
    /// The text a change-log entry names by `slot`, or `nil` when the slot is unknown.
    func text(inSlot slot: UInt64) -> TextID?
    /// The names (record types, fields) `replica`'s changes use, in the order it first
    /// used them — what a delta file's changes refer to by position — or `nil` when it
    /// has none.
    func nameTable(of replica: ReplicaID) -> ReplicaNames?
    /// Runs `body` in a read transaction: the reader's own snapshot, or for the writer's
    /// state a new one (which sees what the state reflects: the writer holds the store's
    /// lock, so no commit of this process comes in between).
    func withLogTransaction<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R
}

extension ChangeLogReader {
    /// The text operations of the changes logged since the checkpoint, per text, in log
    /// order per replica; only those of `only` when given.
    func operationsSinceCheckpoint<T: ReadableTransaction & ~Copyable>(
        in tx: borrowing T, only: TextID? = nil
    ) throws -> [TextID: [[TextOperation]]] {
        var result: [TextID: [[TextOperation]]] = [:]
        for (replica, counter) in meta.version.counters.sorted(by: { $0.key < $1.key }) where counter > meta.checkpoint[replica] {
            let checkpoint = meta.checkpoint[replica]
            let start = StoreLayout.changeKey(ChangeID(replica: replica, counter: checkpoint))
            let end = StoreLayout.changeKey(ChangeID(replica: replica, counter: UInt64.max))
            var units: [ChangeUnit] = []
            // A run folded after the checkpoint may start before it: its later part counts.
            if let straddling = try loggedUnit(covering: ChangeID(replica: replica, counter: checkpoint), in: tx),
                straddling.id.counter < checkpoint, let after = straddling.clamped(to: checkpoint..<UInt64.max) {
                units.append(after)
            }
            try forEachLoggedUnit(in: KeyRange(from: start, to: end), of: tx) { units.append($0) }
            for unit in units {
                switch unit {
                case .change(let change):
                    for case .text(let text, let operations) in change.operations where only == nil || only == text {
                        result[text, default: []].append(operations)
                    }
                case .run(let run):
                    if only == nil || only == run.text { result[run.text, default: []].append(run.operations) }
                }
            }
        }
        return result
    }

    /// Calls `body` with each logged change in `range`, in key order (a run's changes one
    /// by one); stops at the first entry that does not decode and throws its error.
    func forEachLoggedChange<T: ReadableTransaction & ~Copyable>(
        in range: KeyRange, of tx: borrowing T, _ body: (Change) -> Void
    ) throws {
        try forEachLoggedUnit(in: range, of: tx) { unit in
            switch unit {
            case .change(let change): body(change)
            case .run(let run): run.changes.forEach(body)
            }
        }
    }

    /// Calls `body` with each log entry in `range`, in key order; stops at the first
    /// entry that does not decode and throws its error.
    func forEachLoggedUnit<T: ReadableTransaction & ~Copyable>(
        in range: KeyRange, of tx: borrowing T, _ body: (ChangeUnit) throws -> Void
    ) throws {
        var failure: (any Error)?
        try tx.scan(layout.changes, range: range) { key, value in
            do {
                try body(try decodeLogEntry(key: key, value: value))
            } catch {
                failure = error
                return .stop
            }
            return .continue
        }
        if let failure { throw failure }
    }

    /// The log entry that covers `id`'s counter, if any: the replica's last entry at or
    /// before it, when it reaches that far.
    func loggedUnit<T: ReadableTransaction & ~Copyable>(covering id: ChangeID, in tx: borrowing T) throws -> ChangeUnit? {
        var found: ChangeUnit?
        var failure: StoreError?
        let range = KeyRange(from: StoreLayout.changeKey(ChangeID(replica: id.replica, counter: 0)),
                             to: StoreLayout.changeKey(ChangeID(replica: id.replica, counter: id.counter + 1)))
        try tx.scan(layout.changes, range: range, reverse: true) { key, value in
            do throws(StoreError) {
                let unit = try decodeLogEntry(key: key, value: value)
                if unit.endCounter > id.counter { found = unit }
            } catch {
                failure = error
            }
            return .stop
        }
        if let failure { throw failure }
        return found
    }

    /// Reads a change-log entry.
    func decodeLogEntry(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(StoreError) -> ChangeUnit {
        guard key.count == 16 else { throw .corrupt(database: layout.changes.name, problem: "change key of \(key.count) bytes") }
        var reader = ByteReader(Array(value))
        do throws(StoreError) {
            return try ChangeUnit.decodeLogEntry(from: &reader, id: StoreLayout.changeID(fromKey: key)) { reader, _ in
                let slot = try reader.readVarint("text slot")
                guard let text = text(inSlot: slot) else { throw DecodingError.malformed("unknown text slot \(slot)", at: reader.offset) }
                return text
            }
        } catch {
            throw .corrupt(database: layout.changes.name, problem: error.description)
        }
    }
}
