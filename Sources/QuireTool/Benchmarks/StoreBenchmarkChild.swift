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
        /// writer's state (pending changes, names, text slots) is read then.
        var first_write_ms: Double
        /// The resident memory after that write, in MiB.
        var rss_after_first_write_mb: Double
        /// Milliseconds of the next write, one durable keystroke into an existing file:
        /// what an app's first autosave after launch costs.
        var first_keystroke_ms: Double
        /// The resident memory after it, in MiB.
        var rss_after_first_keystroke_mb: Double
        /// Milliseconds of the next write, a durable new file in an existing folder: the
        /// first write that changes the hierarchy.
        var first_create_ms: Double
        /// The resident memory after it, in MiB.
        var rss_after_first_create_mb: Double
    }

    /// Opens the store in `directory`, measures the open, the first writes (an empty one,
    /// a keystroke, a new file) and the memory after each, and closes it.
    static func open(_ directory: String, in context: ToolContext) throws {
        let before = try residentMegabytes()
        var opened: Store?
        let time = try Timing.milliseconds { opened = try Store(directory: directory) }
        guard let store = opened else { throw BenchmarkFailure("no store opened in \(directory)") }
        defer { try? store.close() }
        let after = try residentMegabytes()
        let write = try Timing.milliseconds { try store.write { _ in } }
        let afterWrite = try residentMegabytes()
        // A file of the first folder, found by a read (which reads no writer state).
        let (folder, file) = try store.read { tx in
            let folder = tx.children(of: nil, limit: 1).first
            return (folder, folder.flatMap { tx.children(of: $0, limit: 1).first })
        }
        guard let folder, let file else { throw BenchmarkFailure("the store in \(directory) has no file in a folder") }
        let keystroke = try Timing.milliseconds {
            try store.write { tx in try tx.insert("x", at: 0, in: file.text(File.contentField)) }
        }
        let afterKeystroke = try residentMegabytes()
        let name = "new file \(ProcessInfo.processInfo.processIdentifier)"  // unique: each run adds one
        let create = try Timing.milliseconds { try store.write { tx in _ = try tx.insert(File(name: name), under: folder) } }
        let afterCreate = try residentMegabytes()
        try store.close()
        context.output.writeLine(try BenchmarkJSON.line(OpenReport(
            open_ms: time, rss_before_open_mb: before, rss_after_open_mb: after,
            first_write_ms: write, rss_after_first_write_mb: afterWrite,
            first_keystroke_ms: keystroke, rss_after_first_keystroke_mb: afterKeystroke,
            first_create_ms: create, rss_after_first_create_mb: afterCreate)))
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
