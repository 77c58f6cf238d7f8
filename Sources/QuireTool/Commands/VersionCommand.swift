import LMDB

/// `quire version`: the tool's version and the linked liblmdb's.
struct VersionCommand: Command {
    static let name = "version"
    static let summary = "Print the version of quire and of the linked LMDB library."
    static let usage = ""
    static let discussion = """
        Prints two lines: 'quire' and the tool's version, then 'liblmdb' and the
        version of the LMDB library the tool is running with.
        'quire --version' does the same.
        """

    init(parsing arguments: inout Arguments) {}

    func run(in context: ToolContext) async throws {
        context.output.writeLine("\(QuireCLI.name) \(QuireCLI.version)")
        context.output.writeLine("liblmdb \(Self.libraryVersion)")
    }

    /// The linked liblmdb's version, such as `0.9.31`.
    static var libraryVersion: String {
        let version = LMDB.Environment.libraryVersion
        return "\(version.major).\(version.minor).\(version.patch)"
    }
}
