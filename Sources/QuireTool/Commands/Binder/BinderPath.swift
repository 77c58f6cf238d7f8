import Foundation
import Quire
import QuireApps

/// Paths of the writing app: names from a project down, separated by `/`, such as
/// `My Poetry/Your Poetry/Draft/Ode`. Any name may be replaced by the record's ID
/// (`3a9d52c01b7e4f66@12`, as `quire tree --ids` shows it), which is how a user picks one
/// of two siblings with the same name; a path may also start with the ID of any record.
/// No name has the form of an ID (``RecordName/validate(_:)`` refuses it), so a name of
/// that form is always read as an ID, in every command; names stored before that rule
/// are still found by name when no record has the ID they look like.
enum BinderPath {
    /// The names of a path, without empty ones (so leading, trailing and double slashes
    /// do not matter).
    static func components(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// The live binder record `path` names.
    ///
    /// - Throws: ``AppError`` naming the first name that matches nothing (and what is
    ///   there instead), a name that matches several siblings (with their IDs), or a
    ///   record that is in the trash.
    static func resolve<R: StoreReading & ~Copyable>(_ path: String, _ tx: borrowing R) throws -> BinderNode {
        let node = try resolve(path, inTrash: false, tx)
        return node
    }

    /// The binder record `path` names in the trash: its first name is a deleted record
    /// (or any record's ID), the rest goes down from there.
    static func resolveInTrash<R: StoreReading & ~Copyable>(_ path: String, _ tx: borrowing R) throws -> BinderNode {
        try resolve(path, inTrash: true, tx)
    }

    /// The parent that `path` names minus its last name, and that last name: where
    /// `mkdir` and `touch` create.
    ///
    /// - Throws: ``AppError`` for an unknown parent, or a path of one name (the top level
    ///   holds projects: `quire project create`).
    static func resolveParent<R: StoreReading & ~Copyable>(
        of path: String, _ tx: borrowing R, creating what: String
    ) throws -> (parent: BinderNode, name: String) {
        var names = components(path)
        guard let name = names.popLast() else { throw AppError("the path is empty; give one such as 'My Poetry/Your Poetry/Draft/Ode'") }
        guard !names.isEmpty else {
            throw AppError("'\(name.abbreviated)' would be at the top level, which holds projects; create a project with \(SuggestedCommand.quire("project", "create", .value(name, placeholder: "NAME"), "--type", "poetry")) (or --type prose or drama) or give a path inside one, such as 'My Poetry/\(name.abbreviated)'")
        }
        let parent = try resolve(names.joined(separator: "/"), tx)
        guard parent.kind != .file else {
            throw AppError("'\(names.joined(separator: "/"))' is a file; a \(what) goes in a folder or project")
        }
        return (parent, name)
    }

    /// The path of `id` as names from its project (or from the deleted record in the
    /// trash that holds it), such as `My Poetry/Your Poetry/Draft`.
    static func display<R: StoreReading & ~Copyable>(_ id: RecordID?, _ tx: borrowing R) -> String {
        guard let id else { return "the top level" }
        let names = tx.path(of: id).map { (try? BinderNode.read($0, tx))??.name ?? $0.description }
        return names.joined(separator: "/")
    }

    /// The sibling of `parent` other than `except` already called `name`, if any.
    static func sibling<R: StoreReading & ~Copyable>(
        named name: String, under parent: RecordID?, except: RecordID? = nil, _ tx: borrowing R
    ) throws -> BinderNode? {
        try BinderNode.children(of: parent, tx).first { $0.name == name && $0.id != except }
    }

    /// Throws when `parent` already has a child called `name`: the binder keeps sibling
    /// names unique (merges may still make clashes; those are reported, not refused).
    ///
    /// - Parameter remedy: What to do about it, when choosing another name is not how
    ///   (restoring or moving a record keeps its name); gets the existing sibling.
    static func checkFree<R: StoreReading & ~Copyable>(
        _ name: String, under parent: RecordID?, except: RecordID? = nil, _ tx: borrowing R,
        remedy: (BinderNode) -> String = { _ in "choose another name" }
    ) throws {
        if let existing = try sibling(named: name, under: parent, except: except, tx) {
            throw AppError("\(display(parent, tx)) already has a \(existing.kind.rawValue) named '\(name.abbreviated)' (\(existing.id)); \(remedy(existing))")
        }
    }

    private static func resolve<R: StoreReading & ~Copyable>(_ path: String, inTrash: Bool, _ tx: borrowing R) throws -> BinderNode {
        let names = components(path)
        guard let first = names.first else {
            throw AppError("the path is empty; give one such as 'My Poetry/Your Poetry/Draft/Ode' (see 'quire tree')")
        }
        var current: BinderNode
        if let id = RecordID(parsing: first), let node = try BinderNode.read(id, tx) {
            current = node
        } else if inTrash {
            let roots = try BinderNode.read(tx.trash, tx)
            current = try pick(first, among: roots, where: "the trash", path: path)
        } else {
            let projects = try BinderNode.children(of: nil, tx)
            if !projects.contains(where: { $0.name == first }),
               let deleted = try BinderNode.read(tx.trash, tx).first(where: { $0.name == first }) {
                throw AppError("'\(first.abbreviated)' is in the trash, not at the top level (in the path '\(path.abbreviated)'); 'quire tree' lists the trash. Bring it back with \(SuggestedCommand.quire("restore", "\(deleted.id)")), or restore just this part into a folder with \(SuggestedCommand.quire("restore", .value(path), "DEST"))")
            }
            current = try pick(first, among: projects, where: "the top level (projects)", path: path)
        }
        for name in names.dropFirst() {
            let children = try BinderNode.children(of: current.id, tx)
            if let id = RecordID(parsing: name), let child = children.first(where: { $0.id == id }) {
                current = child
            } else {
                current = try pick(name, among: children, where: "'\(display(current.id, tx).abbreviated)'", path: path)
            }
        }
        if !inTrash && tx.isDeleted(current.id) {
            throw AppError("'\(path.abbreviated)' is in the trash; bring it back with \(SuggestedCommand.quire("restore", "\(current.id)"))")
        }
        if inTrash && !tx.isDeleted(current.id) {
            throw AppError("'\(path.abbreviated)' is not in the trash (it is at '\(display(current.id, tx).abbreviated)')")
        }
        return current
    }

    private static func pick(_ name: String, among nodes: [BinderNode], where place: String, path: String) throws -> BinderNode {
        let matches = nodes.filter { $0.name == name }
        switch matches.count {
        case 1:
            return matches[0]
        case 0 where RecordID(parsing: name) != nil:
            throw AppError("no record \(name) in \(place) (in the path '\(path)'): a name of that form is read as a record ID, and no record with that ID is there — see 'quire tree --ids'")
        case 0:
            let names = nodes.map { "'\($0.name.abbreviated)'" }
            let there = names.isEmpty ? "it is empty" : "it holds " + names.prefix(12).joined(separator: ", ") + (names.count > 12 ? ", …" : "")
            throw AppError("no '\(name.abbreviated)' in \(place) (in the path '\(path.abbreviated)'); \(there) — see 'quire tree'")
        default:
            let candidates = matches.map(\.kindAndID).joined(separator: ", ")
            throw AppError("'\(name.abbreviated)' in \(place) names \(matches.count) records (a name clash, usually from two devices): \(candidates); put the ID of the one you mean in the path instead of the name, and rename one with 'quire rename ID NEWNAME'")
        }
    }
}
