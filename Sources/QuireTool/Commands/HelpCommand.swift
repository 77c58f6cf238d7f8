/// `quire help [COMMAND [SUBCOMMAND...]]`: the overview, or one command's help.
struct HelpCommand: Command {
    static let name = "help"
    static let summary = "Show the list of commands, or one command's help."
    static let usage = "[COMMAND [SUBCOMMAND...]]"
    static let discussion = """
        With no arguments, lists the commands with a line about each. With a
        command's name, shows its usage, what it does and its options; name a
        subcommand after its command: 'quire help COMMAND SUBCOMMAND'.
        'quire COMMAND --help' shows the same.
        """

    /// The names of the command to describe, outermost first; empty for the overview.
    var topic: [String]

    init(parsing arguments: inout Arguments) throws(UsageError) {
        topic = arguments.remainingPositionals(named: "COMMAND").map(\.text)
    }

    func run(in context: ToolContext) async throws {
        guard let first = topic.first else {
            context.output.write(HelpText.overview(commands: context.commands, aliases: QuireCLI.aliases))
            return
        }
        guard var command = context.commands.command(named: first) else { throw UsageError.unknownCommand(first) }
        for word in topic.dropFirst() {
            guard let subcommand = command.subcommands.command(named: word) else {
                throw UsageError.unknownCommand(topic.joined(separator: " "))
            }
            command = subcommand
        }
        context.output.write(HelpText.help(for: command, path: [QuireCLI.name] + topic))
    }
}
