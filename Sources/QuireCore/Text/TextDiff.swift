/// The changes that turn a text at one version into the text at another: an ordered list
/// of edits, each replacing a range of the old text with a string.
///
/// Edits are sorted, do not overlap, and are separated by at least one unchanged
/// character. Their ranges are given twice, in Unicode scalars and in UTF-16 code units
/// (for `NSRange` and text views). Apply them to the old text in either of two ways:
///
/// - back to front, replacing each ``Edit/deletedRange`` (a range of the old text) with
///   ``Edit/insertedText``;
/// - front to back, replacing at ``Edit/insertedRange``'s lower bound (where the edit
///   lies once the edits before it are applied) as many characters as
///   ``Edit/deletedRange`` counts.
///
/// ```swift
/// let diff = try text.diff(from: yesterday, to: text.version)
/// for edit in diff.edits.reversed() {
///     storage.replaceCharacters(in: NSRange(edit.deletedUTF16Range), with: edit.insertedText)
/// }
/// ```
public struct TextDiff: Hashable, Sendable {
    /// One replacement: the characters of ``deletedRange`` in the old text give way to
    /// ``insertedText`` (either may be empty, not both).
    public struct Edit: Hashable, Sendable {
        /// The characters removed, as a range of the old text in Unicode scalars.
        public var deletedRange: Range<Int>
        /// The same range in UTF-16 code units.
        public var deletedUTF16Range: Range<Int>
        /// The text put in their place.
        public var insertedText: String
        /// Where ``insertedText`` lies in the new text, in Unicode scalars.
        public var insertedRange: Range<Int>
        /// The same range in UTF-16 code units.
        public var insertedUTF16Range: Range<Int>

        /// Creates an edit.
        public init(
            deletedRange: Range<Int>, deletedUTF16Range: Range<Int>, insertedText: String,
            insertedRange: Range<Int>, insertedUTF16Range: Range<Int>
        ) {
            self.deletedRange = deletedRange
            self.deletedUTF16Range = deletedUTF16Range
            self.insertedText = insertedText
            self.insertedRange = insertedRange
            self.insertedUTF16Range = insertedUTF16Range
        }
    }

    /// The edits, in document order.
    public var edits: [Edit]

    /// Creates a diff of `edits`.
    public init(edits: [Edit]) {
        self.edits = edits
    }

    /// Whether the two texts are the same.
    public var isEmpty: Bool { edits.isEmpty }
}
