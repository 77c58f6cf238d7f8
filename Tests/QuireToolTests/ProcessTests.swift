import Testing

/// One run of the real `quire` binary and what it must produce.
struct ProcessCase: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var status: Int32
    /// Text standard output must contain; empty output is required when `nil`.
    var output: String?
    /// Text standard error must contain; empty error output is required when `nil`.
    var errorOutput: String?

    var testDescription: String { "quire \(arguments.joined(separator: " "))" }
}

@Suite("The quire executable")
struct ProcessTests {
    @Test("exits with the right status and writes to the right stream", arguments: [
        ProcessCase(arguments: [], status: 0, output: "usage: quire COMMAND"),
        ProcessCase(arguments: ["--help"], status: 0, output: "usage: quire COMMAND"),
        ProcessCase(arguments: ["--version"], status: 0, output: "quire 0.1.0\nliblmdb "),
        ProcessCase(arguments: ["version"], status: 0, output: "quire 0.1.0\nliblmdb "),
        ProcessCase(arguments: ["help", "version"], status: 0, output: "usage: quire version\n"),
        ProcessCase(arguments: ["frobnicate"], status: 2,
                    errorOutput: "quire: unknown command 'frobnicate'\nusage: quire COMMAND [ARGS...]\n"),
        ProcessCase(arguments: ["version", "--bogus"], status: 2,
                    errorOutput: "quire: unknown option '--bogus'\nusage: quire version\n"),
        ProcessCase(arguments: ["help", "nosuch"], status: 2,
                    errorOutput: "quire: unknown command 'nosuch'\nusage: quire help "),
    ])
    func run(_ expected: ProcessCase) throws {
        let result = try QuireExecutable.run(expected.arguments)
        #expect(result.status == expected.status)
        if let output = expected.output {
            #expect(result.standardOutput.contains(output), "stdout: \(result.standardOutput)")
        } else {
            #expect(result.standardOutput.isEmpty)
        }
        if let errorOutput = expected.errorOutput {
            #expect(result.standardError.contains(errorOutput), "stderr: \(result.standardError)")
        } else {
            #expect(result.standardError.isEmpty)
        }
    }
}
