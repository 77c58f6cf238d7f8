import Quire
import QuireApps

/// `quire mv PATH DEST [--at INDEX]`.
struct MoveCommand: Command {
    static let name = "mv"
    static let summary = "Move a folder or file (with everything in it) into another folder."
    static let usage = "[--store DIR] PATH DEST [--at INDEX]"
    static let discussion = """
        Moves PATH into the folder or project DEST, at the end of its children or at
        position INDEX (1 is first). Moving a folder into itself or its own subtree is
        refused, and so is a name DEST already holds. Projects stay at the top level.
        On other replicas, a concurrent rename of the same folder is kept too: a move
        and a rename merge.

        Example:
          quire mv "My Poetry/Your Poetry/Research" "My Poetry/Publications"
        """
    static let at = Option.value("at", placeholder: "INDEX", help: "Position among DEST's children, 1 first.")
    static var options: [Option] { [StoreLocation.option, at] }

    var store: String?
    var path: String
    var destination: String
    var index: Int?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        path = try arguments.nextPositional(named: "PATH").text
        destination = try arguments.nextPositional(named: "DEST").text
        index = try ArgumentValue.positive(arguments.value(of: Self.at), default: 0)
        if index == 0 { index = nil }
    }

    func run(in context: ToolContext) async throws {
        let message = try AppStore.with(store, in: context) { store in
            try store.write { tx -> String in
                let node = try BinderPath.resolve(path, tx)
                guard node.kind != .project else {
                    throw AppError("'\(path)' is a project; projects stay at the top level (move its folders instead)")
                }
                let target = try BinderPath.resolve(destination, tx)
                guard target.kind != .file else { throw AppError("'\(destination)' is a file; move into a folder or project") }
                if tx.path(of: target.id).contains(node.id) {
                    throw AppError("cannot move '\(path)' into '\(destination)', which is inside it; choose a folder outside it")
                }
                try BinderPath.checkFree(node.name, under: target.id, except: node.id, tx) { existing in
                    "rename one of the two first, for example \(SuggestedCommand.quire("rename", "\(existing.id)", "NEWNAME"))"
                }
                let position = index.map { min($0 - 1, tx.children(of: target.id).filter { $0 != node.id }.count) }
                try tx.move(node.id, to: target.id, at: position)
                return "moved \(path) to \(BinderPath.display(node.id, tx))"
            }
        }
        context.output.writeLine(message)
    }
}
