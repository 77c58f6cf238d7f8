import LMDB
import QuireCore

/// Histories of a text and of a record, read from the change log alone: one scan of its
/// entries, a run's changes summed without being made (``ChangeRun/forEachChange(_:)``).
extension ChangeLogReader {
    /// The logged changes that edited `text`, in causal order.
    ///
    /// - Complexity: One scan of the log, decoding each entry; O(*c*) per run of *c* changes
    ///   to `text`; a sort of the entries by `(lamport, replica)` that is linear for one
    ///   replica's entries (already in that order).
    func history(of text: TextID) throws -> [TextHistoryEntry] {
        var entries: [TextHistoryEntry] = []
        try forEachLogEntry { unit in
            switch unit {
            case .run(let run):
                guard run.text == text else { return }
                run.forEachChange { change in
                    entries.append(TextHistoryEntry(
                        change: change.id, lamport: change.lamport, time: change.time,
                        edit: TextEditCount(inserted: change.inserted, deleted: change.deleted)))
                }
            case .change(let change):
                var edit: TextEditCount?
                for case .text(let edited, let operations) in change.operations where edited == text {
                    edit = (edit ?? TextEditCount()).adding(operations)
                }
                if let edit {
                    entries.append(TextHistoryEntry(change: change.id, lamport: change.lamport, time: change.time, edit: edit))
                }
            }
        }
        return Self.causallyOrdered(entries) { ($0.lamport, $0.change) }
    }

    /// The logged changes that wrote `record`'s fields, moved its node or edited its texts,
    /// in causal order.
    ///
    /// - Complexity: As ``history(of:)-(TextID)``, for the texts of `record`.
    func history(of record: RecordID) throws -> [RecordHistoryEntry] {
        var entries: [RecordHistoryEntry] = []
        try forEachLogEntry { unit in
            switch unit {
            case .run(let run):
                guard run.text.record == record else { return }
                run.forEachChange { change in
                    var entry = RecordHistoryEntry(change: change.id, lamport: change.lamport, time: change.time)
                    entry.texts[run.text.field] = TextEditCount(inserted: change.inserted, deleted: change.deleted)
                    entries.append(entry)
                }
            case .change(let change):
                var entry = RecordHistoryEntry(change: change.id, lamport: change.lamport, time: change.time)
                for operation in change.operations {
                    switch operation {
                    case .fields(record: let written, type: _, values: let values) where written == record:
                        entry.fields.merge(values) { _, new in new }
                    case .tree(let move) where move.node == record.node:
                        entry.moves.append(RecordMove(move))
                    case .text(let text, let operations) where text.record == record:
                        entry.texts[text.field] = (entry.texts[text.field] ?? TextEditCount()).adding(operations)
                    default:
                        continue
                    }
                }
                if !entry.fields.isEmpty || !entry.moves.isEmpty || !entry.texts.isEmpty { entries.append(entry) }
            }
        }
        return Self.causallyOrdered(entries) { ($0.lamport, $0.change) }
    }

    /// Per replica, the first counter the change log still has (see `PrunedHistory.swift`).
    func historyKeptFrom() throws -> VersionVector {
        let layout = layout
        return try withLogTransaction { tx in try layout.prunedHistory(in: tx) }
    }

    /// Calls `body` with every entry of the change log, in key order (replica, then counter).
    private func forEachLogEntry(_ body: (ChangeUnit) throws -> Void) throws {
        try withLogTransaction { tx in
            try forEachLoggedUnit(in: .all, of: tx, body)
        }
    }

    /// `entries` sorted by `(lamport, replica)`, which every change's dependencies precede
    /// (and unique: a replica's Lamport times rise from change to change).
    ///
    /// The log lists each replica's changes in counter order, already in that order, so
    /// the sort (which finds runs already in order) only interleaves the replicas.
    private static func causallyOrdered<Entry>(_ entries: [Entry], key: (Entry) -> (UInt64, ChangeID)) -> [Entry] {
        var entries = entries
        entries.sort { a, b in
            let (lamportA, changeA) = key(a), (lamportB, changeB) = key(b)
            return (lamportA, changeA.replica) < (lamportB, changeB.replica)
        }
        return entries
    }
}

extension TextEditCount {
    /// The count with `operations`' insertions and deletions added.
    func adding(_ operations: [TextOperation]) -> TextEditCount {
        var count = self
        for operation in operations {
            if case .insert = operation { count.inserted += operation.length } else { count.deleted += operation.length }
        }
        return count
    }
}
