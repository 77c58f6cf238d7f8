import Testing
@testable import QuireTool

@Suite("Help")
struct HelpCommandTests {
    @Test("no arguments, --help, -h and 'help' all print the overview to standard output", arguments: [
        [], ["--help"], ["-h"], ["help"],
    ])
    func overview(arguments: [String]) async {
        let run = await runTool(arguments)
        #expect(run.status == 0)
        #expect(run.errorOutput.isEmpty)
        // The command table follows the registry (commands are added often); its
        // layout is checked exactly: two spaces, names padded to the widest plus four.
        let width = CommandRegistry.commands.map { $0.name.count }.max() ?? 0
        let table = CommandRegistry.commands.map { command in
            "  " + command.name + String(repeating: " ", count: width - command.name.count + 4) + command.summary + "\n"
        }.joined()
        #expect(CommandRegistry.commands.prefix(2).map { $0.name } == ["help", "version"])
        let header = """
            usage: quire COMMAND [ARGS...]
                   quire --version
                   quire --help

            The command-line tool of Quire, an embedded offline-first store.

            Commands:

            """
        let footer = "\nRun 'quire help COMMAND' for details on a command.\n"
        let expected: String = header + table + footer
        #expect(run.output == expected)
    }

    @Test("the overview lists every command the tool is given, with its summary")
    func overviewListsCommands() async {
        let run = await runTool([], commands: testCommands)
        for command in testCommands {
            #expect(run.output.contains("\n  \(command.name) "), "\(command.name) is missing")
            #expect(run.output.contains(" \(command.summary)\n"), "\(command.name)'s summary is missing")
        }
    }

    @Test("'help COMMAND' and 'COMMAND --help' print the same help", arguments: [
        (["help", "version"], ["version", "--help"]),
        (["help", "version"], ["version", "-h"]),
        (["help", "help"], ["help", "--help"]),
        (["help", "open"], ["open", "--help"]),
        (["help", "measure", "text"], ["measure", "text", "--help"]),
        (["help", "measure", "tree", "depth"], ["measure", "tree", "depth", "--help"]),
    ])
    func sameHelp(helpCommand: [String], helpFlag: [String]) async {
        let first = await runTool(helpCommand, commands: testCommands)
        let second = await runTool(helpFlag, commands: testCommands)
        #expect(first.status == 0)
        #expect(first.errorOutput.isEmpty)
        #expect(first.output.hasPrefix("usage: quire \(helpFlag.dropLast().joined(separator: " "))"))
        #expect(second.status == 0)
        #expect(second.output == first.output)
    }

    @Test("a command's help shows its usage, discussion and options")
    func commandHelp() async {
        let run = await runTool(["help", "version"])
        #expect(run.output == """
            usage: quire version

            \(VersionCommand.discussion)

            Options:
              -h, --help    Show this help.

            """)
    }

    @Test("options are listed with their value, short name and environment variable")
    func optionsInHelp() async {
        let run = await runTool(["open", "--help"], commands: testCommands)
        #expect(run.output.hasPrefix("usage: quire open [--store DIR] [--readonly] [--retries N]\n\n"))
        #expect(run.output.hasSuffix("""
            Options:
                  --store DIR    The store's directory. [env: QUIRE_STORE]
                  --readonly     Open without writing.
              -r, --retries N    Attempts to make.
              -h, --help         Show this help.

            """))
    }

    @Test("--help wins over missing arguments and options")
    func helpBeforeParsing() async {
        let run = await runTool(["open", "--help"], commands: testCommands)
        #expect(run.status == 0)
        #expect(run.errorOutput.isEmpty)
    }

    @Test("help for an unknown command is a usage error", arguments: [
        (["help", "nosuch"], "nosuch"),
        (["help", "measure", "nosuch"], "measure nosuch"),
        (["help", "version", "nosuch"], "version nosuch"),
    ])
    func unknownTopic(arguments: [String], named: String) async {
        let run = await runTool(arguments, commands: testCommands)
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errorOutput == """
            quire: unknown command '\(named)'
            usage: quire help [COMMAND [SUBCOMMAND...]]
            Run 'quire help help' for details.

            """)
    }
}
