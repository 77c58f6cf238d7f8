@testable import QuireTool

/// The outcome of one in-process run of the tool.
struct ToolRun: Sendable {
    var status: Int32
    var output: String
    var errorOutput: String
}

/// Runs `quire <arguments>` in this process, capturing its output.
func runTool(
    _ arguments: [String],
    commands: [any Command.Type] = CommandRegistry.commands,
    environment: [String: String] = [:],
    currentDirectory: String = "/home/reader"
) async -> ToolRun {
    let output = OutputBuffer(), errorOutput = OutputBuffer()
    let context = ToolContext(
        output: output, errorOutput: errorOutput,
        environment: environment, currentDirectory: currentDirectory
    )
    let status = await QuireCLI.run(arguments: arguments, commands: commands, context: context)
    return ToolRun(status: status, output: output.text, errorOutput: errorOutput.text)
}
