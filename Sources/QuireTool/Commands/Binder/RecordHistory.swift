import Foundation
import Quire
import QuireApps

/// What happened to one record of the binder, change by change, in words: the entries
/// of `quire log`, from the store's history of the record (`tx.history(of:)`, read from
/// the change log; nothing is replayed).
struct RecordHistory {
    /// One change that touched the record: its fields, its text or its place.
    struct Entry: Encodable {
        var replica: String
        var counter: UInt64
        var lamport: UInt64
        /// When the change was made, ISO 8601 UTC; `nil` when unknown.
        var time: String?
        /// What the change did to the record, in words.
        var what: [String]
        /// Characters the change inserted into and deleted from its text, when it edited it.
        var inserted: Int?
        var deleted: Int?

        private enum CodingKeys: String, CodingKey { case replica, counter, lamport, time, what, inserted, deleted }

        /// Every field, `time` as `null` when unknown (so a reader always finds the key).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(replica, forKey: .replica)
            try container.encode(counter, forKey: .counter)
            try container.encode(lamport, forKey: .lamport)
            try container.encode(time, forKey: .time)
            try container.encode(what, forKey: .what)
            try container.encodeIfPresent(inserted, forKey: .inserted)
            try container.encodeIfPresent(deleted, forKey: .deleted)
        }
    }

    var entries: [Entry] = []
    /// Whether compaction pruned the early history of any replica (so the first changes
    /// of the record may be missing).
    var isPruned = false

    /// The binder types' sibling-name field.
    private static let nameField = "name"

    /// The history of the binder record `id` in words.
    static func of<R: StoreReading & ~Copyable>(_ id: RecordID, _ tx: borrowing R) throws -> RecordHistory {
        var history = RecordHistory()
        history.isPruned = try tx.historyKeptFrom.counters.values.contains { $0 > 0 }
        let kind = try BinderNode.read(id, tx)?.kind.rawValue ?? tx.typeName(of: id) ?? "record"
        var name: String?  // as the changes so far left it
        var inTrash = false
        var parent: RecordMove.Destination?
        for change in try tx.history(of: id) {
            var entry = Entry(
                replica: change.replica.description, counter: change.change.counter, lamport: change.lamport,
                time: change.date.map(Self.timestamp), what: [])
            let newName = try change.value(of: Self.nameField, as: String.self)
            for move in change.moves {
                let place = Self.display(move.destination, tx)
                if move.isCreation {
                    entry.what.append("created \(kind) '\(newName ?? name ?? id.description)' in \(place)")
                } else if move.destination == .trash {
                    entry.what.append("moved to the trash")
                } else if inTrash {
                    entry.what.append("restored to \(place)")
                } else if move.destination == parent {
                    entry.what.append("reordered in \(place)")
                } else {
                    entry.what.append("moved to \(place)")
                }
                inTrash = move.destination == .trash
                parent = move.destination
            }
            if !change.isCreation {
                if let newName, newName != name {
                    entry.what.append(name.map { "renamed '\($0)' to '\(newName)'" } ?? "named '\(newName)'")
                }
                if change.writtenFields.contains(where: { $0 != Self.nameField }) { entry.what.append("wrote its fields") }
            }
            if let newName { name = newName }
            for (field, edit) in change.texts.sorted(by: { $0.key < $1.key }) {
                let text = field == File.contentField ? "text" : "text '\(field)'"
                entry.what.append("\(text) +\(edit.inserted) −\(edit.deleted) characters")
                entry.inserted = (entry.inserted ?? 0) + edit.inserted
                entry.deleted = (entry.deleted ?? 0) + edit.deleted
            }
            if entry.what.isEmpty { entry.what.append("touched it") }
            history.entries.append(entry)
        }
        return history
    }

    /// Where a move put the record, as a path of today's names.
    private static func display<R: StoreReading & ~Copyable>(_ destination: RecordMove.Destination, _ tx: borrowing R) -> String {
        switch destination {
        case .topLevel: BinderPath.display(nil, tx)
        case .parent(let parent): BinderPath.display(parent, tx)
        case .trash: "the trash"
        }
    }

    /// `date` as ISO 8601 in UTC, `2026-12-02T13:16:04Z`.
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// Unicode scalars inserted and deleted between `old` and `new`, outside their
    /// common prefix and suffix.
    static func difference(_ old: String, _ new: String) -> (inserted: Int, deleted: Int) {
        let a = Array(old.unicodeScalars), b = Array(new.unicodeScalars)
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        return (b.count - prefix - suffix, a.count - prefix - suffix)
    }
}
