import Quire

/// `quire touch PATH`.
struct TouchCommand: Command {
    static let name = "touch"
    static let summary = "Create an empty file in a folder (nothing happens if it exists)."
    static let usage = "[--store DIR] PATH"
    static let discussion = """
        Creates the file PATH, empty, in its folder; the folder must exist. When PATH
        is a file already (by name or by ID), leaves it as it is. Type into it with
        'quire write' or 'quire edit'.

        Example:
          quire touch "My Poetry/Your Poetry/Draft/Ode"
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var path: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        let value = try arguments.nextPositional(named: "PATH")
        _ = try value.lastPathName(allowingID: true)
        path = value.text
    }

    func run(in context: ToolContext) async throws {
        let created = try AppStore.with(store, in: context) { store in
            try store.write { tx in try FileAccess.fileCreating(path, tx).created }
        }
        context.output.writeLine(created ? "created \(path)" : "\(path) exists; left as it is")
    }
}
