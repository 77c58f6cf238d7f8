#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``TextOutput`` that writes straight to a file descriptor, unbuffered.
///
/// Each ``write(_:)`` is one or more `write(2)` calls, so nothing is lost if the process
/// exits right after; C's `stdout` is not used because Swift 6 rejects its shared global.
struct FileDescriptorOutput: TextOutput {
    /// The process's standard output.
    static let standardOutput = FileDescriptorOutput(descriptor: STDOUT_FILENO)
    /// The process's standard error.
    static let standardError = FileDescriptorOutput(descriptor: STDERR_FILENO)

    let descriptor: Int32

    func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var remaining = UnsafeRawBufferPointer(bytes)
            while !remaining.isEmpty {
                let written = systemWrite(descriptor, remaining.baseAddress, remaining.count)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // The reader is gone or the disk is full; there is nowhere to report it.
                }
                remaining = UnsafeRawBufferPointer(rebasing: remaining[written...])
            }
        }
    }
}

// Inside `FileDescriptorOutput`, `write` names the method; this names the system call.
#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
