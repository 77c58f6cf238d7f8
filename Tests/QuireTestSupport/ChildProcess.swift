import Foundation

/// The outcome of a finished child process.
public struct ProcessResult: Sendable {
    /// The exit status.
    public var status: Int32
    /// Everything written to standard output, as UTF-8.
    public var standardOutput: String
    /// Everything written to standard error, as UTF-8.
    public var standardError: String
}

/// Runs the executable at `url` with `arguments` to completion, capturing its output.
///
/// - Parameters:
///   - url: The executable.
///   - arguments: Its arguments.
///   - environment: Extra environment variables, on top of this process's.
public func runProcess(
    _ url: URL, _ arguments: [String], environment: [String: String] = [:]
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = url
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Drain both pipes before waiting, so a chatty child never blocks on a full pipe.
    let errorData = Locked(Data())
    let drained = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        errorData.set(error.fileHandleForReading.readDataToEndOfFile())
        drained.signal()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    drained.wait()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus,
        standardOutput: String(decoding: outputData, as: UTF8.self),
        standardError: String(decoding: errorData.get(), as: UTF8.self))
}

/// A child process running alongside the test, whose standard output is read line by
/// line as it comes: the test can wait for a line, kill the child mid-stream, and collect
/// everything at the end.
public final class RunningProcess: Sendable {
    private let process: Process
    private let lines = Locked<[String]>([])
    private let errorText = Locked<String>("")
    private let lineArrived = DispatchSemaphore(value: 0)
    private let outputEnded = DispatchSemaphore(value: 0)
    private let errorEnded = DispatchSemaphore(value: 0)

    /// Starts the executable at `url` with `arguments`.
    public init(_ url: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        Thread.detachNewThread { [lines, lineArrived, outputEnded] in
            var pending = Data()
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    lines.update { $0.append(line) }
                    lineArrived.signal()
                }
            }
            outputEnded.signal()
            lineArrived.signal()
        }
        Thread.detachNewThread { [errorText, errorEnded] in
            errorText.set(String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            errorEnded.signal()
        }
    }

    /// The complete lines printed so far.
    public var output: [String] { lines.get() }

    /// Waits until `condition` holds for the lines printed so far, or the output ends.
    ///
    /// - Returns: Whether the condition holds.
    @discardableResult
    public func wait(until condition: ([String]) -> Bool) -> Bool {
        while !condition(lines.get()) {
            if outputEnded.wait(timeout: .now()) == .success {
                outputEnded.signal()
                return condition(lines.get())
            }
            lineArrived.wait()
        }
        return true
    }

    /// Kills the child with SIGKILL.
    public func kill() { _ = Foundation.kill(process.processIdentifier, SIGKILL) }

    /// Waits for the child to exit and its output to end.
    public func finish() -> ProcessResult {
        outputEnded.wait()
        outputEnded.signal()
        errorEnded.wait()
        errorEnded.signal()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus, standardOutput: lines.get().joined(separator: "\n"),
            standardError: errorText.get())
    }

    /// Whether the child was ended by a signal.
    public var wasKilled: Bool { process.terminationReason == .uncaughtSignal }
}
