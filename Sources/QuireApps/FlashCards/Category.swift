import Quire

/// A category of notes, at the top level of the store. Its notes are its children, in
/// order: reordering is a tree move, which merges without duplicates or losses (an
/// array field would be one last-writer-wins value and lose one of two concurrent
/// reorders).
///
/// ```swift
/// let capitals = try store.write { tx in try addCategory("Capitals", tx) }
/// ```
public struct Category: Record, Equatable {
    public static let typeName = "cards.category"
    public static let siblingNameField: String? = "title"
    /// A category owns no texts; its notes are its children.
    public static let texts: Set<String>? = []

    /// The category's title, unique among categories.
    public var title: String

    /// Creates a category value.
    public init(title: String) { self.title = title }

    /// Checks the title with ``RecordName/validate(_:)``.
    ///
    /// - Throws: ``StoreError/invalidName(_:reason:)``.
    public func validate() throws { try RecordName.validate(title) }
}
