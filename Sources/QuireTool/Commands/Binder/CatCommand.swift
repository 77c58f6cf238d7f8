import Quire

/// `quire cat PATH [--at VERSION] [--name]`.
struct CatCommand: Command {
    static let name = "cat"
    static let summary = "Print a file's text (or a record's name), now or at an earlier version."
    static let usage = "[--store DIR] [--at VERSION] [--name] PATH"
    static let discussion = """
        Prints the text of the file PATH exactly, with no newline added.

        With --at, prints the text as it was when the store was at VERSION: a version
        file written by 'quire status --version-out FILE' (here, or on a replica whose
        changes this store has), the same pairs inline as REPLICA:COUNTER,... or 'now'.
        A version before the file had any text prints nothing.

        With --name, prints the name of PATH (a file, folder or project) and a newline
        instead; with --at too, the name it had then, so a rename shows. PATH is found by
        today's names (or an ID); a version before the record was created is an error.

        Example:
          quire cat "My Poetry/Your Poetry/Draft/Ode"
          quire status --version-out before.version
          quire cat "My Poetry/Your Poetry/Draft/Ode" --at before.version
          quire cat "My Poetry/Your Poetry/Draft/Ode" --at before.version --name
        """
    static let at = Option.value("at", placeholder: "VERSION", help: "The text (or name) at this version. " + VersionArgument.help)
    static let nameFlag = Option.flag("name", help: "Print the record's name (at --at's version) instead of the text.")
    static var options: [Option] { [StoreLocation.option, at, nameFlag] }

    var store: String?
    var path: String
    var version: VersionArgument?
    var printsName: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        version = try arguments.value(of: Self.at).map(VersionArgument.init)
        printsName = arguments.flag(Self.nameFlag)
        path = try arguments.nextPositional(named: "PATH").text
    }

    func run(in context: ToolContext) async throws {
        let text = try AppStore.with(store, in: context, writes: false) { store in
            let version = try self.version?.version(in: store)
            return try store.read { tx in
                if printsName { return try name(at: version, tx) + "\n" }
                let content = try FileAccess.file(path, tx).content
                return try version.map { try tx.string(of: content, at: $0) } ?? tx.string(of: content)
            }
        }
        context.output.write(text)
    }

    /// The name of the record `path` names, now or at `version`.
    private func name(at version: VersionVector?, _ tx: borrowing StoreReader) throws -> String {
        let node = try BinderPath.resolve(path, tx)
        guard let version else { return node.name }
        guard let then = try BinderNode.read(node.id, at: version, tx) else {
            throw AppError("'\(path.abbreviated)' did not exist yet at \(self.version?.text ?? "that version"): it was created later")
        }
        return then.name
    }
}
