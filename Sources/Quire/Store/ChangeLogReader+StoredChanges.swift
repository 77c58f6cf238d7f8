import LMDB
import QuireCore

extension ChangeLogReader {
    /// The stored changes a replica at `version` lacks, read in the reader's transaction.
    func storedChanges(since version: VersionVector) throws -> [Change] {
        try withLogTransaction { tx in try storedChanges(since: version, in: tx) }
    }

    /// The stored changes a replica at `version` lacks, read in `tx`, one by one (a run
    /// of the log expanded into its changes).
    ///
    /// - Throws: See ``storedUnits(since:in:)``.
    func storedChanges<T: ReadableTransaction & ~Copyable>(since version: VersionVector, in tx: borrowing T) throws -> [Change] {
        var changes: [Change] = []
        for unit in try storedUnits(since: version, in: tx) { changes += unit.changes }
        return changes
    }

    /// The log's units — single changes and runs, as stored — that a replica at `version`
    /// lacks, read in the reader's transaction: what an export sends, without expanding
    /// a run into its changes only to join them again.
    func storedUnits(since version: VersionVector) throws -> [ChangeUnit] {
        try withLogTransaction { tx in try storedUnits(since: version, in: tx) }
    }

    /// The log's units a replica at `version` lacks, read in `tx`, each cut to what it
    /// lacks; per replica in counter order.
    ///
    /// - Throws: ``PrunedHistoryError`` when compaction pruned changes `version` lacks;
    ///   ``StoreError/corrupt(database:problem:)`` for a log entry that does not decode.
    func storedUnits<T: ReadableTransaction & ~Copyable>(since version: VersionVector, in tx: borrowing T) throws -> [ChangeUnit] {
        let meta = meta
        var result: [ChangeUnit] = []
        for replica in meta.version.counters.keys.sorted() where version[replica] < meta.version[replica] {
            try checkHistoryKept(of: replica, since: version, in: tx)
            let lacking = version[replica]..<UInt64.max
            try forEachLoggedUnit(in: logRange(of: replica, from: lacking.lowerBound, in: tx), of: tx) { unit in
                if let unit = unit.clamped(to: lacking) { result.append(unit) }
            }
        }
        return result
    }

    /// The keys of `replica`'s log entries from the one holding `counter` on: its last
    /// entry that starts at or before `counter` (found by one step back from it), so that
    /// what a replica lacks since a recent version is read without decoding the whole log
    /// before it — an export of one keystroke reads one or two entries, not the history.
    func logRange<T: ReadableTransaction & ~Copyable>(
        of replica: ReplicaID, from counter: UInt64, in tx: borrowing T
    ) throws -> KeyRange {
        var range = KeyRange.prefix(Key(replica.rawValue))
        guard counter > 0 else { return range }
        let before = KeyRange(
            from: StoreLayout.changeKey(ChangeID(replica: replica, counter: 0)),
            to: StoreLayout.changeKey(ChangeID(replica: replica, counter: counter == .max ? counter : counter + 1)))
        try tx.scan(layout.changes, range: before, reverse: true) { key, _ in
            range.lowerBound = Array(key)
            return .stop
        }
        return range
    }

    /// Throws ``PrunedHistoryError`` when a replica at `version` needs changes of `replica`
    /// that compaction pruned from the log.
    func checkHistoryKept<T: ReadableTransaction & ~Copyable>(
        of replica: ReplicaID, since version: VersionVector, in tx: borrowing T
    ) throws {
        let pruned = try layout.prunedHistory(in: tx)  // Maintenance/PrunedHistory.swift
        if version[replica] < pruned[replica] {
            throw PrunedHistoryError(replica: replica, keptFrom: pruned[replica], requestedFrom: version[replica])
        }
    }

    /// The wall-clock time of the change before `id` of its replica, from the log; `nil`
    /// when there is none, it was pruned or its time is unknown.
    func loggedTime(before id: ChangeID) -> UInt64? {
        guard id.counter > 0 else { return nil }
        let layout = layout
        let range = KeyRange(
            from: StoreLayout.changeKey(ChangeID(replica: id.replica, counter: 0)), to: StoreLayout.changeKey(id))
        // The entry holding the change before: the last one that starts before `id`.
        let time = try? withLogTransaction { tx in
            var found: UInt64?
            try tx.scan(layout.changes, range: range, reverse: true) { key, value in
                let entry = StoreLayout.changeID(fromKey: key), bytes = Array(value)
                var reader = ByteReader(bytes)
                // Pruned history leaves a gap: the entry found must reach the change before.
                guard let end = try? ChangeUnit.logEntryEnd(&reader, id: entry).end, end >= id.counter else { return .stop }
                found = try? ChangeUnit.logEntryTime(bytes, id: entry, ofChangeAt: id.counter - 1) { reader, _ in
                    let slot = try reader.readVarint("text slot")
                    guard let text = text(inSlot: slot) else { throw DecodingError.malformed("unknown text slot \(slot)", at: reader.offset) }
                    return text
                }
                return .stop
            }
            return found
        }
        guard let time, time > 0 else { return nil }
        return time
    }

    /// The delta file of `units` (from this store's log) sent by this replica.
    func deltaFile(of units: [ChangeUnit]) -> DeltaFile {
        let meta = meta
        let replica = meta.replica
        let own = units.filter { $0.id.replica == replica }.sorted { $0.id.counter < $1.id.counter }
        let others = units.filter { $0.id.replica != replica }
        let first = own.first?.id.counter ?? meta.version[replica]
        let needsStoreID = !others.isEmpty || first == 0
        let deltaUnits = DeltaRun.units(of: own + others, names: nameTable(of:), timeBefore: loggedTime(before:))
        return DeltaFile(storeID: needsStoreID ? meta.storeID : nil, sender: replica, senderFirst: first, changes: deltaUnits)
    }
}
