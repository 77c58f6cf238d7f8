@testable import QuireTool

/// An error with a description, as a failing command would throw.
struct DiskOnFire: Error, CustomStringConvertible {
    var description: String { "the disk is on fire" }
}

/// `quire fail`: always fails while running.
struct FailingCommand: Command {
    static let name = "fail"
    static let summary = "Fail while running."
    static let usage = ""
    static let discussion = "Throws an error from run(in:)."

    init(parsing arguments: inout Arguments) {}

    func run(in context: ToolContext) async throws {
        context.output.writeLine("starting")
        throw DiskOnFire()
    }
}

/// `quire open [--store DIR] [--readonly] [--retries N]`: prints what it was given.
struct OpenCommand: Command {
    static let name = "open"
    static let summary = "Print the store it would open."
    static let usage = "[--store DIR] [--readonly] [--retries N]"
    static let discussion = "Prints the store's absolute path and the other options."
    static let store = Option.value(
        "store", placeholder: "DIR", environmentVariable: "QUIRE_STORE", help: "The store's directory.")
    static let readOnly = Option.flag("readonly", help: "Open without writing.")
    static let retries = Option.value("retries", shortName: "r", placeholder: "N", help: "Attempts to make.")
    static var options: [Option] { [store, readOnly, retries] }

    var store: String
    var isReadOnly: Bool
    var retries: Int

    init(parsing arguments: inout Arguments) throws(UsageError) {
        guard let store = try arguments.value(of: Self.store)?.path() else { throw .missingOption(Self.store) }
        self.store = store
        isReadOnly = arguments.flag(Self.readOnly)
        retries = try arguments.value(of: Self.retries)?.int() ?? 1
        if isReadOnly && retries > 1 { throw .invalid("--retries needs a writable store") }
    }

    func run(in context: ToolContext) async throws {
        context.output.writeLine("store=\(store) readonly=\(isReadOnly) retries=\(retries)")
    }
}

/// `quire measure`: a group with one plain subcommand and one nested group.
struct BenchGroup: CommandGroup {
    static let name = "measure"
    static let summary = "Measure things."
    static let discussion = "Runs one benchmark."
    static var subcommands: [any Command.Type] { [TextBench.self, TreeGroup.self] }
}

/// `quire measure text [--rounds N] CORPUS`.
struct TextBench: Command {
    static let name = "text"
    static let summary = "Measure text edits."
    static let usage = "[--rounds N] CORPUS"
    static let discussion = "Replays CORPUS."
    static let rounds = Option.value("rounds", placeholder: "N", help: "How many rounds.")
    static var options: [Option] { [rounds] }

    var rounds: Int
    var corpus: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        rounds = try arguments.value(of: Self.rounds)?.int() ?? 1
        corpus = try arguments.nextPositional(named: "CORPUS").text
    }

    func run(in context: ToolContext) async throws {
        context.output.writeLine("\(context.commandPath.joined(separator: " ")): \(corpus) x\(rounds)")
    }
}

/// `quire measure tree`: a group inside a group.
struct TreeGroup: CommandGroup {
    static let name = "tree"
    static let summary = "Measure trees."
    static let discussion = "Runs one tree benchmark."
    static var subcommands: [any Command.Type] { [DepthBench.self] }
}

/// `quire measure tree depth`.
struct DepthBench: Command {
    static let name = "depth"
    static let summary = "Measure deep trees."
    static let usage = ""
    static let discussion = "Builds a deep tree."

    init(parsing arguments: inout Arguments) {}

    func run(in context: ToolContext) async throws {
        context.output.writeLine(context.commandPath.joined(separator: " "))
    }
}

/// The standard commands plus the test commands.
let testCommands: [any Command.Type] =
    CommandRegistry.commands + [FailingCommand.self, OpenCommand.self, BenchGroup.self]
