import Quire

/// `quire log PATH [--json]`.
struct LogCommand: Command {
    static let name = "log"
    static let summary = "Show the history of a file or folder: every change that touched it."
    static let usage = "[--store DIR] PATH|ID [--json]"
    static let discussion = """
        Lists, oldest first, the changes in the store's log that touched PATH's name,
        place or text, on any replica: the replica, the change's first counter and
        Lamport time, and what it did (created, renamed, moved, to the trash, restored,
        characters inserted and deleted). PATH may be in the trash if given by its ID.
        Reads the whole change log (it replays it into a scratch store), so it takes a
        moment on a long history.

        With --json, an array of objects: replica, counter, operations, lamport, what
        (strings), and for text edits inserted, deleted and words.

        Example:
          quire log "My Poetry/Your Poetry/Draft/Ode"
        """
    static let json = Option.flag("json", help: "Print JSON.")
    static var options: [Option] { [StoreLocation.option, json] }

    var store: String?
    var path: String
    var asJSON: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        path = try arguments.nextPositional(named: "PATH|ID").text
        asJSON = arguments.flag(Self.json)
    }

    func run(in context: ToolContext) async throws {
        let (history, this) = try AppStore.with(store, in: context, writes: false) { store in
            let node = try store.read { tx -> BinderNode in
                if let id = RecordID(parsing: path), let node = try BinderNode.read(id, tx) { return node }
                return try BinderPath.resolve(path, tx)
            }
            return (try RecordHistory.of(node.id, in: store), store.replica.description)
        }
        if asJSON {
            context.output.writeLine(try AppJSON.text(history.entries))
            return
        }
        for entry in history.entries {
            let mine = entry.replica == this ? " (this replica)" : ""
            context.output.writeLine("\(entry.replica)\(mine)  counter \(entry.counter)  lamport \(entry.lamport)  " + entry.what.joined(separator: "; "))
        }
        if history.unreplayable > 0 {
            context.output.writeLine("(\(history.unreplayable) later changes could not be replayed: the log lacks changes they depend on)")
        }
    }
}
