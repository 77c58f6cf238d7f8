#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A destination for a command's text: standard output, standard error, or a buffer.
///
/// Conforming types must be safe to write to from any task.
public protocol TextOutput: Sendable {
    /// Writes text exactly as given, with no newline added.
    ///
    /// A write that fails is not thrown: it is remembered as ``writeFailure``, which the
    /// tool checks when the command ends.
    ///
    /// - Parameter text: The text to write.
    func write(_ text: String)

    /// The first write that did not reach the destination, or `nil` while every write
    /// did. Once set, it stays set. Outputs that cannot fail (a buffer) return `nil`.
    var writeFailure: OutputWriteFailure? { get }
}

extension TextOutput {
    /// Writes a line of text followed by a newline.
    ///
    /// - Parameter line: The text to write; empty for a blank line.
    public func writeLine(_ line: String = "") {
        write(line + "\n")
    }

    /// `nil`: an output that does not say otherwise never fails.
    public var writeFailure: OutputWriteFailure? { nil }
}

/// A write to a ``TextOutput`` that failed, such as standard output on a full disk.
///
/// ```swift
/// if let failure = context.output.writeFailure { print(failure) }
/// // "cannot write standard output: No space left on device (errno 28)"
/// ```
public struct OutputWriteFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was being written to, such as `"standard output"`.
    public var destination: String
    /// The system's `errno` for the failure, such as `ENOSPC`.
    public var code: Int32

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - destination: What was being written to.
    ///   - code: The `errno` of the failed write.
    public init(destination: String, code: Int32) {
        self.destination = destination
        self.code = code
    }

    /// `cannot write <destination>: <reason> (errno N); the output is incomplete`.
    public var description: String {
        "cannot write \(destination): \(String(cString: strerror(code))) (errno \(code)); the output is incomplete"
    }
}
