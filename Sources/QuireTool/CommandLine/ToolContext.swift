/// What a running command may touch: its output streams, the environment, the current
/// directory, and the tool's commands.
///
/// ``QuireCLI/run(arguments:commands:context:)`` receives a context from its caller: the
/// `quire` executable passes ``standard``, which uses the process's own streams and
/// environment; tests pass ``OutputBuffer``s and a chosen environment. The tool fills in
/// ``commands`` and ``commandPath`` before calling a command.
public struct ToolContext: Sendable {
    /// Where results go: standard output.
    public var output: any TextOutput

    /// Where diagnostics go: standard error.
    public var errorOutput: any TextOutput

    /// The environment variables, by name.
    public var environment: [String: String]

    /// The absolute path that relative paths in arguments resolve against.
    public var currentDirectory: String

    /// The commands the running tool offers, in the order help lists them.
    public internal(set) var commands: [any Command.Type] = []

    /// The words that selected the running command, starting with the tool's name, such
    /// as `["quire", "bench", "text"]`.
    public internal(set) var commandPath: [String] = [QuireCLI.name]

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - output: Where results go.
    ///   - errorOutput: Where diagnostics go.
    ///   - environment: The environment variables, by name.
    ///   - currentDirectory: The absolute path that relative paths resolve against.
    public init(
        output: any TextOutput,
        errorOutput: any TextOutput,
        environment: [String: String],
        currentDirectory: String
    ) {
        self.output = output
        self.errorOutput = errorOutput
        self.environment = environment
        self.currentDirectory = currentDirectory
    }
}
