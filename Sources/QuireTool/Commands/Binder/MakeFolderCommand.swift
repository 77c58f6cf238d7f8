import Quire
import QuireApps

/// `quire mkdir [-p] PATH`.
struct MakeFolderCommand: Command {
    static let name = "mkdir"
    static let summary = "Make a folder in a project."
    static let usage = "[--store DIR] [--parents] PATH"
    static let discussion = """
        Makes the folder PATH; its parent must exist, unless --parents makes the
        missing folders along the way too. Folders nest to any depth. A name in use
        among the siblings is refused.

        Example:
          quire mkdir "My Poetry/Your Poetry/Draft/Sonnets"
        """
    static let parents = Option.flag("parents", shortName: "p", help: "Make missing parent folders too.")
    static var options: [Option] { [StoreLocation.option, parents] }

    var store: String?
    var path: String
    var makeParents: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        let value = try arguments.nextPositional(named: "PATH")
        // Names along the way may be IDs of existing folders; the last is the new folder's name.
        for name in BinderPath.components(value.text).dropLast() where RecordID(parsing: name) == nil {
            _ = try ArgumentValue.named(name, like: value).recordName()
        }
        _ = try value.lastPathName()
        path = value.text
        makeParents = arguments.flag(Self.parents)
    }

    func run(in context: ToolContext) async throws {
        let made = try AppStore.with(store, in: context) { store in
            try store.write { tx -> [String] in
                var names = BinderPath.components(path)
                var existing: [String] = []
                var made: [String] = []
                if makeParents {
                    // The longest prefix that exists; the rest is made.
                    while names.count > 1, (try? BinderPath.resolve((existing + [names[0]]).joined(separator: "/"), tx)) != nil {
                        existing.append(names.removeFirst())
                    }
                    guard !existing.isEmpty else {
                        _ = try BinderPath.resolve(names[0], tx)  // throws: no such project
                        return []
                    }
                    var parent = try BinderPath.resolve(existing.joined(separator: "/"), tx)
                    if let last = names.last, names.count == 1, try BinderPath.sibling(named: last, under: parent.id, tx) != nil {
                        return []  // mkdir -p of a folder that exists: nothing to do
                    }
                    for name in names {
                        if RecordID(parsing: name) != nil {
                            throw AppError("no record \(name) in '\(BinderPath.display(parent.id, tx))' (in the path '\(path)'): a name of that form is read as a record ID, and no record with that ID is there — see 'quire tree --ids'")
                        }
                        guard parent.kind != .file else { throw AppError("'\(BinderPath.display(parent.id, tx))' is a file; folders go in folders or projects") }
                        try BinderPath.checkFree(name, under: parent.id, tx)
                        let id = try tx.insert(Folder(name: name), under: parent.id)
                        parent = BinderNode(id: id, kind: .folder, name: name)
                        made.append(BinderPath.display(id, tx))
                    }
                    return made
                }
                let (parent, name) = try BinderPath.resolveParent(of: path, tx, creating: "folder")
                try BinderPath.checkFree(name, under: parent.id, tx)
                let id = try tx.insert(Folder(name: name), under: parent.id)
                return [BinderPath.display(id, tx)]
            }
        }
        for folder in made { context.output.writeLine("made \(folder)") }
    }
}

extension ArgumentValue {
    /// Another text from the same source, to check one name of a path.
    static func named(_ text: String, like value: ArgumentValue) -> ArgumentValue {
        ArgumentValue(text: text, source: value.source, currentDirectory: value.currentDirectory)
    }
}
