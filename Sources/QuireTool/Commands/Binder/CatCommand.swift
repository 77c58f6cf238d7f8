import Quire

/// `quire cat PATH [--at VERSION]`.
struct CatCommand: Command {
    static let name = "cat"
    static let summary = "Print a file's text, now or at an earlier version."
    static let usage = "[--store DIR] [--at VERSION] PATH"
    static let discussion = """
        Prints the text of the file PATH exactly, with no newline added.

        With --at, prints the text as it was when the store was at VERSION: a version
        file written by 'quire status --version-out FILE' (here, or on a replica whose
        changes this store has), the same pairs inline as REPLICA:COUNTER,... or 'now'.
        A version before the file had any text prints nothing.

        Example:
          quire cat "My Poetry/Your Poetry/Draft/Ode"
          quire status --version-out before.version
          quire cat "My Poetry/Your Poetry/Draft/Ode" --at before.version
        """
    static let at = Option.value("at", placeholder: "VERSION", help: "The text at this version. " + VersionArgument.help)
    static var options: [Option] { [StoreLocation.option, at] }

    var store: String?
    var path: String
    var version: VersionArgument?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        version = try arguments.value(of: Self.at).map(VersionArgument.init)
        path = try arguments.nextPositional(named: "PATH").text
    }

    func run(in context: ToolContext) async throws {
        let text = try AppStore.with(store, in: context, writes: false) { store in
            let version = try self.version?.version(in: store)
            return try store.read { tx in
                let content = try FileAccess.file(path, tx).content
                return try version.map { try tx.string(of: content, at: $0) } ?? tx.string(of: content)
            }
        }
        context.output.write(text)
    }
}
