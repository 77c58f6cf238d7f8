import Foundation
import Quire
import QuireApps
import Synchronization

/// The hidden modes in which `quire bench store` runs its own binary as a child process:
/// a fresh process to open a store in, and writers that share a store with each other.
enum StoreBenchmarkChild {
    /// What `--open-child DIR` prints: one JSON line.
    struct OpenReport: Codable {
        /// Milliseconds that `Store(directory:)` took.
        var open_ms: Double
        /// The process's resident memory before opening, in MiB.
        var rss_before_open_mb: Double
        /// The process's resident memory with the store open, in MiB.
        var rss_after_open_mb: Double
        /// Milliseconds of the first write after the open, one that changes nothing: the
        /// writer's state (the tree, pending changes, names) is read then.
        var first_write_ms: Double
        /// The resident memory after that write, in MiB.
        var rss_after_first_write_mb: Double
    }

    /// Opens the store in `directory`, measures the open, the first write and the memory,
    /// and closes it.
    static func open(_ directory: String, in context: ToolContext) throws {
        let before = try residentMegabytes()
        var store: Store?
        let time = try Timing.milliseconds { store = try Store(directory: directory) }
        let after = try residentMegabytes()
        let write = try Timing.milliseconds { try store?.write { _ in } }
        let afterWrite = try residentMegabytes()
        try store?.close()
        context.output.writeLine(try BenchmarkJSON.line(OpenReport(
            open_ms: time, rss_before_open_mb: before, rss_after_open_mb: after,
            first_write_ms: write, rss_after_first_write_mb: afterWrite)))
    }

    /// Inserts `count` files named `"TAG INDEX"` into the store in `directory`, each in
    /// its own durable write, and prints `REPLICA COUNTER INDEX` for each once its write
    /// has returned (committed).
    static func write(into directory: String, tag: String, count: Int, in context: ToolContext) throws {
        let store = try Store(directory: directory)
        do {
            for index in 0..<count {
                let id = try store.write { tx in try tx.insert(File(name: "\(tag) \(index)")) }
                context.output.writeLine("\(id.replica.rawValue) \(id.counter) \(index)")
            }
            try store.close()
        } catch {
            try? store.close()
            throw error
        }
    }

    /// `VmRSS` of `/proc/self/status`, in MiB.
    static func residentMegabytes() throws -> Double {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { throw BenchmarkFailure("/proc/self/status has no VmRSS line") }
        return kilobytes / 1_024
    }
}

/// A child process whose standard output and error are collected while it runs.
final class SpawnedProcess {
    /// Bytes read from one pipe on another thread.
    private final class Collected: Sendable {
        let data = Mutex(Data())
    }

    private let process: Process
    private let description: String
    private let output = Collected()
    private let errorOutput = Collected()
    private let drained = DispatchGroup()

    /// Starts `executable` with `arguments`.
    init(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let outputPipe = Pipe(), errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        self.description = ([executable] + arguments).joined(separator: " ")
        // Drained on their own threads, so a chatty child never blocks on a full pipe.
        for (handle, collected) in [(outputPipe.fileHandleForReading, output), (errorPipe.fileHandleForReading, errorOutput)] {
            drained.enter()
            Thread.detachNewThread { [drained] in
                let bytes = handle.readDataToEndOfFile()
                collected.data.withLock { $0 = bytes }
                drained.leave()
            }
        }
    }

    /// Waits for the child to exit; its standard output.
    ///
    /// - Throws: ``BenchmarkFailure`` with its standard error when it exits non-zero.
    func finish() throws -> String {
        drained.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errorOutput.data.withLock { $0 }, as: UTF8.self)
            throw BenchmarkFailure("'\(description)' exited with \(process.terminationStatus): \(message)")
        }
        return String(decoding: output.data.withLock { $0 }, as: UTF8.self)
    }

    /// Runs `executable` to completion; its standard output.
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        try SpawnedProcess(executable, arguments).finish()
    }
}
