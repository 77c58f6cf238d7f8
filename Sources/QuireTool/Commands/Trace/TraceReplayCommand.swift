import Foundation
import QuireCore

/// `quire trace replay FILE [--check]`.
struct TraceReplayCommand: Command {
    static let name = "replay"
    static let summary = "Replay a trace and print the final text, or check it."
    static let usage = "FILE [--check]"
    static let discussion = """
        Replays FILE through the text CRDT: a sequential trace as local edits of replica 1;
        a concurrent trace with agent k editing as replica k + 1, each agent's replica
        brought to exactly the version its transaction's parents name before the
        transaction's patches apply. Prints the final text.
        With --check, compares the result with the trace's endContent instead, prints one
        summary line, and exits 1 on a mismatch.
        """
    static let check = Option.flag("check", help: "Compare with endContent; print a summary line.")
    static var options: [Option] { [check] }

    var path: String
    var checks: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        path = try arguments.nextPositional(named: "FILE").path()
        checks = arguments.flag(Self.check)
    }

    func run(in context: ToolContext) async throws {
        let trace = try TraceFile.load(path)
        let clock = ContinuousClock()
        let start = clock.now
        // A progress bar on a terminal: the big traces take a while in a debug build.
        let bar = ProgressBar(label: "replaying", total: trace.transactions.count, unit: "transactions", errorOutput: context.errorOutput)
        let text = try trace.replay { done, _ in bar?.update(done: done) }
        bar?.clear()
        let elapsed = (clock.now - start).milliseconds
        let result = text.string
        guard checks else {
            context.output.write(result)
            return
        }
        let summary = "\(trace.patchCount) patches, \(result.unicodeScalars.count) characters, "
            + "\(String(format: "%.1f", elapsed)) ms"
        if result == trace.endContent {
            context.output.writeLine("OK \(path): \(summary)")
        } else {
            let expected = Array(trace.endContent.unicodeScalars)
            let actual = Array(result.unicodeScalars)
            let firstDifference = zip(expected, actual).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(expected.count, actual.count)
            context.output.writeLine(
                "MISMATCH \(path): \(summary); expected \(expected.count) characters, first difference at \(firstDifference)")
            throw ReplayMismatch(path: path)
        }
    }
}

/// A replay whose result differs from the trace's `endContent`.
struct ReplayMismatch: Error, CustomStringConvertible {
    var path: String
    var description: String { "the replay of \(path) does not match its endContent" }
}
