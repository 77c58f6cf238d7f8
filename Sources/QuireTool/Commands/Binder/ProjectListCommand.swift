import Foundation
import Quire
import QuireApps

/// `quire project list [--sort name|date] [--json]`.
struct ProjectListCommand: Command {
    static let name = "list"
    static let summary = "List the projects, sorted by name or creation date."
    static let usage = "[--store DIR] [--sort name|date] [--json]"
    static let discussion = """
        One project per line: name, type, creation date (UTC), and how many files and
        words it holds. Sorted by name (the default) or by creation date, oldest first.
        With --json, an array of objects: id, name, type, created, details, files, words.

        Example:
          quire project list --sort date
        """
    static let sort = Option.value("sort", placeholder: "KEY", help: "name (default) or date.")
    static let json = Option.flag("json", help: "Print JSON.")
    static var options: [Option] { [StoreLocation.option, sort, json] }

    var store: String?
    var byDate: Bool
    var asJSON: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        switch arguments.value(of: Self.sort) {
        case nil: byDate = false
        case let value? where value.text == "name": byDate = false
        case let value? where value.text == "date": byDate = true
        case let value?: throw .invalidValue(value.text, source: value.source, expected: "name or date")
        }
        asJSON = arguments.flag(Self.json)
    }

    struct Entry: Encodable {
        var id: String
        var name: String
        var type: String
        var created: String
        var details: String?
        var files: Int
        var words: Int
    }

    func run(in context: ToolContext) async throws {
        let entries = try AppStore.with(store, in: context, writes: false) { store in
            try store.read { tx in
                let projects = byDate
                    ? try tx.all(Project.self).sorted { ($0.created, $0.id) < ($1.created, $1.id) }
                    : try tx.all(Project.self).sorted { ($0.name, $0.id) < ($1.name, $1.id) }
                return try projects.map { project in
                    let files = tx.subtree(of: project.id).filter { tx.typeName(of: $0) == File.typeName }
                    let words = try files.reduce(0) { $0 + (try tx.wordCount(of: $1.text(File.contentField))) }
                    return Entry(id: project.id.description, name: project.name, type: project.type.rawValue,
                                 created: BinderTree.isoDate(project.created), details: project.details,
                                 files: files.count, words: words)
                }
            }
        }
        if asJSON {
            context.output.writeLine(try AppJSON.text(entries))
            return
        }
        if entries.isEmpty {
            context.output.writeLine("no projects yet; create one with 'quire project create NAME --type poetry'")
            return
        }
        let width = entries.map(\.name.count).max() ?? 0
        for entry in entries {
            let name = entry.name + String(repeating: " ", count: width - entry.name.count)
            let type = entry.type + String(repeating: " ", count: 6 - entry.type.count)
            var line = "\(name)  \(type)  \(entry.created)  \(entry.files == 1 ? "1 file" : "\(entry.files) files"), \(BinderTree.wordCount(entry.words))"
            if let details = entry.details { line += "  — \(details)" }
            context.output.writeLine(line)
        }
    }
}
