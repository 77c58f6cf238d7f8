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
