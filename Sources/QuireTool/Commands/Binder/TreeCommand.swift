import Quire

/// `quire tree [PATH] [--ids] [--json]`.
struct TreeCommand: Command {
    static let name = "tree"
    static let summary = "Show the projects' folders and files, or one subtree."
    static let usage = "[--store DIR] [PATH] [--ids] [--json]"
    static let discussion = """
        Without PATH, every project and then the binder records in the trash; with PATH
        (names from a project down, such as 'My Poetry/Your Poetry'), that subtree.
        Files show their word counts. Siblings that share a name (two devices created
        both) show their IDs: put an ID in a path instead of the name to pick one.

        With --json, an object {"projects": [...], "trash": [...]} (or the one subtree):
        each node has id, kind (project, folder, file), name, children; projects add
        project_type and created, files words and characters.

        Example:
          quire tree "My Poetry/Your Poetry"
        """
    static let ids = Option.flag("ids", help: "Show every record's ID.")
    static let json = Option.flag("json", help: "Print JSON.")
    static var options: [Option] { [StoreLocation.option, ids, json] }

    var store: String?
    var path: String?
    var showIDs: Bool
    var asJSON: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        path = arguments.nextPositionalIfPresent(named: "PATH")?.text
        showIDs = arguments.flag(Self.ids)
        asJSON = arguments.flag(Self.json)
    }

    func run(in context: ToolContext) async throws {
        let text = try AppStore.with(store, in: context, writes: false) { store in
            try store.read { tx -> String in
                if let path {
                    let node = try BinderPath.resolve(path, tx)
                    return asJSON ? try AppJSON.text(BinderTree.json(node, tx))
                        : try BinderTree.lines(of: node, showIDs: showIDs, tx).joined(separator: "\n")
                }
                return asJSON ? try AppJSON.text(BinderTree.json(tx))
                    : try BinderTree.lines(showIDs: showIDs, tx).joined(separator: "\n")
            }
        }
        context.output.writeLine(text)
    }
}
