import Quire

/// A note (a card) in a category. Its answer is the text ``CardNote/answerField``; its
/// clues are its children, in order.
///
/// ```swift
/// let paris = try store.write { tx in try addNote(answer: "Paris", to: capitals, tx) }
/// let answer = try store.read { tx in try tx.string(of: paris.text(CardNote.answerField)) }
/// ```
///
/// Named `CardNote` so it does not clash with other `Note` types.
public struct CardNote: Record, Equatable {
    public static let typeName = "cards.note"
    /// The name of the text that holds the answer.
    public static let answerField = "answer"
    /// A note owns one text, ``answerField``; any other name is refused.
    public static let texts: Set<String>? = [answerField]

    /// An optional short title shown in lists.
    public var title: String?

    /// Creates a note value; its answer is written separately, as a text.
    public init(title: String? = nil) { self.title = title }

    /// Checks the title, when there is one, with ``RecordName/validate(_:)``.
    ///
    /// - Throws: ``StoreError/invalidName(_:reason:)``.
    public func validate() throws {
        if let title { try RecordName.validate(title) }
    }
}
