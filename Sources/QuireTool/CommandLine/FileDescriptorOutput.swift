#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A ``TextOutput`` that writes straight to a file descriptor, unbuffered.
///
/// Each ``write(_:)`` is one or more `write(2)` calls, so nothing is lost if the process
/// exits right after; C's `stdout` is not used because Swift 6 rejects its shared global.
///
/// A failed `write(2)` (a full disk, `/dev/full`, a closed pipe) is remembered as
/// ``writeFailure`` and later writes are dropped; ``CommandRunner`` turns it into exit
/// status 1 with a message, so output that did not arrive is never reported as success.
final class FileDescriptorOutput: TextOutput {
    /// The process's standard output.
    static let standardOutput = FileDescriptorOutput(descriptor: STDOUT_FILENO, name: "standard output")
    /// The process's standard error.
    static let standardError = FileDescriptorOutput(descriptor: STDERR_FILENO, name: "standard error")

    let descriptor: Int32
    /// What the descriptor is, for messages.
    let name: String
    /// The `errno` of the first failed write; 0 while every write succeeded.
    private let failedWith = Atomic<Int32>(0)

    init(descriptor: Int32, name: String = "the output") {
        self.descriptor = descriptor
        self.name = name
    }

    func write(_ text: String) {
        guard failedWith.load(ordering: .relaxed) == 0 else { return }
        var text = text
        text.withUTF8 { bytes in
            var remaining = UnsafeRawBufferPointer(bytes)
            while !remaining.isEmpty {
                let written = systemWrite(descriptor, remaining.baseAddress, remaining.count)
                if written < 0 {
                    if errno == EINTR { continue }
                    failedWith.store(errno, ordering: .relaxed)
                    return
                }
                remaining = UnsafeRawBufferPointer(rebasing: remaining[written...])
            }
        }
    }

    var writeFailure: OutputWriteFailure? {
        let code = failedWith.load(ordering: .relaxed)
        return code == 0 ? nil : OutputWriteFailure(destination: name, code: code)
    }
}

// Inside `FileDescriptorOutput`, `write` names the method; this names the system call.
#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
