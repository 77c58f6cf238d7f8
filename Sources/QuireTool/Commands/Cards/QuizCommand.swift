import Foundation
import Quire
import QuireApps

/// `quire cards quiz [CATEGORY]`: clues shown, answers read from standard input.
struct QuizCommand: Command {
    static let name = "quiz"
    static let summary = "Quiz yourself: shows each note's clues and reads your answer."
    static let usage = "[--store DIR] [CATEGORY]"
    static let discussion = """
        For each note of CATEGORY (or of every category), in order: prints its clues,
        reads one line from standard input, and says whether it matches the answer
        (ignoring case, spaces at the ends, and a final period). An empty line shows the
        answer. Ends with the score; end of input stops early. Reads nothing from the
        store while you answer, so answers can also be piped in.

        Example:
          quire cards quiz Capitals
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var category: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        category = arguments.nextPositionalIfPresent(named: "CATEGORY")?.text
    }

    struct Card {
        var category: String
        var answer: String
        var clues: [String]
    }

    func run(in context: ToolContext) async throws {
        let cards = try AppStore.with(store, in: context, writes: false) { store in
            try store.read { tx -> [Card] in
                let categories = try category.map { [try CardsPath.category($0, tx)] } ?? tx.children(of: nil, ofType: Category.self)
                return try categories.flatMap { category in
                    try tx.children(of: category.id, ofType: CardNote.self).map { note in
                        Card(category: category.title, answer: try tx.string(of: note.id.text(CardNote.answerField)),
                             clues: try tx.children(of: note.id, ofType: Clue.self).map { try tx.string(of: $0.id.text(Clue.textField)) })
                    }
                }
            }
        }
        guard !cards.isEmpty else {
            throw AppError("no notes to quiz on; add some with 'quire cards note add CATEGORY --answer TEXT'")
        }
        var right = 0, asked = 0
        for (index, card) in cards.enumerated() {
            context.output.writeLine("\(index + 1)/\(cards.count) [\(card.category.visibleOnOneLine)]")
            if card.clues.isEmpty { context.output.writeLine("  (no clues)") }
            for clue in card.clues { context.output.writeLine("  - \(clue.visibleOnOneLine)") }
            context.output.write("your answer: ")
            guard let line = readLine() else {
                context.output.writeLine("")
                break
            }
            asked += 1
            if Self.normalized(line) == Self.normalized(card.answer) && !Self.normalized(line).isEmpty {
                right += 1
                context.output.writeLine("right!")
            } else {
                context.output.writeLine("the answer is: \(card.answer.visibleOnOneLine)")
            }
        }
        context.output.writeLine("score: \(right)/\(asked)" + (asked < cards.count ? " (stopped after \(asked) of \(cards.count))" : ""))
    }

    static func normalized(_ text: String) -> String {
        var text = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
