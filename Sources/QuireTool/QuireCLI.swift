/// The `quire` command-line tool, as a function from arguments to an exit status.
///
/// The `quire` executable is a call to ``run(arguments:commands:context:)``:
///
/// ```swift
/// exit(await QuireCLI.run(arguments: CommandLine.arguments.dropFirst(), context: .standard))
/// ```
public enum QuireCLI {
    /// The tool's name, as it appears in usage lines and messages.
    public static let name = "quire"

    /// The tool's version, printed by `quire version` and `quire --version`.
    public static let version = "0.1.0"

    /// What the tool is, in one sentence, as the overview shows it.
    static let summary = "The command-line tool of Quire, an embedded offline-first store."

    /// Global flags that stand for a command.
    static let aliases = ["--version": VersionCommand.name]

    /// Runs one invocation of the tool.
    ///
    /// `quire`, `quire --help` and `quire -h` print an overview of the commands;
    /// `quire --version` runs `quire version`; `quire COMMAND ...` runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The command line after the program's name.
    ///   - commands: The commands to offer; tests add their own to ``CommandRegistry/commands``.
    ///   - context: The output streams, environment variables and current directory.
    /// - Returns: The exit status: 0 on success or help, 1 when the command fails while
    ///   running (reported as `quire: error: <description>` on standard error), 2 for an
    ///   invalid command line (reported with the command's usage on standard error).
    public static func run(
        arguments: some Sequence<String>,
        commands: [any Command.Type] = CommandRegistry.commands,
        context: ToolContext
    ) async -> Int32 {
        await CommandRunner(commands: commands, aliases: aliases).run(Array(arguments), context: context)
    }
}
