import Quire
import QuireApps

/// `quire restore ID` for the flash-card records: a category back to the top level, a
/// note back into its category, a clue back into its note — or into DEST.
enum CardsRestore {
    /// Restores `id` when it is a flash-card record; `nil` when it is another kind.
    ///
    /// - Parameter destination: Where to restore into: a category (title or ID) for a
    ///   note, a note (`CATEGORY/N` or ID) for a clue; `nil` for where it was.
    /// - Throws: ``AppError`` when it is not in the trash, its title is taken, or the
    ///   place it came from is gone.
    static func restore(_ id: RecordID, into destination: String?, in store: Store) throws -> String? {
        switch try store.read({ tx in tx.typeName(of: id) }) {
        case Category.typeName: try restoreCategory(id, destination: destination, in: store)
        case CardNote.typeName:
            try restoreChild(id, what: "note", parentWhat: "category", destination: destination, in: store) { text, tx in
                try CardsPath.category(text, tx).id
            }
        case Clue.typeName:
            try restoreChild(id, what: "clue", parentWhat: "note", destination: destination, in: store) { text, tx in
                try CardsPath.note(text, tx).id
            }
        default: nil
        }
    }

    /// A category to the top level, unless a live category has its title (titles are
    /// unique, as `cards category add` and `rename` keep them).
    private static func restoreCategory(_ id: RecordID, destination: String?, in store: Store) throws -> String {
        guard destination == nil else {
            throw AppError("categories are restored to the top level; leave out DEST: quire restore \(id)")
        }
        return try store.write { tx -> String in
            let category = try tx.record(Category.self, id)
            guard tx.isDeleted(id) else { throw AppError("the category '\(category.title)' is not in the trash") }
            if let other = try tx.children(of: nil, ofType: Category.self).first(where: { $0.title == category.title && $0.id != id }) {
                throw AppError("a category titled '\(category.title)' exists already (\(other.id)); rename it first ('quire cards category rename \(other.id) NEWTITLE'), then restore this one")
            }
            try tx.restore(id, to: nil)
            return "restored the category '\(category.title)'"
        }
    }

    /// A note or clue into `destination`, else back into the record it was deleted from.
    private static func restoreChild(
        _ id: RecordID, what: String, parentWhat: String, destination: String?, in store: Store,
        resolve: (String, borrowing StoreWriter) throws -> RecordID
    ) throws -> String {
        try store.write { tx -> String in
            guard tx.isDeleted(id) else { throw AppError("the \(what) \(id) is not in the trash") }
            if let destination {
                let parent = try resolve(destination, tx)
                try tx.restore(id, to: parent)
                return "restored the \(what) \(id) into the \(parentWhat) \(describe(parent, tx))"
            }
            guard let previous = tx.deletedFrom(id)?.parent else {
                if !tx.trash.contains(id), let deleted = tx.path(of: id).first {
                    throw AppError("the \(what) \(id) went to the trash with \(deleted); restore that first (quire restore \(deleted)), or give a \(parentWhat) to restore it into: quire restore \(id) DEST")
                }
                throw AppError("the \(what) \(id) was never outside the trash here; give a \(parentWhat) to restore it into: quire restore \(id) DEST")
            }
            guard tx.typeName(of: previous) != nil, !tx.isDeleted(previous) else {
                throw AppError("the \(what) \(id) was deleted from a \(parentWhat) that is in the trash itself; restore that first (quire restore \(previous)), or give another: quire restore \(id) DEST")
            }
            // Back between the neighbours it had, by its old position key.
            try tx.restore(id)
            return "restored the \(what) \(id) into the \(parentWhat) \(describe(previous, tx))"
        }
    }

    /// A category by its title, a note by its position (`Capitals/2`).
    private static func describe(_ id: RecordID, _ tx: borrowing StoreWriter) -> String {
        if let category = try? tx.get(Category.self, id) { return "'\(category.title)'" }
        guard let category = tx.parent(of: id), let title = (try? tx.get(Category.self, category))??.title,
              let index = (try? tx.children(of: category, ofType: CardNote.self))?.firstIndex(where: { $0.id == id })
        else { return id.description }
        return "\(title)/\(index + 1)"
    }
}
