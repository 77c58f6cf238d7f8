import Quire

/// The record types of both reference apps, for `Store.Options.recordTypes`, so merges
/// report sibling-name clashes of every type even in a store that has only received them.
///
/// ```swift
/// var options = Store.Options()
/// options.recordTypes = ReferenceApps.recordTypes
/// let store = try Store(directory: path, options: options)
/// ```
public enum ReferenceApps {
    /// The writing app's types: ``Project``, ``Folder``, ``File``.
    public static let writingTypes: [any Record.Type] = [Project.self, Folder.self, File.self]
    /// The flash-card app's types: ``Category``, ``CardNote``, ``Clue``.
    public static let flashCardTypes: [any Record.Type] = [Category.self, CardNote.self, Clue.self]
    /// Every type of both apps.
    public static let recordTypes: [any Record.Type] = writingTypes + flashCardTypes
}
