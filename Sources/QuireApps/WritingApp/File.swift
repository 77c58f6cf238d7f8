import Quire

/// A file in a folder. Its content is not a field but the record's text
/// ``File/contentField``, so concurrent typing on two devices merges character by
/// character instead of one version replacing the other.
///
/// ```swift
/// try tx.insert("Hello", at: 0, unit: .utf16, in: file.text(File.contentField))
/// ```
public struct File: Record, Equatable {
    public static let typeName = "writing.file"
    public static let siblingNameField: String? = "name"
    /// The name of the text that holds a file's content.
    public static let contentField = "content"
    /// A file owns one text, ``contentField``; any other name is refused.
    public static let texts: Set<String>? = [contentField]

    /// The file's name, unique among its siblings.
    public var name: String

    /// Creates a file value; its content is written separately, as a text.
    public init(name: String) { self.name = name }

    /// Checks the name with ``RecordName/validate(_:)``.
    ///
    /// - Throws: ``StoreError/invalidName(_:reason:)``.
    public func validate() throws { try RecordName.validate(name) }
}
