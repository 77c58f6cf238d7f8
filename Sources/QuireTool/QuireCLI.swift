/// The `quire` command-line tool, as a function from arguments to an exit status.
///
/// The `quire` executable is a call to ``run(commandLine:context:)`` with the bytes of its
/// arguments, so that an argument that is not UTF-8 is refused rather than read with
/// U+FFFD in place of its bad bytes:
///
/// ```swift
/// exit(await QuireCLI.run(commandLine: QuireCLI.processArguments(), context: .standard))
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

    /// Runs one invocation of the tool from the bytes of its arguments: the same as
    /// ``run(arguments:commands:context:)`` once every argument is UTF-8 text.
    ///
    /// An argument that is not UTF-8 (a file name in Latin-1, bytes from `printf '\\377'`)
    /// is a usage error naming it, with its bad bytes shown as `\\xFF`: decoding it with
    /// repair would store or look up U+FFFD in place of what the user typed.
    ///
    /// - Parameters:
    ///   - commandLine: The arguments after the program's name, as bytes without their
    ///     terminating zero; ``processArguments()`` gives them for this process.
    ///   - context: The output streams, environment variables and current directory.
    /// - Returns: The exit status, as ``run(arguments:commands:context:)`` returns it;
    ///   2 for an argument that is not UTF-8.
    public static func run(commandLine: [[UInt8]], context: ToolContext) async -> Int32 {
        var arguments: [String] = []
        for (index, bytes) in commandLine.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                let error = UsageError.invalid("argument \(index + 1) ('\(shown(bytes))') is not UTF-8 text; \(name) reads names and paths as UTF-8 — type it again in a UTF-8 terminal or convert it (for example with iconv -t UTF-8)")
                context.errorOutput.write(HelpText.usageErrorReport(error, usage: HelpText.rootUsage(aliases: aliases), path: [name]))
                return ExitStatus.usage
            }
            arguments.append(text)
        }
        return await run(arguments: arguments, context: context)
    }

    /// The bytes of this process's arguments after the program's name, as the kernel
    /// passed them.
    public static func processArguments() -> [[UInt8]] {
        let argv = CommandLine.unsafeArgv
        return (1..<max(1, Int(CommandLine.argc))).map { index in
            guard let start = argv[index] else { return [] }
            var length = 0
            while start[length] != 0 { length += 1 }
            return start.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
        }
    }

    /// `bytes` with printable ASCII as it is and every other byte as `\xHH`, for a message.
    private static func shown(_ bytes: [UInt8]) -> String {
        let text = bytes.prefix(200).map { byte in
            (0x20..<0x7F).contains(byte) && byte != UInt8(ascii: "\\") ? String(UnicodeScalar(byte)) : "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }.joined()
        return bytes.count > 200 ? text + "…" : text
    }
}
