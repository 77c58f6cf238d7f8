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
public enum ProjectTemplate {
    /// One template folder and the folders inside it.
    public struct Entry: Equatable, Sendable {
        /// The folder's name.
        public var name: String
        /// The names of the folders inside it, in order.
        public var children: [String]
    }

    /// The folders inside the "Your …" folder, in order.
    public static let workFolders = ["All", "Draft", "Ready", "Set Aside", "Published", "Collections", "Submissions", "Research"]
    /// The folders inside "Publications", in order.
    public static let publicationFolders = ["Magazines", "Competitions", "Commissions", "Other"]
    /// The name of the template's trash folder (an ordinary folder; `StoreWriter.delete(_:)`
    /// uses the store's own trash).
    public static let trashFolder = "Trash"

    /// The template of `type`, top-level folders in order.
    ///
    /// - Parameter type: The project's type; names the first folder.
    /// - Returns: Three entries: "Your …", "Publications" and "Trash".
    public static func outline(for type: ProjectType) -> [Entry] {
        [
            Entry(name: "Your \(type.displayName)", children: workFolders),
            Entry(name: "Publications", children: publicationFolders),
            Entry(name: trashFolder, children: []),
        ]
    }

    /// How many folders the template makes: 15 for every type.
    public static func folderCount(for type: ProjectType) -> Int {
        outline(for: type).reduce(0) { $0 + 1 + $1.children.count }
    }
}
