/// A place in a store's hierarchy: a parent and an index among its children.
///
/// ```swift
/// if let place = tx.deletedFrom(chapter) {
///     print("deleted from \(place.parent.map(String.init(describing:)) ?? "the top level"), at \(place.index)")
/// }
/// ```
public struct RecordPlace: Hashable, Sendable, CustomStringConvertible {
    /// The parent record; `nil` for the top level.
    public var parent: RecordID?
    /// The index among the parent's children, `0...count`.
    public var index: Int

    /// Creates a place.
    ///
    /// - Parameters:
    ///   - parent: The parent record; `nil` for the top level.
    ///   - index: The index among its children.
    public init(parent: RecordID?, index: Int) {
        self.parent = parent
        self.index = index
    }

    /// `index N under PARENT`, or `index N at the top level`.
    public var description: String {
        "index \(index) " + (parent.map { "under \($0)" } ?? "at the top level")
    }
}
