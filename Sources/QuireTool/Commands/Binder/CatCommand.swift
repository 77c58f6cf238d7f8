import Quire

/// `quire cat PATH`.
struct CatCommand: Command {
    static let name = "cat"
    static let summary = "Print a file's text."
    static let usage = "[--store DIR] PATH"
    static let discussion = """
        Prints the text of the file PATH exactly, with no newline added.

        Example:
          quire cat "My Poetry/Your Poetry/Draft/Ode"
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var path: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        path = try arguments.nextPositional(named: "PATH").text
    }

    func run(in context: ToolContext) async throws {
        let text = try AppStore.with(store, in: context, writes: false) { store in
            try store.read { tx in try tx.string(of: FileAccess.file(path, tx).content) }
        }
        context.output.write(text)
    }
}
