import Testing
@testable import QuireTool

@Suite("Choosing and running a command")
struct DispatchTests {
    @Test("an unknown command is a usage error that shows the tool's usage")
    func unknownCommand() async {
        let run = await runTool(["frobnicate", "--now"])
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errorOutput == """
            quire: unknown command 'frobnicate'
            usage: quire COMMAND [ARGS...]
                   quire --version
                   quire --help
            Run 'quire help' for a list of commands.

            """)
    }

    @Test("an unknown option before any command is a usage error", arguments: ["--bogus", "-x", "--"])
    func unknownGlobalOption(word: String) async {
        let run = await runTool([word, "version"])
        #expect(run.status == 2)
        #expect(run.errorOutput.hasPrefix("quire: unknown option '\(word)'\nusage: quire COMMAND [ARGS...]\n"))
    }

    @Test("a command that throws fails with status 1 and the error's description")
    func runtimeFailure() async {
        let run = await runTool(["fail"], commands: testCommands)
        #expect(run.status == 1)
        #expect(run.output == "starting\n")
        #expect(run.errorOutput == "quire: error: the disk is on fire\n")
    }

    @Test("a command that succeeds exits with status 0 and writes nothing to standard error")
    func success() async {
        let run = await runTool(["open", "--store", "/data"], commands: testCommands)
        #expect(run.status == 0)
        #expect(run.output == "store=/data readonly=false retries=1\n")
        #expect(run.errorOutput.isEmpty)
    }

    @Test("a usage error shows the command's usage and where its help is")
    func commandUsageError() async {
        let run = await runTool(["open", "--store", "/data", "--retries", "lots"], commands: testCommands)
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errorOutput == """
            quire: invalid value 'lots' for option '--retries': expected an integer
            usage: quire open [--store DIR] [--readonly] [--retries N]
            Run 'quire help open' for details.

            """)
    }

    @Test("a command's own usage error is reported in its words")
    func invalidCombination() async {
        let run = await runTool(["open", "--store=/data", "--readonly", "-r", "3"], commands: testCommands)
        #expect(run.status == 2)
        #expect(run.errorOutput.hasPrefix("quire: --retries needs a writable store\nusage: quire open "))
    }

    @Test("an option falls back to its environment variable from the context")
    func environmentFallback() async {
        let run = await runTool(["open"], commands: testCommands, environment: ["QUIRE_STORE": "/srv/quire"])
        #expect(run.status == 0)
        #expect(run.output == "store=/srv/quire readonly=false retries=1\n")
    }

    @Test("a relative path resolves against the context's current directory")
    func relativePath() async {
        let run = await runTool(["open", "--store", "notes"], commands: testCommands, currentDirectory: "/home/ada")
        #expect(run.output == "store=/home/ada/notes readonly=false retries=1\n")
    }

    @Test("a required option that is missing names its environment variable")
    func missingOption() async {
        let run = await runTool(["open"], commands: testCommands)
        #expect(run.status == 2)
        #expect(run.errorOutput.hasPrefix("quire: missing option '--store DIR' (or set QUIRE_STORE)\n"))
    }
}

@Suite("Command groups")
struct CommandGroupTests {
    @Test("the first argument chooses the subcommand, which sees its path in the context")
    func dispatch() async {
        let run = await runTool(["measure", "text", "--rounds", "3", "corpus.txt"], commands: testCommands)
        #expect(run.status == 0)
        #expect(run.output == "quire measure text: corpus.txt x3\n")
        #expect(run.errorOutput.isEmpty)
    }

    @Test("groups nest")
    func nested() async {
        let run = await runTool(["measure", "tree", "depth"], commands: testCommands)
        #expect(run.status == 0)
        #expect(run.output == "quire measure tree depth\n")
    }

    @Test("a group without a subcommand prints its help, as does --help", arguments: [
        ["measure"], ["measure", "--help"], ["help", "measure"],
    ])
    func groupHelp(arguments: [String]) async {
        let run = await runTool(arguments, commands: testCommands)
        #expect(run.status == 0)
        #expect(run.errorOutput.isEmpty)
        #expect(run.output == """
            usage: quire measure COMMAND [ARGS...]

            Runs one benchmark.

            Commands:
              text    Measure text edits.
              tree    Measure trees.

            Options:
              -h, --help    Show this help.

            Run 'quire help measure COMMAND' for details on a command.

            """)
    }

    @Test("an unknown subcommand is a usage error that shows the group's usage")
    func unknownSubcommand() async {
        let run = await runTool(["measure", "nosuch"], commands: testCommands)
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errorOutput == """
            quire: unknown command 'nosuch'
            usage: quire measure COMMAND [ARGS...]
            Run 'quire help measure' for details.

            """)
    }

    @Test("a subcommand's usage error shows the subcommand's full usage")
    func subcommandUsageError() async {
        let run = await runTool(["measure", "tree", "depth", "extra"], commands: testCommands)
        #expect(run.status == 2)
        #expect(run.errorOutput == """
            quire: unexpected argument 'extra'
            usage: quire measure tree depth
            Run 'quire help measure tree depth' for details.

            """)
    }

    @Test("a missing positional in a subcommand names it")
    func subcommandMissingArgument() async {
        let run = await runTool(["measure", "text"], commands: testCommands)
        #expect(run.status == 2)
        #expect(run.errorOutput.hasPrefix("quire: missing argument 'CORPUS'\nusage: quire measure text [--rounds N] CORPUS\n"))
    }
}
