import Foundation
import Quire

// The flash-card app's operations that take more than one store call, each in the
// caller's transaction so it is one change.

/// Adds a category at the end of the top level.
///
/// ```swift
/// let capitals = try store.write { tx in try addCategory("Capitals", tx) }
/// ```
///
/// - Returns: The category's ID.
/// - Throws: ``StoreError/invalidName(_:reason:)`` for an invalid title.
@discardableResult
public func addCategory(_ title: String, _ tx: borrowing StoreWriter) throws -> RecordID {
    try tx.insert(Category(title: title))
}

/// Adds a note with `answer` to `category` at `index` (`nil`: last).
///
/// ```swift
/// try store.write { tx in try addNote(answer: "Paris", to: capitals, at: 0, tx) }
/// ```
///
/// - Returns: The note's ID.
/// - Throws: ``StoreError/hierarchy(_:)`` for an unknown category.
@discardableResult
public func addNote(
    answer: String, title: String? = nil, to category: RecordID, at index: Int? = nil, _ tx: borrowing StoreWriter
) throws -> RecordID {
    let note = try tx.insert(CardNote(title: title), under: category, at: index)
    if !answer.isEmpty { try tx.insert(answer, at: 0, in: note.text(CardNote.answerField)) }
    return note
}

/// Adds a clue reading `text` to `note` at `index` (`nil`: last).
///
/// ```swift
/// try store.write { tx in try addClue("City of light", to: paris, created: .now, tx) }
/// ```
///
/// - Returns: The clue's ID.
/// - Throws: ``StoreError/hierarchy(_:)`` for an unknown note.
@discardableResult
public func addClue(
    _ text: String, to note: RecordID, at index: Int? = nil, created: Date = Date(timeIntervalSinceReferenceDate: 0),
    _ tx: borrowing StoreWriter
) throws -> RecordID {
    let clue = try tx.insert(Clue(created: created), under: note, at: index)
    if !text.isEmpty { try tx.insert(text, at: 0, in: clue.text(Clue.textField)) }
    return clue
}
