import Quire

/// A folder of a project: template folders and the user's own, nested to any depth.
///
/// ```swift
/// let chapters = try store.write { tx in try tx.insert(Folder(name: "Chapters"), under: draft) }
/// ```
public struct Folder: Record, Equatable {
    public static let typeName = "writing.folder"
    public static let siblingNameField: String? = "name"
    /// A folder owns no texts.
    public static let texts: Set<String>? = []

    /// The folder's name, unique among its siblings.
    public var name: String

    /// Creates a folder value.
    public init(name: String) { self.name = name }

    /// Checks the name with ``RecordName/validate(_:)``.
    ///
    /// - Throws: ``StoreError/invalidName(_:reason:)``.
    public func validate() throws { try RecordName.validate(name) }
}
