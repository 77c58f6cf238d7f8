import Foundation
import Quire
import QuireApps

/// What happened to one record of the binder, change by change: the entries of
/// `quire log` and the place `quire restore` puts a record back by default.
struct RecordHistory {
    /// One change that touched the record: its fields, its text or its place.
    struct Entry: Encodable {
        var replica: String
        var counter: UInt64
        var operations: UInt64
        var lamport: UInt64
        /// What the change did to the record, in words.
        var what: [String]
        /// Characters inserted into and deleted from its text (a minimal diff of before
        /// and after), when the change edited it.
        var inserted: Int?
        var deleted: Int?
        /// Words of its text after the change, when the change edited it.
        var words: Int?
    }

    var entries: [Entry] = []
    /// The last live parent it had before it went to the trash (`.some(nil)`: the top
    /// level), if it was ever live.
    var lastLiveParent: RecordID?? = nil
    /// Changes the log no longer has the predecessors of (so they could not be replayed).
    var unreplayable = 0

    /// Replays `store`'s change log for `id`.
    static func of(_ id: RecordID, in store: Store) throws -> RecordHistory {
        var history = RecordHistory()
        var before = Snapshot()
        let text = id.text(File.contentField)
        let changes: [Change]
        do {
            changes = try store.changes()
        } catch is PrunedHistoryError {
            throw AppError("this store's early history was pruned by 'quire compact', so the history of \(id) cannot be replayed; 'quire restore' still works given a DEST folder")
        }
        history.unreplayable = try ChangeReplay.replay(changes) { step, scratch in
            let report = step.report
            let touchesRecord = report.changedRecords.contains(id), touchesText = report.changedTexts.contains(text)
            let moved = report.movedNodes.contains(id)
            // A move of a folder above it can put it in the trash (or take it out).
            var ancestorMoved = false
            if !moved && before.exists && !report.movedNodes.isEmpty {
                ancestorMoved = try scratch.read { tx in tx.isDeleted(id) } != before.deleted
            }
            guard touchesRecord || touchesText || moved || ancestorMoved else { return }
            let after = try scratch.read { tx in try Snapshot(id, tx, readingText: touchesText, previous: before) }
            var entry = Entry(replica: step.change.id.replica.description, counter: step.change.id.counter,
                              operations: step.change.count, lamport: step.change.lamport, what: [])
            if !before.exists {
                entry.what.append("created \(after.kind) '\(after.name)' in \(after.place)")
            } else {
                if after.name != before.name { entry.what.append("renamed '\(before.name)' to '\(after.name)'") }
                if after.deleted && !before.deleted {
                    entry.what.append(after.isTrashRoot ? "moved to the trash" : "went to the trash with \(after.trashRoot)")
                } else if !after.deleted && before.deleted {
                    entry.what.append("restored to \(after.place)")
                } else if after.place != before.place {
                    entry.what.append("moved to \(after.place)")
                } else if moved && after.parent == before.parent {
                    entry.what.append("reordered in \(after.place)")
                }
                if touchesRecord && after.name == before.name { entry.what.append("wrote its fields") }
            }
            if touchesText {
                let (inserted, deleted) = Self.difference(before.text, after.text)
                entry.inserted = inserted
                entry.deleted = deleted
                entry.words = after.words
                entry.what.append("text +\(inserted) −\(deleted) characters, \(BinderTree.wordCount(after.words))")
            }
            if entry.what.isEmpty { entry.what.append("touched it") }
            if moved && !after.deleted { history.lastLiveParent = .some(after.parent) }
            history.entries.append(entry)
            before = after
        }
        return history
    }

    /// The record as one step left it.
    private struct Snapshot {
        var exists = false
        var kind = ""
        var name = ""
        var parent: RecordID?
        var place = ""
        var deleted = false
        var isTrashRoot = false
        var trashRoot = ""
        var text = ""
        var words = 0

        init() {}

        init<R: StoreReading & ~Copyable>(_ id: RecordID, _ tx: borrowing R, readingText: Bool, previous: Snapshot) throws {
            guard let node = try BinderNode.read(id, tx) else {
                kind = tx.typeName(of: id) ?? "record"
                name = id.description
                return
            }
            exists = true
            kind = node.kind.rawValue
            name = node.name
            parent = tx.parent(of: id)
            deleted = tx.isDeleted(id)
            isTrashRoot = tx.trash.contains(id)
            if deleted { trashRoot = BinderPath.display(tx.path(of: id).first, tx) }
            place = isTrashRoot ? "the trash" : deleted ? "the trash (inside \(BinderPath.display(parent, tx)))"
                : BinderPath.display(parent, tx)
            if readingText {
                text = try tx.string(of: node.content)
                words = try tx.wordCount(of: node.content)
            } else {
                text = previous.text
                words = previous.words
            }
        }
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
