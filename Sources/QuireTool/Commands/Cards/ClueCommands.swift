import Foundation
import Quire
import QuireApps

/// `quire cards clue add|list|edit|move|rm`.
struct ClueCommand: CommandGroup {
    static let name = "clue"
    static let summary = "Add, list, edit, reorder and remove the clues of a note."
    static let discussion = """
        A clue is a text of a note, shown in order by the quiz. Name a note as
        CATEGORY/N and a clue as CATEGORY/N/M (from 1, as the lists show), or by ID.

        Example:
          quire cards clue add Capitals/1 "City of light"
        """
    static var subcommands: [any Command.Type] {
        [ClueAddCommand.self, ClueListCommand.self, ClueEditCommand.self, ClueMoveCommand.self, ClueRemoveCommand.self]
    }
}

/// The text of a clue, not empty.
private func clueText(_ arguments: inout Arguments) throws(UsageError) -> String {
    let value = try arguments.nextPositional(named: "TEXT")
    guard !value.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
        throw .invalidValue(value.text, source: value.source, expected: "a clue that is not empty")
    }
    return value.text
}

struct ClueAddCommand: Command {
    static let name = "add"
    static let summary = "Add a clue to a note."
    static let usage = "[--store DIR] NOTE TEXT [--at INDEX]"
    static let discussion = """
        Adds the clue TEXT to NOTE (CATEGORY/N or an ID), at the end or at position
        INDEX (1 is first).

        Example:
          quire cards clue add Capitals/1 "City of light"
        """
    static let at = Option.value("at", placeholder: "INDEX", help: "Position among the note's clues, 1 first.")
    static var options: [Option] { [StoreLocation.option, at] }

    var store: String?
    var note: String
    var text: String
    var index: Int?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        note = try arguments.nextPositional(named: "NOTE").text
        text = try clueText(&arguments)
        index = try arguments.position(Self.at)
    }

    func run(in context: ToolContext) async throws {
        let position = try AppStore.with(store, in: context) { store in
            try store.write { tx in
                let found = try CardsPath.note(note, tx)
                let count = try tx.children(of: found.id, ofType: Clue.self).count
                let position = min(index ?? count, count)
                try addClue(text, to: found.id, at: position, created: Date(), tx)
                return position + 1
            }
        }
        context.output.writeLine("added clue \(note.visibleOnOneLine)/\(position): \(text.visibleOnOneLine)")
    }
}

struct ClueListCommand: Command {
    static let name = "list"
    static let summary = "List a note's clues."
    static let usage = "[--store DIR] NOTE [--json]"
    static let discussion = """
        One clue per line, numbered from 1. With --json, an array of objects: id,
        index, text, created.

        Example:
          quire cards clue list Capitals/1
        """
    static let json = Option.flag("json", help: "Print JSON.")
    static var options: [Option] { [StoreLocation.option, json] }

    var store: String?
    var note: String
    var asJSON: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        note = try arguments.nextPositional(named: "NOTE").text
        asJSON = arguments.flag(Self.json)
    }

    struct Entry: Encodable {
        var id: String
        var index: Int
        var text: String
        var created: String
    }

    func run(in context: ToolContext) async throws {
        let entries = try AppStore.with(store, in: context, writes: false) { store in
            try store.read { tx in
                try tx.children(of: CardsPath.note(note, tx).id, ofType: Clue.self).enumerated().map { index, clue in
                    Entry(id: clue.id.description, index: index + 1, text: try tx.string(of: clue.id.text(Clue.textField)),
                          created: BinderTree.isoDate(clue.created))
                }
            }
        }
        if asJSON { return context.output.writeLine(try AppJSON.text(entries)) }
        if entries.isEmpty { context.output.writeLine("note \(note) has no clues yet; add one with \(SuggestedCommand.quire("cards", "clue", "add", .value(note), "TEXT"))") }
        for entry in entries { context.output.writeLine("\(entry.index). \(entry.text.visibleOnOneLine)") }
    }
}

struct ClueEditCommand: Command {
    static let name = "edit"
    static let summary = "Change a clue's text (stored as the smallest edit)."
    static let usage = "[--store DIR] CLUE TEXT"
    static let discussion = """
        Makes CLUE (CATEGORY/N/M or an ID) read TEXT; only the part that differs is
        stored, so two devices fixing different words of one clue keep both fixes.

        Example:
          quire cards clue edit Capitals/1/1 "The city of light"
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var clue: String
    var text: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        clue = try arguments.nextPositional(named: "CLUE").text
        text = try clueText(&arguments)
    }

    func run(in context: ToolContext) async throws {
        try AppStore.with(store, in: context) { store in
            try store.write { tx in try tx.setString(text, in: CardsPath.clue(clue, tx).id.text(Clue.textField)) }
        }
        context.output.writeLine("clue \(clue.visibleOnOneLine) now reads: \(text.visibleOnOneLine)")
    }
}

struct ClueMoveCommand: Command {
    static let name = "move"
    static let summary = "Move a clue to another position among its note's clues."
    static let usage = "[--store DIR] CLUE --to INDEX"
    static let discussion = """
        Moves CLUE to position INDEX among its note's clues (1 is first).

        Example:
          quire cards clue move Capitals/1/2 --to 1
        """
    static let to = Option.value("to", placeholder: "INDEX", help: "The new position, 1 first.")
    static var options: [Option] { [StoreLocation.option, to] }

    var store: String?
    var clue: String
    var index: Int

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        clue = try arguments.nextPositional(named: "CLUE").text
        guard let index = try arguments.position(Self.to) else { throw .missingOption(Self.to) }
        self.index = index
    }

    func run(in context: ToolContext) async throws {
        let position = try AppStore.with(store, in: context) { store in
            try store.write { tx in
                let found = try CardsPath.clue(clue, tx)
                let siblings = tx.children(of: tx.parent(of: found.id)).filter { $0 != found.id }.count
                let position = min(index, siblings)
                try tx.reorder(found.id, to: position)
                return position + 1
            }
        }
        context.output.writeLine("moved clue \(clue) to position \(position)")
    }
}

struct ClueRemoveCommand: Command {
    static let name = "rm"
    static let summary = "Move a clue to the trash."
    static let usage = "[--store DIR] CLUE"
    static let discussion = """
        Moves CLUE (CATEGORY/N/M or an ID) to the store's trash. Prints its ID: 'quire
        restore ID' puts it back into its note.

        Example:
          quire cards clue rm Capitals/1/2
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var clue: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        clue = try arguments.nextPositional(named: "CLUE").text
    }

    func run(in context: ToolContext) async throws {
        let id = try AppStore.with(store, in: context) { store in
            try store.write { tx in
                let found = try CardsPath.clue(clue, tx)
                try tx.delete(found.id)
                return found.id
            }
        }
        context.output.writeLine("moved clue \(clue) to the trash (\(id)); bring it back with 'quire restore \(id)'")
    }
}
