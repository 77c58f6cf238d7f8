import Quire

/// `quire write PATH < TEXT`.
struct WriteCommand: Command {
    static let name = "write"
    static let summary = "Replace a file's text with standard input, as the smallest edit."
    static let usage = "[--store DIR] PATH"
    static let discussion = """
        Reads standard input to the end and makes the file PATH read exactly that,
        creating the file when its folder exists and it does not (PATH may also be a
        file's ID, as 'quire tree --ids' shows it). Only what differs is
        stored: the text the old and new versions share at the start and the end stays,
        and just the middle is replaced, so edits other replicas make elsewhere in the
        file survive the merge. Prints how many characters went in and out.

        Example:
          echo "The sea is calm tonight." | quire write "My Poetry/Your Poetry/Draft/Ode"
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var path: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        let value = try arguments.nextPositional(named: "PATH")
        _ = try value.lastPathName(allowingID: true)
        path = value.text
    }

    func run(in context: ToolContext) async throws {
        let text = try FileAccess.readStandardInput(example: "quire write \(path.shellQuoted) < draft.txt")
        let summary = try AppStore.with(store, in: context) { store in
            try store.write { tx -> String in
                let (file, created) = try FileAccess.fileCreating(path, tx)
                let old = try tx.string(of: file.content)
                try tx.setString(text, in: file.content)
                let (inserted, deleted) = RecordHistory.difference(old, text)
                let words = try tx.wordCount(of: file.content)
                return (created ? "created " : "wrote ") + "\(path): +\(inserted) −\(deleted) characters, \(BinderTree.wordCount(words))"
            }
        }
        context.output.writeLine(summary)
    }
}
