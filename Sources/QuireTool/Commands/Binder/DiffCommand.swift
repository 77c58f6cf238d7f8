import Quire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `quire diff PATH --from VERSION [--to VERSION]`.
struct DiffCommand: Command {
    static let name = "diff"
    static let summary = "Show how a file's text changed between two versions."
    static let usage = "[--store DIR] --from VERSION [--to VERSION] PATH"
    static let discussion = """
        Prints the edits that turn the text of the file PATH at --from into its text at
        --to (default: now), one block per edit, in document order:

          @ 6..<11 -> 6..<12        the range in the old text, then in the new one
          -world                    what was deleted (every line marked "-")
          +there!                   what was typed (every line marked "+")

        Ranges count Unicode scalars. Nothing is printed when the texts are the same. On
        a terminal deletions are red and insertions green.

        A VERSION is a version file written by 'quire status --version-out FILE', the
        same pairs inline as REPLICA:COUNTER,... or 'now'. --from has no default: write a
        version file before the edits you want to see.

        Example:
          quire status --version-out before.version
          quire edit "My Poetry/Your Poetry/Draft/Ode" ...
          quire diff "My Poetry/Your Poetry/Draft/Ode" --from before.version
        """
    static let from = Option.value("from", placeholder: "VERSION", help: "The old text's version. " + VersionArgument.help)
    static let to = Option.value("to", placeholder: "VERSION", help: "The new text's version (default: now).")
    static var options: [Option] { [StoreLocation.option, from, to] }

    var store: String?
    var path: String
    var old: VersionArgument
    var new: VersionArgument?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        guard let from = try arguments.value(of: Self.from).map(VersionArgument.init) else { throw .missingOption(Self.from) }
        old = from
        new = try arguments.value(of: Self.to).map(VersionArgument.init)
        path = try arguments.nextPositional(named: "PATH").text
    }

    func run(in context: ToolContext) async throws {
        let (diff, oldText) = try AppStore.with(store, in: context, writes: false) { store in
            let from = try old.version(in: store)
            let to = try new?.version(in: store)
            return try store.read { tx in
                let content = try FileAccess.file(path, tx).content
                return (try tx.diff(of: content, from: from, to: to ?? tx.version), try tx.string(of: content, at: from))
            }
        }
        context.output.write(Self.render(diff, old: oldText, colour: Self.isTerminal(context.output)))
    }

    /// The edits as text: a header with both ranges, then the deleted and the inserted
    /// text, each line marked.
    static func render(_ diff: TextDiff, old: String, colour: Bool) -> String {
        let scalars = Array(old.unicodeScalars)
        var result = ""
        func lines(_ text: String, marker: String, code: String) {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                result += colour ? "\u{1B}[\(code)m\(marker)\(line)\u{1B}[0m\n" : "\(marker)\(line)\n"
            }
        }
        for edit in diff.edits {
            let deleted = edit.deletedRange, inserted = edit.insertedRange
            result += "@ \(deleted.lowerBound)..<\(deleted.upperBound) -> \(inserted.lowerBound)..<\(inserted.upperBound)\n"
            if !deleted.isEmpty {
                var text = String.UnicodeScalarView()
                text.append(contentsOf: scalars[deleted])
                lines(String(text), marker: "-", code: "31")
            }
            if !edit.insertedText.isEmpty { lines(edit.insertedText, marker: "+", code: "32") }
        }
        return result
    }

    /// Whether `output` is a terminal (colour only there: pipes and files get plain text).
    static func isTerminal(_ output: any TextOutput) -> Bool {
        guard let output = output as? FileDescriptorOutput else { return false }
        return isatty(output.descriptor) == 1
    }
}
