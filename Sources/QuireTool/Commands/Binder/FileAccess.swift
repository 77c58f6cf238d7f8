import Foundation
import Quire
import QuireApps

/// Finding and creating files for the commands that read and write their content.
enum FileAccess {
    /// The live file `path` names.
    ///
    /// - Throws: ``AppError`` for an unknown path, or one that names a folder or project.
    static func file<R: StoreReading & ~Copyable>(_ path: String, _ tx: borrowing R) throws -> BinderNode {
        let node = try BinderPath.resolve(path, tx)
        guard node.kind == .file else {
            throw AppError("'\(path.abbreviated)' is a \(node.kind.rawValue), not a file; see its contents with \(SuggestedCommand.quire("tree", .value(path)))")
        }
        return node
    }

    /// The file `path` names, created (empty) when its parent exists and it does not.
    ///
    /// - Returns: The file and whether it was created.
    ///
    /// A path that ends in a record ID (or is one) names that file, which must exist: no
    /// new file is given the form of an ID as its name (``RecordName`` refuses it).
    static func fileCreating(_ path: String, _ tx: borrowing StoreWriter) throws -> (file: BinderNode, created: Bool) {
        if let last = BinderPath.components(path).last, RecordID(parsing: last) != nil {
            return (try file(path, tx), false)
        }
        let (parent, name) = try BinderPath.resolveParent(of: path, tx, creating: "file")
        if try BinderPath.sibling(named: name, under: parent.id, tx) != nil {
            return (try file(path, tx), false)
        }
        let id = try tx.insert(File(name: name), under: parent.id)
        return (BinderNode(id: id, kind: .file, name: name), true)
    }

    /// All of standard input, as UTF-8 text.
    ///
    /// - Parameter example: A command line that gives the command its input, for errors.
    /// - Throws: ``AppError`` when standard input is closed, a directory, unreadable or
    ///   not UTF-8.
    static func readStandardInput(example: String) throws -> String {
        let bytes: [UInt8]
        do {
            bytes = try StandardInput.readAll(example: example)
        } catch {
            throw AppError(error.description)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw AppError("standard input is not UTF-8 text; convert it first (for example with iconv)")
        }
        return text
    }
}
