import Foundation
import Quire

// The writing app of the brief ("Who uses it", app 1) as plain Codable records:
// projects at the top level, each with the folder template of its type, folders nested
// to any depth, and files whose content is a text value. A later `quire` command can
// reuse these types and `createProject(name:type:created:details:in:)` as they are.

/// The kind of writing a project holds; it names the project's first template folder.
enum ProjectType: String, Codable, Sendable, CaseIterable {
    case prose
    case poetry
    case drama

    /// "Prose", "Poetry" or "Drama".
    var displayName: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}

/// A writing project: a top-level record whose subtree is its folder template.
///
/// ```swift
/// let poems = try store.write { tx in
///     try createProject(name: "My Poetry", type: .poetry, created: .now, in: tx)
/// }
/// ```
struct Project: Record, Equatable {
    static let typeName = "writing.project"
    static let siblingNameField: String? = "name"

    /// The name shown in the project list; unique among projects, but two offline
    /// devices may both create one name (reported as a ``NameClash``).
    var name: String
    /// Prose, poetry or drama.
    var type: ProjectType
    /// When the project was created; the list sorts by it.
    var created: Date
    /// Free-form notes about the project.
    var details: String?

    /// Checks the name with ``RecordName/validate(_:)``.
    func validate() throws { try RecordName.validate(name) }
}

/// A folder of a project: template folders and the user's own, nested to any depth.
struct Folder: Record, Equatable {
    static let typeName = "writing.folder"
    static let siblingNameField: String? = "name"

    /// The folder's name, unique among its siblings.
    var name: String

    /// Checks the name with ``RecordName/validate(_:)``.
    func validate() throws { try RecordName.validate(name) }
}

/// A file in a folder. Its content is not a field but the record's text
/// ``File/contentField``, so concurrent typing on two devices merges character by
/// character instead of one version replacing the other.
///
/// ```swift
/// try tx.insert("Hello", at: 0, unit: .utf16, in: file.text(File.contentField))
/// ```
struct File: Record, Equatable {
    static let typeName = "writing.file"
    static let siblingNameField: String? = "name"
    /// The name of the text that holds a file's content.
    static let contentField = "content"

    /// The file's name, unique among its siblings.
    var name: String

    /// Checks the name with ``RecordName/validate(_:)``.
    func validate() throws { try RecordName.validate(name) }
}

/// The folder template every new project gets.
///
/// For poetry:
///
/// ```
/// My Poetry
/// ├── Your Poetry: All, Draft, Ready, Set Aside, Published, Collections, Submissions, Research
/// ├── Publications: Magazines, Competitions, Commissions, Other
/// └── Trash
/// ```
///
/// Prose and drama have the same shape with "Your Prose" and "Your Drama": 15 folders.
enum ProjectTemplate {
    /// One template folder and the folders inside it.
    struct Entry: Equatable, Sendable {
        var name: String
        var children: [String]
    }

    /// The folders inside the "Your …" folder, in order.
    static let workFolders = ["All", "Draft", "Ready", "Set Aside", "Published", "Collections", "Submissions", "Research"]
    /// The folders inside "Publications", in order.
    static let publicationFolders = ["Magazines", "Competitions", "Commissions", "Other"]
    /// The name of the template's trash folder (an ordinary folder; ``StoreWriter/delete(_:)``
    /// uses the store's own trash).
    static let trashFolder = "Trash"

    /// The template of `type`, top-level folders in order.
    static func outline(for type: ProjectType) -> [Entry] {
        [
            Entry(name: "Your \(type.displayName)", children: workFolders),
            Entry(name: "Publications", children: publicationFolders),
            Entry(name: trashFolder, children: []),
        ]
    }

    /// How many folders the template makes: 15 for every type.
    static func folderCount(for type: ProjectType) -> Int {
        outline(for: type).reduce(0) { $0 + 1 + $1.children.count }
    }
}

/// Creates a project at the top level of the store with the folder template of its type,
/// in the caller's transaction (so the project and its 15 folders are one change).
///
/// ```swift
/// let project = try store.write { tx in
///     try createProject(name: "My Poetry", type: .poetry, created: .now, in: tx)
/// }
/// ```
///
/// - Parameters:
///   - name: The project's name; validated with ``RecordName/validate(_:)``.
///   - type: Prose, poetry or drama; decides the first folder's name.
///   - created: The creation date the project list sorts by.
///   - details: Optional notes.
///   - tx: The write transaction.
/// - Returns: The project's ID; its folders are its subtree.
/// - Throws: ``StoreError/invalidName(_:reason:)`` for an invalid name (nothing is
///   written), or what the store throws.
@discardableResult
func createProject(
    name: String, type: ProjectType, created: Date, details: String? = nil, in tx: borrowing StoreWriter
) throws -> RecordID {
    let project = try tx.insert(Project(name: name, type: type, created: created, details: details))
    for entry in ProjectTemplate.outline(for: type) {
        let folder = try tx.insert(Folder(name: entry.name), under: project)
        for child in entry.children { try tx.insert(Folder(name: child), under: folder) }
    }
    return project
}

/// Finds a folder of a project by its path of names, such as `["Your Poetry", "Draft"]`.
///
/// - Returns: The first folder along the path, or `nil` when a name is missing.
func folder<R: StoreReading & ~Copyable>(at path: [String], in project: RecordID, _ tx: borrowing R) throws -> RecordID? {
    var current = project
    for name in path {
        guard let next = try tx.children(of: current, ofType: Folder.self).first(where: { $0.name == name }) else { return nil }
        current = next.id
    }
    return current
}

/// Creates a file named `name` in `folder` with `content`.
///
/// - Returns: The file's ID.
@discardableResult
func createFile(named name: String, content: String = "", in folder: RecordID, _ tx: borrowing StoreWriter) throws -> RecordID {
    let file = try tx.insert(File(name: name), under: folder)
    if !content.isEmpty { try tx.insert(content, at: 0, in: file.text(File.contentField)) }
    return file
}
