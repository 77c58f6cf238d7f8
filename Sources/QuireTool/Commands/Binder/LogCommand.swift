import Quire

/// `quire log PATH [--json]`.
struct LogCommand: Command {
    static let name = "log"
    static let summary = "Show the history of a file or folder: every change that touched it."
    static let usage = "[--store DIR] PATH|ID [--json]"
    static let discussion = """
        Lists, oldest first, the changes in the store's log that touched PATH's name,
        place or text, on any replica: the replica, the change's counter, Lamport time
        and wall-clock time (ISO 8601, UTC, by the replica's clock; "time unknown" for
        changes made before stores kept times), and what it did (created, renamed,
        moved, to the trash, restored, characters inserted and deleted). Places are
        shown with today's names. A move of a folder above PATH is that folder's
        change, not PATH's. PATH may be in the trash if given by its ID. Read from the
        change log, nothing replayed; after 'quire compact' pruned the early history,
        the changes it removed are not listed.

        With --json, an array of objects: replica, counter, lamport, time (null when
        unknown), what (strings), and for text edits inserted and deleted.

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
            let history = try store.read { tx -> RecordHistory in
                if let id = RecordID(parsing: path), let node = try BinderNode.read(id, tx) { return try RecordHistory.of(node.id, tx) }
                return try RecordHistory.of(try BinderPath.resolve(path, tx).id, tx)
            }
            return (history, store.replica.description)
        }
        if asJSON {
            context.output.writeLine(try AppJSON.text(history.entries))
            return
        }
        for entry in history.entries {
            let mine = entry.replica == this ? " (this replica)" : ""
            context.output.writeLine("\(entry.replica)\(mine)  counter \(entry.counter)  lamport \(entry.lamport)  "
                + "\(entry.time ?? "time unknown")  " + entry.what.joined(separator: "; "))
        }
        if history.isPruned {
            context.output.writeLine("(earlier changes were pruned by 'quire compact': they are not listed)")
        }
    }
}
