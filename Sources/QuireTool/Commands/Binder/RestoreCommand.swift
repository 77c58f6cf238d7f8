import Quire
import QuireApps

/// `quire restore PATH|ID [DEST]`, and `quire restore PATH --to VERSION` for a file's text.
struct RestoreCommand: Command {
    static let name = "restore"
    static let summary = "Bring a project, folder or file back from the trash, or a file's text back to a version."
    static let usage = "[--store DIR] PATH|ID [DEST] | [--store DIR] --to VERSION PATH"
    static let discussion = """
        Moves a record out of the trash, with everything inside it. Name it by its ID
        (as 'quire rm' printed it, or 'quire tree --ids' shows it) or by its path in the
        trash: the deleted record's name, then names down from it (so a file inside a
        deleted folder is 'Set Aside/Late idea').

        Without DEST it goes back where it was deleted from, between the neighbours it
        had there (found in the hierarchy's move log); when that place is gone too, give
        DEST, a folder or project to restore into (it goes last there).

        Flash cards, by the ID 'quire cards ... rm' printed: a category goes back to the
        top level (refused while another category has its title); a note back into its
        category, a clue into its note, or into DEST (a category for a note, a note such
        as 'Capitals/2' for a clue). 'quire cards category list --deleted' lists the
        deleted categories.

        With --to, PATH is a live file and its text goes back to what it read when the
        store was at VERSION (a version file from 'quire status --version-out FILE',
        REPLICA:COUNTER,... inline): what was typed since is deleted and what was deleted
        since is typed again, as a new edit that syncs like any other (edits other
        replicas made meanwhile survive the merge).

        Example:
          quire restore "Set Aside/Late idea" "My Poetry/Your Poetry/Draft"
          quire restore "My Poetry/Your Poetry/Draft/Ode" --to before.version
        """
    static let to = Option.value("to", placeholder: "VERSION", help: "Restore the file's text to this version. " + VersionArgument.help)
    static var options: [Option] { [StoreLocation.option, to] }

    var store: String?
    var path: String
    var destination: String?
    var version: VersionArgument?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        version = try arguments.value(of: Self.to).map(VersionArgument.init)
        path = try arguments.nextPositional(named: "PATH|ID").text
        destination = arguments.nextPositionalIfPresent(named: "DEST")?.text
        if version != nil && destination != nil { throw .invalid("--to restores a file's text; it takes no DEST") }
    }

    func run(in context: ToolContext) async throws {
        if let version {
            context.output.writeLine(try restoreText(to: version, in: context))
            return
        }
        let message = try AppStore.with(store, in: context) { store in
            if let id = RecordID(parsing: path), let restored = try CardsRestore.restore(id, into: destination, in: store) {
                return restored
            }
            let node = try store.read { tx in try BinderPath.resolveInTrash(path, tx) }
            if let destination {
                let parent = try store.read { tx -> RecordID in
                    let target = try BinderPath.resolve(destination, tx)
                    guard target.kind != .file else { throw AppError("'\(destination)' is a file; restore into a folder or project") }
                    return target.id
                }
                return try store.write { tx -> String in
                    try Self.checkPlace(for: node, under: parent, path: path, tx)
                    try tx.restore(node.id, to: parent)
                    return "restored \(BinderPath.display(node.id, tx))"
                }
            }
            return try store.write { tx -> String in
                guard let place = tx.deletedFrom(node.id) else {
                    if !tx.trash.contains(node.id), let deleted = tx.path(of: node.id).first, deleted != node.id {
                        throw AppError("'\(path)' went to the trash inside '\(BinderPath.display(deleted, tx))'; restore that, or give a folder to restore this one into: quire restore \(node.id) DEST")
                    }
                    throw AppError("'\(path)' was never outside the trash here (it was created inside a deleted folder); give a folder to restore it into: quire restore \(node.id) DEST")
                }
                if let parent = place.parent, try tx.isDeleted(parent) || BinderNode.read(parent, tx) == nil {
                    throw AppError("'\(path)' was deleted from a folder that is in the trash itself; restore that folder, or give another: quire restore \(node.id) DEST")
                }
                try Self.checkPlace(for: node, under: place.parent, path: path, tx)
                // Back between the neighbours it had, by its old position key.
                try tx.restore(node.id)
                return "restored \(BinderPath.display(node.id, tx))"
            }
        }
        context.output.writeLine(message)
    }

    /// Refuses to restore `node` under `parent` (`nil`: the top level) where it cannot go:
    /// a project anywhere but the top level, a folder or file at the top level, or beside a
    /// sibling of its name.
    private static func checkPlace(for node: BinderNode, under parent: RecordID?, path: String, _ tx: borrowing StoreWriter) throws {
        if let parent, node.kind != .project {
            try BinderPath.checkFree(node.name, under: parent, except: node.id, tx, remedy: Self.remedy(for: node))
        } else if node.kind == .project {
            guard parent == nil else { throw AppError("'\(path)' is a project; projects are restored to the top level: quire restore \(node.id)") }
            try BinderPath.checkFree(node.name, under: nil, except: node.id, tx, remedy: Self.remedy(for: node))
        } else {
            throw AppError("folders and files go in a project; give one: quire restore \(node.id) DEST")
        }
    }

    /// Puts the text of the file `path` back to `version`; returns what it did, in words.
    private func restoreText(to version: VersionArgument, in context: ToolContext) throws -> String {
        try AppStore.with(store, in: context) { store in
            let target = try version.version(in: store)
            return try store.write { tx -> String in
                let file = try FileAccess.file(path, tx)
                let before = try tx.string(of: file.content)
                try tx.restore(file.content, to: target)
                let (inserted, deleted) = RecordHistory.difference(before, try tx.string(of: file.content))
                guard inserted + deleted > 0 else { return "\(path) already reads as at \(version.text); nothing written" }
                return "restored \(path) to \(version.text): +\(inserted) −\(deleted) characters"
            }
        }
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
