import Quire
import QuireApps

/// `quire rename PATH NAME`.
struct RenameCommand: Command {
    static let name = "rename"
    static let summary = "Rename a project, folder or file."
    static let usage = "[--store DIR] PATH NAME"
    static let discussion = """
        Gives PATH the new NAME (one name, not a path: use 'quire mv' to move). Names
        are not empty, have no control characters, at most 255 characters, and are
        unique among siblings. Only the name field is written, so a concurrent move or
        edit on another replica survives the merge.

        Example:
          quire rename "My Poetry/Your Poetry/Research" Sources
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var path: String
    var newName: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        path = try arguments.nextPositional(named: "PATH").text
        let name = try arguments.nextPositional(named: "NAME")
        if name.text.contains("/") { throw .invalid("a name cannot contain '/' here (\(name.source)); to move, use 'quire mv'") }
        newName = try name.recordName()
    }

    func run(in context: ToolContext) async throws {
        let message = try AppStore.with(store, in: context) { store in
            try store.write { tx -> String in
                let node = try BinderPath.resolve(path, tx)
                if node.name == newName { return "'\(path)' is already named '\(newName)'" }
                try BinderPath.checkFree(newName, under: tx.parent(of: node.id), except: node.id, tx)
                switch node.kind {
                case .project: try tx.update(node.id, as: Project.self) { $0.name = newName }
                case .folder: try tx.update(node.id, as: Folder.self) { $0.name = newName }
                case .file: try tx.update(node.id, as: File.self) { $0.name = newName }
                }
                return "renamed \(path) to \(BinderPath.display(node.id, tx))"
            }
        }
        context.output.writeLine(message)
    }
}
