/// Chooses the command a command line names, runs it, and turns the outcome into an exit
/// status and messages.
///
/// The exit statuses: 0 for success and for help; 1 for a runtime failure, reported as
/// `quire: error: <description>` (a failed write to standard output is one); 2 for a ``UsageError``, reported with the usage of the
/// command it happened in.
struct CommandRunner {
    /// The tool's commands.
    let commands: [any Command.Type]

    /// Global flags that stand for a command, such as `--version` for `version`. An alias
    /// whose command is not among ``commands`` is an unknown option.
    let aliases: [String: String]

    /// Runs the command line `quire <arguments>`.
    ///
    /// When a write to standard output failed (a full disk, `/dev/full`, a closed pipe),
    /// the run fails with exit status 1 and says so, whatever the command returned.
    func run(_ arguments: [String], context: ToolContext) async -> Int32 {
        let status = await dispatch(arguments, context: context)
        guard let failure = context.output.writeFailure else { return status }
        context.errorOutput.write("\(QuireCLI.name): error: \(failure)\n")
        return ExitStatus.failure
    }

    private func dispatch(_ arguments: [String], context: ToolContext) async -> Int32 {
        var context = context
        context.commands = commands
        context.commandPath = [QuireCLI.name]

        var words = arguments[...]
        if let first = words.first, let alias = aliases[first], commands.command(named: alias) != nil {
            words[words.startIndex] = alias
        }
        guard let word = words.first, word != Option.showHelp.spelling, word != "-h" else {
            context.output.write(HelpText.overview(commands: commands, aliases: aliases))
            return ExitStatus.success
        }
        guard let command = commands.command(named: word) else {
            let error: UsageError = word.hasPrefix("-") ? .unknownOption(word) : .unknownCommand(word)
            let usage = HelpText.rootUsage(aliases: aliases)
            context.errorOutput.write(HelpText.usageErrorReport(error, usage: usage, path: [QuireCLI.name]))
            return ExitStatus.usage
        }
        return await execute(command, words.dropFirst(), path: [QuireCLI.name, word], context: context)
    }

    /// Runs `command`, or the subcommand its first argument names.
    private func execute(
        _ command: any Command.Type,
        _ words: ArraySlice<String>,
        path: [String],
        context: ToolContext
    ) async -> Int32 {
        if let first = words.first, let subcommand = command.subcommands.command(named: first) {
            return await execute(subcommand, words.dropFirst(), path: path + [first], context: context)
        }
        var context = context
        context.commandPath = path
        do {
            var arguments = try Arguments(
                parsing: words,
                options: command.options + [.showHelp],
                environment: context.environment,
                currentDirectory: context.currentDirectory
            )
            if arguments.flag(.showHelp) {
                context.output.write(HelpText.help(for: command, path: path))
                return ExitStatus.success
            }
            let instance = try command.init(parsing: &arguments)
            try arguments.checkAllPositionalsRead()
            try await instance.run(in: context)
            return ExitStatus.success
        } catch let error as UsageError {
            context.errorOutput.write(HelpText.usageErrorReport(error, usage: command.usage, path: path))
            return ExitStatus.usage
        } catch {
            context.errorOutput.write("\(QuireCLI.name): error: \(error)\n")
            return ExitStatus.failure
        }
    }
}

/// The tool's exit statuses.
enum ExitStatus {
    /// The command did what was asked, or help was shown.
    static let success: Int32 = 0
    /// The command failed while running.
    static let failure: Int32 = 1
    /// The command line was not a valid invocation.
    static let usage: Int32 = 2
}
