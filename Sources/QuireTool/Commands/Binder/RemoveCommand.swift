import Quire

/// `quire rm PATH`.
struct RemoveCommand: Command {
    static let name = "rm"
    static let summary = "Move a project, folder or file to the trash (restorable)."
    static let usage = "[--store DIR] PATH"
    static let discussion = """
        Moves PATH and everything in it to the store's trash. Nothing is destroyed: the
        names and texts stay, 'quire tree' lists the trash, and 'quire restore' brings
        it back. A file another replica writes into a deleted folder meanwhile lands in
        the trash with it, text intact.

        Example:
          quire rm "My Poetry/Your Poetry/Set Aside"
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var path: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        path = try arguments.nextPositional(named: "PATH").text
    }

    func run(in context: ToolContext) async throws {
        let (id, count) = try AppStore.with(store, in: context) { store in
            try store.write { tx -> (RecordID, Int) in
                let node = try BinderPath.resolve(path, tx)
                let count = tx.subtree(of: node.id).count
                try tx.delete(node.id)
                return (node.id, count)
            }
        }
        let inside = count > 1 ? " with the \(count - 1) records inside it" : ""
        context.output.writeLine("moved \(path)\(inside) to the trash; bring it back with: quire restore \(id)")
    }
}
