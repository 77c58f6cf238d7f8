import Quire
import QuireApps

/// `quire restore PATH|ID [DEST]`.
struct RestoreCommand: Command {
    static let name = "restore"
    static let summary = "Bring a project, folder or file back from the trash."
    static let usage = "[--store DIR] PATH|ID [DEST]"
    static let discussion = """
        Moves a record out of the trash, with everything inside it. Name it by its ID
        (as 'quire rm' printed it, or 'quire tree --ids' shows it) or by its path in the
        trash: the deleted record's name, then names down from it (so a file inside a
        deleted folder is 'Set Aside/Late idea').

        Without DEST it goes back where it was deleted from, found in the change log;
        when that place is gone too, give DEST, a folder or project to restore into.

        Flash cards, by the ID 'quire cards ... rm' printed: a category goes back to the
        top level (refused while another category has its title); a note back into its
        category, a clue into its note, or into DEST (a category for a note, a note such
        as 'Capitals/2' for a clue). 'quire cards category list --deleted' lists the
        deleted categories.

        Example:
          quire restore "Set Aside/Late idea" "My Poetry/Your Poetry/Draft"
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var path: String
    var destination: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        path = try arguments.nextPositional(named: "PATH|ID").text
        destination = arguments.nextPositionalIfPresent(named: "DEST")?.text
    }

    func run(in context: ToolContext) async throws {
        let message = try AppStore.with(store, in: context) { store in
            if let id = RecordID(parsing: path), let restored = try CardsRestore.restore(id, into: destination, in: store) {
                return restored
            }
            let node = try store.read { tx in try BinderPath.resolveInTrash(path, tx) }
            var parent: RecordID?
            if let destination {
                parent = try store.read { tx -> RecordID in
                    let target = try BinderPath.resolve(destination, tx)
                    guard target.kind != .file else { throw AppError("'\(destination)' is a file; restore into a folder or project") }
                    return target.id
                }
            } else {
                let history = try RecordHistory.of(node.id, in: store)
                guard let last = history.lastLiveParent else {
                    throw AppError("'\(path)' was never outside the trash here (it was created inside a deleted folder); give a folder to restore it into: quire restore \(node.id) DEST")
                }
                parent = last
                if let last {
                    let gone = try store.read { tx in try tx.isDeleted(last) || BinderNode.read(last, tx) == nil }
                    if gone {
                        throw AppError("'\(path)' was deleted from a folder that is in the trash itself; restore that folder, or give another: quire restore \(node.id) DEST")
                    }
                }
            }
            return try store.write { tx -> String in
                if let parent, node.kind != .project {
                    try BinderPath.checkFree(node.name, under: parent, except: node.id, tx, remedy: Self.remedy(for: node))
                } else if node.kind == .project {
                    guard parent == nil else { throw AppError("'\(path)' is a project; projects are restored to the top level: quire restore \(node.id)") }
                    try BinderPath.checkFree(node.name, under: nil, except: node.id, tx, remedy: Self.remedy(for: node))
                } else {
                    throw AppError("folders and files go in a project; give one: quire restore \(node.id) DEST")
                }
                try tx.restore(node.id, to: parent)
                return "restored \(BinderPath.display(node.id, tx))"
            }
        }
        context.output.writeLine(message)
    }

    /// What to do when the place `node` would go back to has a sibling of its name: a
    /// restored record keeps its name, so rename the other one (or, for a folder or file,
    /// restore it elsewhere).
    static func remedy(for node: BinderNode) -> (BinderNode) -> String {
        { existing in
            let rename = "rename that one first with \(SuggestedCommand.quire("rename", "\(existing.id)", "NEWNAME"))"
            return node.kind == .project
                ? rename + ", then restore this one"
                : rename + ", or restore this one into another folder with \(SuggestedCommand.quire("restore", "\(node.id)", "DEST"))"
        }
    }
}
