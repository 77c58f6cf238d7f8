/// A command whose work is done by subcommands, such as `quire bench text`.
///
/// A group declares ``Command/subcommands`` and gets the rest by default: given no
/// arguments it prints its help, listing the subcommands; given a word that names no
/// subcommand it reports an unknown command.
///
/// ```swift
/// struct BenchCommand: CommandGroup {
///     static let name = "bench"
///     static let summary = "Measure the speed of Quire's layers."
///     static let discussion = "Runs one benchmark and prints its timings."
///     static var subcommands: [any Command.Type] { [TextBenchCommand.self, TreeBenchCommand.self] }
/// }
/// ```
///
/// Options of the group itself are read only when no subcommand is named: a subcommand's
/// name must be the first argument after the group's name.
public protocol CommandGroup: Command {
    /// Creates the group; called when it is invoked without a subcommand.
    init()
}

extension CommandGroup {
    /// A subcommand name followed by that subcommand's arguments.
    public static var usage: String { "COMMAND [ARGS...]" }

    /// Accepts no arguments besides a subcommand's name.
    ///
    /// - Parameter arguments: The parsed command line, after the group's name.
    /// - Throws: ``UsageError/unknownCommand(_:)`` when a positional argument is left,
    ///   since the tool has already checked it against the subcommands' names.
    public init(parsing arguments: inout Arguments) throws(UsageError) {
        if let word = arguments.nextPositionalIfPresent(named: "COMMAND") {
            throw .unknownCommand(word.text)
        }
        self.init()
    }

    /// Prints the group's help, which lists its subcommands.
    ///
    /// - Parameter context: Where to write the help.
    public func run(in context: ToolContext) async throws {
        context.output.write(HelpText.help(for: Self.self, path: context.commandPath))
    }
}
