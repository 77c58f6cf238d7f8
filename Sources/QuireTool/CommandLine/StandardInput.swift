#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading the process's standard input with `read(2)`, every failure a thrown error.
///
/// Foundation's `FileHandle.readDataToEndOfFile()` stops the process (a `try!` inside)
/// when standard input is closed (`<&-`) or is a directory; commands read it here instead.
enum StandardInput {
    /// Why standard input could not be read, as a sentence naming what to do.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Every byte up to the end of standard input.
    ///
    /// - Parameter example: A command line that gives the command its input, for the
    ///   error messages (`"quire write PATH < draft.txt"`).
    /// - Throws: ``Failure`` when standard input is closed, is a directory, or fails to read.
    static func readAll(example: String) throws(Failure) -> [UInt8] {
        let closed = Failure(description: "standard input is closed; give the text on standard input, for example: \(example)")
        var status = stat()
        guard fstat(STDIN_FILENO, &status) == 0 else {
            if errno == EBADF { throw closed }
            throw Failure(description: "cannot read standard input: \(String(cString: strerror(errno)))")
        }
        if isRuntimeDescriptor(STDIN_FILENO) { throw closed }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            throw Failure(description: "standard input is a directory, not text; redirect a file instead, for example: \(example)")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = errno == EISDIR ? "it is a directory" : String(cString: strerror(errno))
                throw Failure(description: "cannot read standard input (\(reason)); give the text on standard input, for example: \(example)")
            }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// Whether `descriptor` is one the runtime opened for itself (an epoll or event
    /// descriptor): what number 0 becomes when the process starts with standard input
    /// closed, since the concurrency runtime starts before any of our code runs.
    private static func isRuntimeDescriptor(_ descriptor: Int32) -> Bool {
        #if os(Linux)
        var target = [CChar](repeating: 0, count: 256)
        let count = readlink("/proc/self/fd/\(descriptor)", &target, target.count - 1)
        guard count > 0 else { return false }
        return String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix("anon_inode:")
        #else
        return false
        #endif
    }
}
