import Testing
@testable import QuireTool

@Suite("quire version")
struct VersionCommandTests {
    private let expectedOutput = "quire \(QuireCLI.version)\nliblmdb \(VersionCommand.libraryVersion)\n"

    @Test("prints the tool's version and the linked liblmdb's", arguments: [["version"], ["--version"]])
    func printsVersions(arguments: [String]) async {
        let run = await runTool(arguments)
        #expect(run.status == 0)
        #expect(run.output == expectedOutput)
        #expect(run.errorOutput.isEmpty)
    }

    @Test("the tool's version is 0.1.0 and liblmdb's has three numbers")
    func versionShape() {
        #expect(QuireCLI.version == "0.1.0")
        #expect(VersionCommand.libraryVersion.wholeMatch(of: /\d+\.\d+\.\d+/) != nil)
    }

    @Test("takes no arguments")
    func rejectsArguments() async {
        let run = await runTool(["version", "extra"])
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errorOutput == """
            quire: unexpected argument 'extra'
            usage: quire version
            Run 'quire help version' for details.

            """)
    }

    @Test("rejects options it does not declare, also through --version", arguments: [
        ["version", "--bogus"], ["--version", "--bogus"],
    ])
    func rejectsOptions(arguments: [String]) async {
        let run = await runTool(arguments)
        #expect(run.status == 2)
        #expect(run.errorOutput.hasPrefix("quire: unknown option '--bogus'\nusage: quire version\n"))
    }

    @Test("--version is an unknown option when the tool has no version command")
    func aliasNeedsCommand() async {
        let run = await runTool(["--version"], commands: [HelpCommand.self])
        #expect(run.status == 2)
        #expect(run.errorOutput.hasPrefix("quire: unknown option '--version'\n"))
    }
}
