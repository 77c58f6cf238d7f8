/// The kind of writing a project holds; it names the project's first template folder.
///
/// ```swift
/// ProjectType.poetry.displayName   // "Poetry", as in the folder "Your Poetry"
/// ```
public enum ProjectType: String, Codable, Sendable, CaseIterable {
    /// Novels, stories, essays.
    case prose
    /// Poems.
    case poetry
    /// Plays and scripts.
    case drama

    /// "Prose", "Poetry" or "Drama".
    public var displayName: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}
