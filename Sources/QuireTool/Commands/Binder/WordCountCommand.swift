import Quire
import QuireApps

/// `quire wc PATH`.
struct WordCountCommand: Command {
    static let name = "wc"
    static let summary = "Count the words of a file, or of every file in a folder or project."
    static let usage = "[--store DIR] PATH"
    static let discussion = """
        Words are runs of letters and digits (apostrophes and '_' join words).
        Characters are counted as a reader sees them (grapheme clusters): an emoji with
        a skin tone, a flag or a family is one character, and so is a CRLF line break.
        For a file, prints its words and characters; for a folder or project, one line
        per file inside it and the total.

        Example:
          quire wc "My Poetry"
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var path: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        path = try arguments.nextPositional(named: "PATH").text
    }

    func run(in context: ToolContext) async throws {
        let lines = try AppStore.with(store, in: context, writes: false) { store in
            try store.read { tx -> [String] in
                let node = try BinderPath.resolve(path, tx)
                let files = try BinderNode.read(tx.subtree(of: node.id), tx).filter { $0.kind == .file }
                var lines: [String] = []
                var totalWords = 0, totalCharacters = 0
                for file in files {
                    let words = try tx.wordCount(of: file.content), characters = try BinderTree.characterCount(of: file, tx)
                    totalWords += words
                    totalCharacters += characters
                    lines.append("\(pad(words)) words \(pad(characters)) characters  \(BinderPath.display(file.id, tx))")
                }
                if node.kind != .file {
                    lines.append("\(pad(totalWords)) words \(pad(totalCharacters)) characters  total, \(files.count == 1 ? "1 file" : "\(files.count) files")")
                }
                return lines
            }
        }
        for line in lines { context.output.writeLine(line) }
    }

    private func pad(_ number: Int) -> String {
        let text = String(number)
        return String(repeating: " ", count: max(0, 7 - text.count)) + text
    }
}
