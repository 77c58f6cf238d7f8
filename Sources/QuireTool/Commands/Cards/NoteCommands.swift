import Quire
import QuireApps

/// `quire cards note add|list|edit|move|rm`.
struct NoteCommand: CommandGroup {
    static let name = "note"
    static let summary = "Add, list, edit, reorder and remove the notes of a category."
    static let discussion = """
        A note has an answer (a text, so edits on two devices merge) and clues. Name a
        note as CATEGORY/N, N counting from 1 as 'note list' shows, or by its ID.

        Example:
          quire cards note add Capitals --answer Paris
        """
    static var subcommands: [any Command.Type] {
        [NoteAddCommand.self, NoteListCommand.self, NoteEditCommand.self, NoteMoveCommand.self, NoteRemoveCommand.self]
    }
}

/// `--answer TEXT`, required by `note add`.
private let answerOption = Option.value("answer", placeholder: "TEXT", help: "The note's answer.")

/// The answer as given, not empty.
private func requiredAnswer(_ arguments: Arguments) throws(UsageError) -> String {
    guard let value = arguments.value(of: answerOption) else { throw .missingOption(answerOption) }
    guard !value.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
        throw .invalidValue(value.text, source: value.source, expected: "an answer that is not empty")
    }
    return value.text
}

struct NoteAddCommand: Command {
    static let name = "add"
    static let summary = "Add a note with its answer to a category."
    static let usage = "[--store DIR] CATEGORY --answer TEXT [--at INDEX]"
    static let discussion = """
        Adds a note answering TEXT to CATEGORY, at the end or at position INDEX (1 is
        first). Prints the note's name (CATEGORY/N) for 'quire cards clue add'.

        Example:
          quire cards note add Capitals --answer Paris
        """
    static let at = Option.value("at", placeholder: "INDEX", help: "Position in the category, 1 first.")
    static var options: [Option] { [StoreLocation.option, answerOption, at] }

    var store: String?
    var category: String
    var answer: String
    var index: Int?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        category = try arguments.nextPositional(named: "CATEGORY").text
        answer = try requiredAnswer(arguments)
        index = try arguments.position(Self.at)
    }

    func run(in context: ToolContext) async throws {
        let (title, position) = try AppStore.with(store, in: context) { store in
            try store.write { tx in
                let found = try CardsPath.category(category, tx)
                let count = try tx.children(of: found.id, ofType: CardNote.self).count
                let position = min(index ?? count, count)
                try addNote(answer: answer, to: found.id, at: position, tx)
                return (found.title, position + 1)
            }
        }
        context.output.writeLine("added note \(title.visibleOnOneLine)/\(position): \(answer.visibleOnOneLine)")
    }
}

struct NoteListCommand: Command {
    static let name = "list"
    static let summary = "List a category's notes: answers and clue counts."
    static let usage = "[--store DIR] CATEGORY [--json]"
    static let discussion = """
        One note per line, numbered from 1, with its answer and number of clues. With
        --json, an array of objects: id, index, answer, clues (the clues' texts).

        Example:
          quire cards note list Capitals
        """
    static let json = Option.flag("json", help: "Print JSON.")
    static var options: [Option] { [StoreLocation.option, json] }

    var store: String?
    var category: String
    var asJSON: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        category = try arguments.nextPositional(named: "CATEGORY").text
        asJSON = arguments.flag(Self.json)
    }

    struct Entry: Encodable {
        var id: String
        var index: Int
        var answer: String
        var clues: [String]
    }

    func run(in context: ToolContext) async throws {
        let (title, entries) = try AppStore.with(store, in: context, writes: false) { store in
            try store.read { tx in
                let found = try CardsPath.category(category, tx)
                let entries = try tx.children(of: found.id, ofType: CardNote.self).enumerated().map { index, note in
                    Entry(id: note.id.description, index: index + 1,
                          answer: try tx.string(of: note.id.text(CardNote.answerField)),
                          clues: try tx.children(of: note.id, ofType: Clue.self).map { try tx.string(of: $0.id.text(Clue.textField)) })
                }
                return (found.title, entries)
            }
        }
        if asJSON { return context.output.writeLine(try AppJSON.text(entries)) }
        if entries.isEmpty { context.output.writeLine("'\(title)' has no notes yet; add one with \(SuggestedCommand.quire("cards", "note", "add", .value(title), "--answer", "TEXT"))") }
        for entry in entries {
            context.output.writeLine("\(entry.index). \(entry.answer.visibleOnOneLine)  (\(entry.clues.count == 1 ? "1 clue" : "\(entry.clues.count) clues"))")
        }
    }
}

struct NoteEditCommand: Command {
    static let name = "edit"
    static let summary = "Change a note's answer (stored as the smallest edit)."
    static let usage = "[--store DIR] NOTE --answer TEXT"
    static let discussion = """
        Makes NOTE's answer read TEXT; only the part that differs is stored, so an edit
        another device makes elsewhere in the answer survives the merge.

        Example:
          quire cards note edit Capitals/1 --answer "Paris, France"
        """
    static var options: [Option] { [StoreLocation.option, answerOption] }

    var store: String?
    var note: String
    var answer: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        note = try arguments.nextPositional(named: "NOTE").text
        answer = try requiredAnswer(arguments)
    }

    func run(in context: ToolContext) async throws {
        try AppStore.with(store, in: context) { store in
            try store.write { tx in try tx.setString(answer, in: CardsPath.note(note, tx).id.text(CardNote.answerField)) }
        }
        context.output.writeLine("note \(note.visibleOnOneLine) now answers: \(answer.visibleOnOneLine)")
    }
}

struct NoteMoveCommand: Command {
    static let name = "move"
    static let summary = "Move a note to another position in its category."
    static let usage = "[--store DIR] NOTE --to INDEX"
    static let discussion = """
        Moves NOTE to position INDEX of its category (1 is first). Two devices that
        reorder concurrently never duplicate or drop a note.

        Example:
          quire cards note move Capitals/3 --to 1
        """
    static let to = Option.value("to", placeholder: "INDEX", help: "The new position, 1 first.")
    static var options: [Option] { [StoreLocation.option, to] }

    var store: String?
    var note: String
    var index: Int

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        note = try arguments.nextPositional(named: "NOTE").text
        guard let index = try arguments.position(Self.to) else { throw .missingOption(Self.to) }
        self.index = index
    }

    func run(in context: ToolContext) async throws {
        let position = try AppStore.with(store, in: context) { store in
            try store.write { tx in
                let found = try CardsPath.note(note, tx)
                let siblings = tx.children(of: tx.parent(of: found.id)).filter { $0 != found.id }.count
                let position = min(index, siblings)
                try tx.reorder(found.id, to: position)
                return position + 1
            }
        }
        context.output.writeLine("moved note \(note) to position \(position)")
    }
}

struct NoteRemoveCommand: Command {
    static let name = "rm"
    static let summary = "Move a note, with its clues, to the trash."
    static let usage = "[--store DIR] NOTE"
    static let discussion = """
        Moves NOTE and its clues to the store's trash; the notes after it move up.
        Prints its ID: 'quire restore ID' puts it back into its category.

        Example:
          quire cards note rm Capitals/2
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var note: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        note = try arguments.nextPositional(named: "NOTE").text
    }

    func run(in context: ToolContext) async throws {
        let id = try AppStore.with(store, in: context) { store in
            try store.write { tx in
                let found = try CardsPath.note(note, tx)
                try tx.delete(found.id)
                return found.id
            }
        }
        context.output.writeLine("moved note \(note) to the trash (\(id)); bring it back with 'quire restore \(id)'")
    }
}
