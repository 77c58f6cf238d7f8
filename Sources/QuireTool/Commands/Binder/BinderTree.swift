import Foundation
import Quire
import QuireApps

/// The binder's hierarchy as `quire tree` (and the demo) prints it: box-drawing lines,
/// files with their word counts, and IDs where names clash.
///
/// ```
/// My Poetry (poetry)
/// ├── Your Poetry
/// │   ├── Draft
/// │   │   └── Ode (24 words)
/// …
/// ```
enum BinderTree {
    /// The lines of the subtree of `root`, `root` first.
    ///
    /// - Parameter showIDs: Show every record's ID; otherwise only records whose name
    ///   clashes with a sibling's show theirs (so the user can name one).
    static func lines<R: StoreReading & ~Copyable>(of root: BinderNode, showIDs: Bool, _ tx: borrowing R) throws -> [String] {
        var lines = [try label(root, clashes: false, showIDs: showIDs, tx)]
        try appendChildren(of: root.id, prefix: "", showIDs: showIDs, into: &lines, tx)
        return lines
    }

    /// Every project's lines, then the binder records in the trash under a heading.
    static func lines<R: StoreReading & ~Copyable>(showIDs: Bool, _ tx: borrowing R) throws -> [String] {
        var lines: [String] = []
        let projects = try BinderNode.children(of: nil, tx)
        let clashing = clashingNames(projects)
        for project in projects {
            lines.append(try label(project, clashes: clashing.contains(project.name), showIDs: showIDs, tx))
            try appendChildren(of: project.id, prefix: "", showIDs: showIDs, into: &lines, tx)
        }
        if projects.isEmpty { lines.append("(no projects; create one with 'quire project create NAME --type poetry')") }
        let deleted = try BinderNode.read(tx.trash, tx)
        if !deleted.isEmpty {
            lines.append("")
            lines.append("In the trash (restorable with 'quire restore'):")
            try appendNodes(deleted, prefix: "", showIDs: showIDs, into: &lines, tx)
        }
        return lines
    }

    private static func appendChildren<R: StoreReading & ~Copyable>(
        of parent: RecordID, prefix: String, showIDs: Bool, into lines: inout [String], _ tx: borrowing R
    ) throws {
        try appendNodes(BinderNode.children(of: parent, tx), prefix: prefix, showIDs: showIDs, into: &lines, tx)
    }

    private static func appendNodes<R: StoreReading & ~Copyable>(
        _ nodes: [BinderNode], prefix: String, showIDs: Bool, into lines: inout [String], _ tx: borrowing R
    ) throws {
        let clashing = clashingNames(nodes)
        for (index, node) in nodes.enumerated() {
            let isLast = index == nodes.count - 1
            let text = try label(node, clashes: clashing.contains(node.name), showIDs: showIDs, tx)
            lines.append(prefix + (isLast ? "└── " : "├── ") + text)
            try appendChildren(of: node.id, prefix: prefix + (isLast ? "    " : "│   "), showIDs: showIDs, into: &lines, tx)
        }
    }

    private static func clashingNames(_ nodes: [BinderNode]) -> Set<String> {
        var seen: Set<String> = [], clashing: Set<String> = []
        for node in nodes where !seen.insert(node.name).inserted { clashing.insert(node.name) }
        return clashing
    }

    private static func label<R: StoreReading & ~Copyable>(
        _ node: BinderNode, clashes: Bool, showIDs: Bool, _ tx: borrowing R
    ) throws -> String {
        var text = node.name.visibleOnOneLine
        switch node.kind {
        case .project: text += " (\(try tx.record(Project.self, node.id).type.rawValue))"
        case .folder: break
        case .file: text += " (" + wordCount(try tx.wordCount(of: node.content)) + ")"
        }
        if clashes { text += "  [\(node.id), name clash]" } else if showIDs { text += "  [\(node.id)]" }
        return text
    }

    /// The characters of a file's content as a reader counts them: grapheme clusters
    /// (Swift's `String.count`), so an emoji with a skin tone or a family of four is one
    /// character and so is a CRLF line break.
    static func characterCount<R: StoreReading & ~Copyable>(of file: BinderNode, _ tx: borrowing R) throws -> Int {
        try tx.string(of: file.content).count
    }

    /// `1 word`, `24 words`.
    static func wordCount(_ count: Int) -> String { count == 1 ? "1 word" : "\(count) words" }

    // MARK: JSON

    /// A record of the binder as `quire tree --json` prints it.
    struct JSONNode: Encodable, Equatable {
        var id: String
        var kind: BinderNode.Kind
        var name: String
        /// Projects: prose, poetry or drama.
        var project_type: String?
        /// Projects: the creation date, ISO 8601.
        var created: String?
        /// Files: words and characters (grapheme clusters) of the content.
        var words: Int?
        var characters: Int?
        /// Projects and folders: their children in order.
        var children: [JSONNode]?
    }

    /// The whole binder: the projects, and the binder records in the trash.
    struct JSONBinder: Encodable {
        var projects: [JSONNode]
        var trash: [JSONNode]
    }

    static func json<R: StoreReading & ~Copyable>(_ node: BinderNode, _ tx: borrowing R) throws -> JSONNode {
        var result = JSONNode(id: node.id.description, kind: node.kind, name: node.name)
        switch node.kind {
        case .project:
            let project = try tx.record(Project.self, node.id)
            result.project_type = project.type.rawValue
            result.created = isoDate(project.created)
        case .folder: break
        case .file:
            result.words = try tx.wordCount(of: node.content)
            result.characters = try characterCount(of: node, tx)
        }
        if node.kind != .file {
            result.children = try BinderNode.children(of: node.id, tx).map { try json($0, tx) }
        }
        return result
    }

    static func json<R: StoreReading & ~Copyable>(_ tx: borrowing R) throws -> JSONBinder {
        JSONBinder(
            projects: try BinderNode.children(of: nil, tx).map { try json($0, tx) },
            trash: try BinderNode.read(tx.trash, tx).map { try json($0, tx) })
    }

    /// `2025-06-01T14:03:00Z`.
    static func isoDate(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}

/// JSON output of the app commands: sorted keys, pretty, slashes unescaped.
enum AppJSON {
    static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
