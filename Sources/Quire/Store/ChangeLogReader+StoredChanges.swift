import LMDB
import QuireCore

extension ChangeLogReader {
    /// The stored changes a replica at `version` lacks, read in the reader's transaction.
    func storedChanges(since version: VersionVector) throws -> [Change] {
        try withLogTransaction { tx in try storedChanges(since: version, in: tx) }
    }

    /// The stored changes a replica at `version` lacks, read in `tx`.
    ///
    /// - Throws: ``PrunedHistoryError`` when compaction pruned changes `version` lacks;
    ///   ``StoreError/corrupt(database:problem:)`` for a log entry that does not decode.
    func storedChanges<T: ReadableTransaction & ~Copyable>(since version: VersionVector, in tx: borrowing T) throws -> [Change] {
        let meta = meta
        var result: [Change] = []
        for replica in meta.version.counters.keys.sorted() where version[replica] < meta.version[replica] {
            try checkHistoryKept(of: replica, since: version, in: tx)
            let lacking = version[replica]..<UInt64.max
            try forEachLoggedUnit(in: .prefix(Key(replica.rawValue)), of: tx) { unit in
                if let unit = unit.clamped(to: lacking) { result += unit.changes }
            }
        }
        return result
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

    /// The delta file of `changes` (from this store's log) sent by this replica.
    func deltaFile(of changes: [Change]) -> DeltaFile {
        let meta = meta
        let replica = meta.replica
        let own = changes.filter { $0.id.replica == replica }.sorted { $0.id.counter < $1.id.counter }
        let others = changes.filter { $0.id.replica != replica }
        let first = own.first?.id.counter ?? meta.version[replica]
        let needsStoreID = !others.isEmpty || first == 0
        let units = DeltaRun.units(of: own + others, names: nameTable(of:), timeBefore: loggedTime(before:))
        return DeltaFile(storeID: needsStoreID ? meta.storeID : nil, sender: replica, senderFirst: first, changes: units)
    }
}
