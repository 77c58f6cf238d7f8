import Quire
import QuireApps

/// `quire cards category add|list|rename|rm`.
struct CategoryCommand: CommandGroup {
    static let name = "category"
    static let summary = "Add, list, rename and remove categories."
    static let discussion = """
        Categories are at the top level of the store, in the order they were added.

        Example:
          quire cards category add Capitals
        """
    static var subcommands: [any Command.Type] {
        [CategoryAddCommand.self, CategoryListCommand.self, CategoryRenameCommand.self, CategoryRemoveCommand.self]
    }
}

struct CategoryAddCommand: Command {
    static let name = "add"
    static let summary = "Add a category."
    static let usage = "[--store DIR] TITLE"
    static let discussion = """
        Adds the category TITLE at the end of the list; creates the store when DIR holds
        none yet. Titles are unique: a title in use is refused.

        Example:
          quire cards category add Capitals
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var title: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        title = try arguments.nextPositional(named: "TITLE").recordName()
    }

    func run(in context: ToolContext) async throws {
        try AppStore.with(store, in: context, creating: true) { store in
            try store.write { tx in
                if let existing = try tx.children(of: nil, ofType: Category.self).first(where: { $0.title == title }) {
                    throw AppError("a category titled '\(title)' exists already (\(existing.id)); choose another title")
                }
                try addCategory(title, tx)
            }
        }
        context.output.writeLine("added the category '\(title)'")
    }
}

struct CategoryListCommand: Command {
    static let name = "list"
    static let summary = "List the categories and how many notes each has."
    static let usage = "[--store DIR] [--json]"
    static let discussion = """
        One category per line, in order, with its number of notes. With --json, an
        array of objects: id, title, notes. With --deleted, the categories in the trash
        instead, each with the ID that 'quire restore ID' takes.

        Example:
          quire cards category list --json
          quire cards category list --deleted
        """
    static let json = Option.flag("json", help: "Print JSON.")
    static let deleted = Option.flag("deleted", help: "List the categories in the trash, with their IDs.")
    static var options: [Option] { [StoreLocation.option, json, deleted] }

    var store: String?
    var asJSON: Bool
    var listsDeleted: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        asJSON = arguments.flag(Self.json)
        listsDeleted = arguments.flag(Self.deleted)
    }

    struct Entry: Encodable {
        var id: String
        var title: String
        var notes: Int
    }

    func run(in context: ToolContext) async throws {
        let entries = try AppStore.with(store, in: context, writes: false) { store in
            try store.read { tx in
                // The trash holds deleted records of every kind, each where it was deleted.
                let categories = listsDeleted
                    ? try tx.trash.filter { tx.typeName(of: $0) == Category.typeName }.map { Stored(id: $0, value: try tx.record(Category.self, $0)) }
                    : try tx.children(of: nil, ofType: Category.self)
                return try categories.map { category in
                    Entry(id: category.id.description, title: category.title,
                          notes: try tx.children(of: category.id, ofType: CardNote.self).count)
                }
            }
        }
        if asJSON { return context.output.writeLine(try AppJSON.text(entries)) }
        if entries.isEmpty {
            context.output.writeLine(listsDeleted ? "no deleted categories" : "no categories yet; add one with 'quire cards category add TITLE'")
        }
        for entry in entries {
            let notes = entry.notes == 1 ? "1 note" : "\(entry.notes) notes"
            context.output.writeLine(listsDeleted ? "\(entry.title.visibleOnOneLine)  (\(notes))  \(entry.id)" : "\(entry.title.visibleOnOneLine)  (\(notes))")
        }
    }
}

struct CategoryRenameCommand: Command {
    static let name = "rename"
    static let summary = "Give a category a new title."
    static let usage = "[--store DIR] CATEGORY TITLE"
    static let discussion = """
        Renames CATEGORY (a title or an ID) to TITLE, which must not be in use.

        Example:
          quire cards category rename Capitals "World capitals"
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var category: String
    var title: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        category = try arguments.nextPositional(named: "CATEGORY").text
        title = try arguments.nextPositional(named: "TITLE").recordName()
    }

    func run(in context: ToolContext) async throws {
        try AppStore.with(store, in: context) { store in
            try store.write { tx in
                let found = try CardsPath.category(category, tx)
                if let other = try tx.children(of: nil, ofType: Category.self).first(where: { $0.title == title && $0.id != found.id }) {
                    throw AppError("a category titled '\(title)' exists already (\(other.id)); choose another title")
                }
                try tx.update(found.id, as: Category.self) { $0.title = title }
            }
        }
        context.output.writeLine("renamed '\(category)' to '\(title)'")
    }
}

struct CategoryRemoveCommand: Command {
    static let name = "rm"
    static let summary = "Move a category, with its notes, to the trash."
    static let usage = "[--store DIR] CATEGORY"
    static let discussion = """
        Moves CATEGORY and its notes and clues to the store's trash and prints its ID;
        'quire restore ID' brings it back ('quire cards category list --deleted' lists
        the deleted categories with their IDs).

        Example:
          quire cards category rm Capitals
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var category: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        category = try arguments.nextPositional(named: "CATEGORY").text
    }

    func run(in context: ToolContext) async throws {
        let id = try AppStore.with(store, in: context) { store in
            try store.write { tx in
                let found = try CardsPath.category(category, tx)
                try tx.delete(found.id)
                return found.id
            }
        }
        context.output.writeLine("moved the category '\(category)' to the trash (\(id)); bring it back with 'quire restore \(id)'")
    }
}
