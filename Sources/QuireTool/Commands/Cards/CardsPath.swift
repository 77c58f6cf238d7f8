import Quire
import QuireApps

/// How the cards commands name records: a category by title or ID, a note as
/// `CATEGORY/N`, a clue as `CATEGORY/N/M` (1-based, as the lists number them) or by ID.
enum CardsPath {
    /// The live category `text` names.
    static func category<R: StoreReading & ~Copyable>(_ text: String, _ tx: borrowing R) throws -> Stored<Category> {
        let categories = try tx.children(of: nil, ofType: Category.self)
        if let id = RecordID(parsing: text), let found = categories.first(where: { $0.id == id }) { return found }
        let matches = categories.filter { $0.title == text }
        switch matches.count {
        case 1: return matches[0]
        case 0:
            let titles = categories.map { "'\($0.title)'" }.joined(separator: ", ")
            throw AppError("no category '\(text)'; " + (titles.isEmpty ? "there are none yet — add one with 'quire cards category add TITLE'" : "there are \(titles)"))
        default:
            throw AppError("\(matches.count) categories are titled '\(text)' (added on two devices before they synced, for instance): \(matches.map(\.id.description).joined(separator: ", ")); give the ID of the one you mean, and rename one with 'quire cards category rename ID NEWTITLE'")
        }
    }

    /// The live note `text` names: `CATEGORY/N` or an ID.
    static func note<R: StoreReading & ~Copyable>(_ text: String, _ tx: borrowing R) throws -> Stored<CardNote> {
        if let id = RecordID(parsing: text), let note = try tx.get(CardNote.self, id) ?? nil, !tx.isDeleted(id) {
            return Stored(id: id, value: note)
        }
        let (categoryText, index) = try split(text, expecting: "a note as CATEGORY/N, such as 'Capitals/2', or its ID")
        let category = try category(categoryText, tx)
        let notes = try tx.children(of: category.id, ofType: CardNote.self)
        guard index <= notes.count else {
            throw AppError("'\(category.title)' has \(notes.count == 1 ? "1 note" : "\(notes.count) notes"), so there is no note \(index); see \(SuggestedCommand.quire("cards", "note", "list", .value(category.title)))")
        }
        return notes[index - 1]
    }

    /// The live clue `text` names: `CATEGORY/N/M` or an ID.
    static func clue<R: StoreReading & ~Copyable>(_ text: String, _ tx: borrowing R) throws -> Stored<Clue> {
        if let id = RecordID(parsing: text), let clue = try tx.get(Clue.self, id) ?? nil, !tx.isDeleted(id) {
            return Stored(id: id, value: clue)
        }
        let (noteText, index) = try split(text, expecting: "a clue as CATEGORY/N/M, such as 'Capitals/2/1', or its ID")
        let note = try note(noteText, tx)
        let clues = try tx.children(of: note.id, ofType: Clue.self)
        guard index <= clues.count else {
            throw AppError("note '\(noteText)' has \(clues.count == 1 ? "1 clue" : "\(clues.count) clues"), so there is no clue \(index); see \(SuggestedCommand.quire("cards", "clue", "list", .value(noteText)))")
        }
        return clues[index - 1]
    }

    /// `Capitals/2` → ("Capitals", 2).
    private static func split(_ text: String, expecting: String) throws -> (String, Int) {
        guard let slash = text.lastIndex(of: "/"), let index = Int(text[text.index(after: slash)...]), index >= 1,
              slash != text.startIndex
        else { throw AppError("'\(text)' does not name \(expecting)") }
        return (String(text[..<slash]), index)
    }
}

extension Arguments {
    /// `--to INDEX` / `--at INDEX`: a 1-based position, as 0-based; `nil` when absent.
    func position(_ option: Option) throws(UsageError) -> Int? {
        guard value(of: option) != nil else { return nil }
        return try ArgumentValue.positive(value(of: option), default: 1) - 1
    }
}
