import Foundation
import Quire

// The flash-card app of the brief ("Who uses it", app 2) as plain Codable records.
// Order is the store's hierarchy: notes are the ordered children of a category, clues
// the ordered children of a note, so reordering is a tree move that merges without
// duplicates or losses (an array field would be a last-writer-wins value and lose one
// of two concurrent reorders, or worse, an insertion).

/// A category of notes, at the top level of the store.
struct Category: Record, Equatable {
    static let typeName = "cards.category"
    static let siblingNameField: String? = "title"

    /// The category's title, unique among categories.
    var title: String

    /// Checks the title with ``RecordName/validate(_:)``.
    func validate() throws { try RecordName.validate(title) }
}

/// A note (a card) in a category. Its answer is the text ``CardNote/answerField``; its
/// clues are its children.
///
/// Named `CardNote` so it does not clash with other `Note` types in the tests.
struct CardNote: Record, Equatable {
    static let typeName = "cards.note"
    /// The name of the text that holds the answer.
    static let answerField = "answer"

    /// An optional short title shown in lists.
    var title: String?

    /// Checks the title, when there is one, with ``RecordName/validate(_:)``.
    func validate() throws {
        if let title { try RecordName.validate(title) }
    }
}

/// A clue of a note.
///
/// The clue's words live in the text ``Clue/textField`` rather than a `String` field:
/// a clue is typed like any other text (autosaved per keystroke, a few bytes each), and
/// two devices that edit one clue offline keep both edits, where a `String` field is a
/// last-writer-wins register that would keep only one of them.
struct Clue: Record, Equatable {
    static let typeName = "cards.clue"
    /// The name of the text that holds the clue.
    static let textField = "text"

    /// When the clue was written; shown as a hint of its age.
    var created: Date
}

/// Adds a category at the end of the top level.
@discardableResult
func addCategory(_ title: String, _ tx: borrowing StoreWriter) throws -> RecordID {
    try tx.insert(Category(title: title))
}

/// Adds a note with `answer` to `category` at `index` (`nil`: last).
@discardableResult
func addNote(
    answer: String, title: String? = nil, to category: RecordID, at index: Int? = nil, _ tx: borrowing StoreWriter
) throws -> RecordID {
    let note = try tx.insert(CardNote(title: title), under: category, at: index)
    if !answer.isEmpty { try tx.insert(answer, at: 0, in: note.text(CardNote.answerField)) }
    return note
}

/// Adds a clue reading `text` to `note` at `index` (`nil`: last).
@discardableResult
func addClue(
    _ text: String, to note: RecordID, at index: Int? = nil, created: Date = Date(timeIntervalSinceReferenceDate: 0),
    _ tx: borrowing StoreWriter
) throws -> RecordID {
    let clue = try tx.insert(Clue(created: created), under: note, at: index)
    if !text.isEmpty { try tx.insert(text, at: 0, in: clue.text(Clue.textField)) }
    return clue
}
