/// The tool's help and usage text, built from the commands' declarations.
enum HelpText {
    /// `quire --help`: the tool's usage lines, what it is, and its commands.
    static func overview(commands: [any Command.Type], aliases: [String: String]) -> String {
        var text = usageLines(rootUsage(aliases: aliases), path: [QuireCLI.name])
        text += "\n\(QuireCLI.summary)\n\n"
        text += "Commands:\n" + table(commands.map { ($0.name, $0.summary) })
        text += "\nRun '\(QuireCLI.name) help COMMAND' for details on a command.\n"
        return text
    }

    /// `quire CMD --help`: the command's usage lines, discussion, subcommands and options.
    static func help(for command: any Command.Type, path: [String]) -> String {
        var text = usageLines(command.usage, path: path)
        text += "\n\(command.discussion)\n"
        if !command.subcommands.isEmpty {
            text += "\nCommands:\n" + table(command.subcommands.map { ($0.name, $0.summary) })
        }
        text += "\nOptions:\n" + table((command.options.filter { !$0.isHidden } + [.showHelp]).map(optionRow))
        if !command.subcommands.isEmpty {
            text += "\nRun '\(helpInvocation(for: path)) COMMAND' for details on a command.\n"
        }
        return text
    }

    /// What goes to standard error for a usage error: the message, the usage lines of the
    /// command it happened in, and where to read more.
    static func usageErrorReport(_ error: UsageError, usage: String, path: [String]) -> String {
        var text = "\(QuireCLI.name): \(error)\n" + usageLines(usage, path: path)
        if path.count > 1 {
            text += "Run '\(helpInvocation(for: path))' for details.\n"
        } else {
            text += "Run '\(QuireCLI.name) help' for a list of commands.\n"
        }
        return text
    }

    /// The synopsis of the tool itself, after `quire`: a command, or a global flag alone.
    static func rootUsage(aliases: [String: String]) -> String {
        (["COMMAND [ARGS...]"] + aliases.keys.sorted() + ["--help"]).joined(separator: "\n")
    }

    /// `usage: quire help [COMMAND...]`, one line per line of `usage`, aligned.
    static func usageLines(_ usage: String, path: [String]) -> String {
        let command = path.joined(separator: " ")
        let forms = usage.split(separator: "\n", omittingEmptySubsequences: false)
        return forms.enumerated().map { index, form in
            let lead = index == 0 ? "usage: " : "       "
            return lead + command + (form.isEmpty ? "" : " " + form) + "\n"
        }.joined()
    }

    /// `quire help bench` for the path `["quire", "bench"]`.
    private static func helpInvocation(for path: [String]) -> String {
        ([QuireCLI.name, "help"] + path.dropFirst()).joined(separator: " ")
    }

    /// `-h, --help` or `    --store DIR`, and the help with the environment variable.
    private static func optionRow(_ option: Option) -> (String, String) {
        let short = option.shortName.map { "-\($0), " } ?? "    "
        let help = option.environmentVariable.map { "\(option.help) [env: \($0)]" } ?? option.help
        return (short + option.synopsis, help)
    }

    /// Two columns, the second aligned two spaces past the widest entry of the first.
    private static func table(_ rows: [(String, String)]) -> String {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { left, right in
            "  " + left + String(repeating: " ", count: width - left.count + 4) + right + "\n"
        }.joined()
    }
}
