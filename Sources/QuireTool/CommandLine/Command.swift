/// A `quire` command: its name, its help, how it reads its arguments, and what it does.
///
/// The tool builds a command from its parsed arguments with ``init(parsing:)``, then calls
/// ``run(in:)`` once. Parsing reports bad invocations as ``UsageError`` (exit status 2,
/// with the command's usage); anything `run(in:)` throws is a runtime failure (exit
/// status 1, with the error's description). `--help` and `-h` are handled for every
/// command before ``init(parsing:)`` is called.
///
/// ```swift
/// struct GreetCommand: Command {
///     static let name = "greet"
///     static let summary = "Print a greeting."
///     static let usage = "[--loud] PERSON"
///     static let discussion = "Prints 'hello, PERSON'; shouts it with --loud."
///     static let loud = Option.flag("loud", help: "Shout the greeting.")
///     static var options: [Option] { [loud] }
///
///     var person: String
///     var isLoud: Bool
///
///     init(parsing arguments: inout Arguments) throws(UsageError) {
///         isLoud = arguments.flag(Self.loud)
///         person = try arguments.nextPositional(named: "PERSON").text
///     }
///
///     func run(in context: ToolContext) async throws {
///         let greeting = "hello, \(person)"
///         context.output.writeLine(isLoud ? greeting.uppercased() : greeting)
///     }
/// }
/// ```
///
/// To make a command available, add its type to ``CommandRegistry/commands``. A command
/// with subcommands of its own is a ``CommandGroup``.
public protocol Command: Sendable {
    /// The word that selects the command, such as `"version"`.
    static var name: String { get }

    /// One line, shown next to the name in command lists; a sentence ending in a period.
    static var summary: String { get }

    /// The synopsis after the command's name, such as `"[--json] PATH"`; empty if the
    /// command takes no arguments.
    ///
    /// Separate alternative forms with newlines; each is printed on its own `usage:` line.
    static var usage: String { get }

    /// The detailed help: what the command does, its arguments, and its output.
    ///
    /// Printed as written, so break lines before 80 columns.
    static var discussion: String { get }

    /// The options the command accepts, in the order its help lists them.
    ///
    /// Do not declare `--help`: every command has it. The default is none.
    static var options: [Option] { get }

    /// Commands selected by the word after this command's name, as in `quire trace replay`.
    ///
    /// When the first argument names one of these, the tool runs that subcommand instead
    /// of this command. The default is none.
    static var subcommands: [any Command.Type] { get }

    /// Creates the command from its arguments.
    ///
    /// Read every option and positional argument the command takes. Positional arguments
    /// left unread are reported as unexpected after this initializer returns.
    ///
    /// - Parameter arguments: The parsed command line, after the command's name.
    /// - Throws: ``UsageError`` when the arguments do not make a valid invocation.
    init(parsing arguments: inout Arguments) throws(UsageError)

    /// Does the command's work.
    ///
    /// - Parameter context: Where to write output, and the environment to read.
    /// - Throws: Any error, reported as `quire: error: <description>` with exit status 1;
    ///   or ``UsageError``, reported with the command's usage and exit status 2.
    func run(in context: ToolContext) async throws
}

extension Command {
    /// No options besides `--help`.
    public static var options: [Option] { [] }

    /// No subcommands.
    public static var subcommands: [any Command.Type] { [] }
}

extension [any Command.Type] {
    /// The command called `name`, if the list has one.
    func command(named name: String) -> (any Command.Type)? {
        first { $0.name == name }
    }
}
