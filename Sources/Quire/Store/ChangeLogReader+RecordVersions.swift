import LMDB
import QuireCore

/// A record's fields at a store version, from its current registers and the change log.
///
/// Each field is a last-writer-wins register, so its value at a version is the write with
/// the greatest `(lamport, replica)` among the changes the version includes. A current
/// register whose write the version includes is that write already (it is the greatest
/// of all writes), so only the other fields are looked up in the log: per replica,
/// backwards from the version, stopping at the replica's latest write of each such field,
/// at a change older than every write found so far for them, or at the record's creation
/// (the creator is read first: its changes before the creation, and every other
/// replica's up to the creation's Lamport time, cannot touch the record; a change of the
/// creator with a hierarchy operation older than the record's shows the version precedes
/// the creation). Runs hold only text edits and are skipped without being decoded.
extension ChangeLogReader {
    /// The fields of the record `id` at `version`, or `nil` when the version does not
    /// include its creation.
    ///
    /// - Parameters:
    ///   - id: The record.
    ///   - version: A store version within this store's.
    ///   - current: The record as it is now.
    /// - Throws: ``StoreError/versionBeyondStore(replica:counter:known:)``;
    ///   ``StoreError/versionPruned(replica:counter:keptFrom:)`` when a field's value (or
    ///   whether the record existed) lies in history compaction pruned;
    ///   ``StoreError/corrupt(database:problem:)`` for a log entry that does not decode.
    /// - Complexity: Nothing read from the log when every current register's write is
    ///   included; else per replica, the log entries from the version back to where the
    ///   search stops (at most to the record's creation).
    func fields(of id: RecordID, at version: VersionVector, current: RecordState) throws -> [String: [UInt8]]? {
        let reached = try replicasReached(by: version)
        let included = current.fields.filter { $0.value.counter < version[$0.value.timestamp.replica] }
        var search = FieldSearch(record: id, wanted: Set(current.fields.keys).subtracting(included.keys))
        search.existed = !included.isEmpty
        // Nothing of the record precedes its creation, which is a change of its creator.
        if !search.existed && version[id.replica] == 0 { return nil }
        if !search.isDone {
            // The creator first: its creation bounds the others' searches.
            let order = reached.filter { $0.replica == id.replica } + reached.filter { $0.replica != id.replica }
            guard try readLog(into: &search, replicas: order) else { return nil }
        }
        guard search.existed else { return nil }
        return included.mapValues(\.value).merging(search.found.mapValues(\.value)) { current, _ in current }
    }

    /// Runs `search` over the log of `replicas` below their counters, then checks what
    /// pruned history could have hidden.
    ///
    /// - Returns: `false` when the creator's changes below the version show the record was
    ///   not created yet: read back past where its creation would be, or all kept and
    ///   without it.
    private func readLog(into search: inout FieldSearch, replicas: [(replica: ReplicaID, counter: UInt64)]) throws -> Bool {
        let layout = layout
        return try withLogTransaction { tx in
            let pruned = try layout.prunedHistory(in: tx)
            var gaps: [(replica: ReplicaID, counter: UInt64, missing: Set<String>)] = []
            for (replica, counter) in replicas {
                guard !search.isDone else { break }
                search.begin(replica)
                let below = KeyRange(
                    from: StoreLayout.changeKey(ChangeID(replica: replica, counter: 0)),
                    to: StoreLayout.changeKey(ChangeID(replica: replica, counter: counter)))
                var stopped = false
                try tx.scan(layout.changes, range: below, reverse: true) { key, value in
                    if ChangeUnit.isRun(logEntry: value) { return .continue }  // text edits only
                    guard case .change(let change) = try decodeLogEntry(key: key, value: value) else { return .continue }
                    stopped = !search.visit(change)
                    return stopped ? .stop : .continue
                }
                let isCreator = replica == search.record.replica
                // The creator's history below the version without the creation: not yet created.
                if isCreator, !search.existed, search.passedCreation || !stopped && pruned[replica] == 0 { return false }
                if !stopped && pruned[replica] > 0 { gaps.append((replica, counter, search.missing)) }
            }
            // Pruned changes of a replica could hold the record's creation (when nothing
            // else showed it existed) or a later write of a field than the one found.
            for gap in gaps where !search.existed || !gap.missing.isEmpty {
                guard search.existed, let bound = try firstKeptLamport(of: gap.replica, in: tx),
                    search.outranks(prunedBefore: bound, of: gap.replica, for: gap.missing)
                else {
                    throw StoreError.versionPruned(replica: gap.replica, counter: gap.counter, keptFrom: pruned[gap.replica])
                }
            }
            return true
        }
    }

    /// A Lamport time above every change of `replica` that pruning removed: that of the
    /// first entry the log keeps of it (its last change, for a run); `nil` when it keeps none.
    private func firstKeptLamport<T: ReadableTransaction & ~Copyable>(of replica: ReplicaID, in tx: borrowing T) throws -> UInt64? {
        let all = KeyRange(
            from: StoreLayout.changeKey(ChangeID(replica: replica, counter: 0)),
            to: StoreLayout.changeKey(ChangeID(replica: replica, counter: UInt64.max)))
        var lamport: UInt64?
        try tx.scan(layout.changes, range: all) { key, value in
            lamport = try decodeLogEntry(key: key, value: value).lastLamport
            return .stop
        }
        return lamport
    }
}

/// The state of a search of the change log for a record's fields at a version (see
/// `ChangeLogReader+RecordVersions.swift`): read one replica at a time, its changes newest first.
private struct FieldSearch {
    let record: RecordID
    /// The fields whose value at the version the current registers do not show.
    let wanted: Set<String>
    /// The latest included write of each wanted field found so far.
    var found: [String: FieldRegister] = [:]
    /// Whether the version includes a write of the record (so it existed then).
    var existed = false
    /// The record's creation, once read.
    var creation: Timestamp?
    /// Whether the creator's changes were read back to its creation, or to one before it.
    var passedCreation = false
    /// The replica being read (the creator first), and the wanted fields whose latest
    /// write by it is not found yet.
    private(set) var replica: ReplicaID
    private(set) var missing: Set<String>

    init(record: RecordID, wanted: Set<String>) {
        self.record = record
        self.wanted = wanted
        replica = record.replica
        missing = wanted
    }

    /// Whether nothing more in the log can change the answer.
    var isDone: Bool { existed && wanted.isEmpty }

    mutating func begin(_ replica: ReplicaID) {
        self.replica = replica
        missing = wanted
    }

    /// Takes in the next older change of the replica being read.
    ///
    /// - Returns: Whether older changes of the replica could still matter.
    mutating func visit(_ change: Change) -> Bool {
        if let creation, replica != record.replica, change.lamport <= creation.lamport { return false }
        if existed, missing.allSatisfy({ found[$0].map { change.timestamp < $0.timestamp } ?? false }) { return false }
        var passed = false
        for operation in change.operations {
            switch operation {
            case .fields(let written, _, let values) where written == record:
                existed = true
                for (name, value) in values where missing.contains(name) {
                    if found[name].map({ $0.timestamp < change.timestamp }) ?? true {
                        found[name] = FieldRegister(value: value, timestamp: change.timestamp, counter: change.id.counter)
                    }
                }
                missing.subtract(values.keys)
            case .tree(let move) where move.id.replica == record.replica && replica == record.replica:
                // The creator's tree counters grow with its changes: one below the
                // record's is a change before its creation.
                if NodeID(move.id) == record.node {
                    creation = change.timestamp
                    existed = true
                }
                if move.id.counter <= record.counter { passed = true }
            default:
                break
            }
        }
        // Before its creation, the creator wrote nothing of the record.
        passedCreation = passedCreation || passed
        return !passed && !(existed && missing.isEmpty)
    }

    /// Whether the writes found of `fields` beat every change of `replica` before a
    /// Lamport time `bound` (changes pruned from the log), or none of those could write
    /// the record (they precede its creation).
    func outranks(prunedBefore bound: UInt64, of replica: ReplicaID, for fields: Set<String>) -> Bool {
        if let creation, replica != record.replica, bound <= creation.lamport + 1 { return true }
        return fields.allSatisfy { found[$0].map { $0.timestamp.lamport >= bound } ?? false }
    }
}
