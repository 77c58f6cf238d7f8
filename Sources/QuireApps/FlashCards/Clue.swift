import Foundation
import Quire

/// A clue of a note.
///
/// The clue's words live in the text ``Clue/textField`` rather than a `String` field:
/// a clue is typed like any other text (autosaved per keystroke, a few bytes each), and
/// two devices that edit one clue offline keep both edits, where a `String` field is a
/// last-writer-wins register that would keep only one of them.
///
/// ```swift
/// try store.write { tx in try addClue("City of light", to: paris, tx) }
/// ```
public struct Clue: Record, Equatable {
    public static let typeName = "cards.clue"
    /// The name of the text that holds the clue.
    public static let textField = "text"
    /// A clue owns one text, ``textField``; any other name is refused.
    public static let texts: Set<String>? = [textField]

    /// When the clue was written; shown as a hint of its age.
    public var created: Date

    /// Creates a clue value; its words are written separately, as a text.
    public init(created: Date) { self.created = created }
}
