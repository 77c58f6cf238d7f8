import Synchronization

/// A ``TextOutput`` that keeps what is written, for reading back later.
///
/// Tests pass buffers in a ``ToolContext`` to capture a command's output without
/// starting a process:
///
/// ```swift
/// let output = OutputBuffer(), errors = OutputBuffer()
/// let context = ToolContext(output: output, errorOutput: errors, environment: [:], currentDirectory: "/")
/// let status = await QuireCLI.run(arguments: ["version"], context: context)
/// print(output.text) // "quire 0.1.0\n…"
/// ```
///
/// Safe to write to and read from any task; each write is appended whole.
public final class OutputBuffer: TextOutput {
    private let storage = Mutex("")

    /// Creates an empty buffer.
    public init() {}

    /// Appends text to the buffer.
    ///
    /// - Parameter text: The text to append.
    public func write(_ text: String) {
        storage.withLock { $0 += text }
    }

    /// Everything written so far, in order.
    public var text: String {
        storage.withLock { $0 }
    }
}
