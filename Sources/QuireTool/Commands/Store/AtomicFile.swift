import Foundation

/// Writing a file the tool was told to write (`export -o`, `status --version-out`), whole
/// or not at all, without replacing what the path points at.
///
/// - A regular file, or a path that does not exist: the bytes go to a temporary file
///   beside it, are flushed to disk, and the temporary file is renamed over it, so a
///   reader (or a file-sync engine) never sees a partly written file. A replaced file
///   keeps its permission bits.
/// - A symbolic link: the same, at the file the link points to (next to it, so the link
///   stays a link); a dangling link gets its target created.
/// - A FIFO or a character device (`/dev/stdout`, a named pipe, a terminal): written
///   directly, since there is no file to replace; a failed write (`/dev/full`) throws.
///   Opening a FIFO waits for a reader, as writing to a pipe does. A path under `/dev/`
///   or `/proc/` (`/dev/stdout` redirected to a file) is always written directly.
/// - Anything else (a directory, a block device, a socket) is refused and left alone.
enum AtomicFile {
    /// A file that could not be written.
    struct Failure: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var remedy = "check that its folder exists and is writable"
        var description: String { "cannot write \(path): \(reason); \(remedy)" }
    }

    /// How the bytes reached the path.
    enum Delivery: Equatable {
        /// A regular file was written whole through a temporary file and a rename.
        case replaced
        /// The path is a FIFO or a character device and was written directly.
        case streamed
    }

    /// Writes `bytes` to `path` as described in ``AtomicFile``.
    ///
    /// - Returns: Whether a file was replaced or the bytes were streamed to a device or FIFO.
    /// - Throws: ``Failure`` naming the path and the reason; a replaced target is then
    ///   untouched.
    ///
    /// Never inlined: inlined into a command's async `run`, Swift 6.3.1's release build
    /// crashed (signal 11 in LLVM's coroutine splitting, around the swifterror value).
    @discardableResult @inline(never)
    static func write(_ bytes: [UInt8], to path: String) throws -> Delivery {
        var status = stat()
        // `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N` name an open file of the process:
        // write into it, even when it is a regular file (`> out`); nothing there is renamed.
        if path.hasPrefix("/dev/") || path.hasPrefix("/proc/"), stat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG, S_IFIFO, S_IFCHR:
                try stream(bytes, to: path, truncating: status.st_mode & S_IFMT == S_IFREG)
                return .streamed
            default:
                throw Failure(
                    path: path, reason: "it is \(kind(status.st_mode)), not a file",
                    remedy: "name a file (or a FIFO or character device to stream to); it was left as it is")
            }
        }
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else { throw Failure(path: path, reason: reason(errno)) }
            try replace(path, with: bytes, mode: nil)
            return .replaced
        }
        if status.st_mode & S_IFMT == S_IFLNK {
            var target = stat()
            guard stat(path, &target) == 0 else {
                guard errno == ENOENT else { throw Failure(path: path, reason: reason(errno)) }
                try replace(try danglingTarget(of: path), with: bytes, mode: nil)
                return .replaced
            }
            if target.st_mode & S_IFMT == S_IFREG {
                guard let resolved = realpath(path, nil) else { throw Failure(path: path, reason: reason(errno)) }
                defer { free(resolved) }
                try replace(String(cString: resolved), with: bytes, mode: target.st_mode & 0o7777)
                return .replaced
            }
            status = target
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            try replace(path, with: bytes, mode: status.st_mode & 0o7777)
            return .replaced
        case S_IFIFO, S_IFCHR:
            try stream(bytes, to: path)
            return .streamed
        default:
            throw Failure(
                path: path, reason: "it is \(kind(status.st_mode)), not a file",
                remedy: "name a file (or a FIFO or character device to stream to); it was left as it is")
        }
    }

    /// Writes through a temporary file beside `path` and renames it over `path`.
    private static func replace(_ path: String, with bytes: [UInt8], mode: mode_t?) throws {
        let target = URL(fileURLWithPath: path)
        let temporary = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw Failure(path: path, reason: "cannot create \(temporary.lastPathComponent) beside it")
            }
            if let mode, chmod(temporary.path, mode) != 0 {
                throw Failure(path: path, reason: reason(errno))
            }
            let handle = try FileHandle(forWritingTo: temporary)
            do {
                try handle.write(contentsOf: Data(bytes))
                try handle.synchronize()
                try handle.close()
            } catch {
                try? handle.close()
                throw error
            }
            if rename(temporary.path, target.path) != 0 {
                throw Failure(path: path, reason: reason(errno))
            }
        } catch let failure as Failure {
            try? FileManager.default.removeItem(at: temporary)
            throw failure
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw Failure(path: path, reason: error.localizedDescription)
        }
    }

    /// Writes `bytes` straight into the FIFO or device at `path`.
    private static func stream(_ bytes: [UInt8], to path: String, truncating: Bool = false) throws {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC | (truncating ? O_TRUNC : 0))
        guard descriptor >= 0 else { throw Failure(path: path, reason: reason(errno)) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                Foundation.write(descriptor, raw.baseAddress! + written, bytes.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                _ = close(descriptor)
                throw Failure(path: path, reason: reason(code), remedy: "nothing complete was written")
            }
            written += count
        }
        guard close(descriptor) == 0 else {
            throw Failure(path: path, reason: reason(errno), remedy: "the write may be incomplete")
        }
    }

    /// The path a chain of symbolic links ending in a missing file names.
    private static func danglingTarget(of link: String) throws -> String {
        var current = link
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count >= 0 else { throw Failure(path: link, reason: reason(errno)) }
            let destination = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let next = destination.hasPrefix("/")
                ? destination
                : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(destination).path
            var status = stat()
            if lstat(next, &status) != 0 {
                guard errno == ENOENT else { throw Failure(path: link, reason: reason(errno)) }
                return next
            }
            guard status.st_mode & S_IFMT == S_IFLNK else {
                throw Failure(path: link, reason: "its link target \(next) changed while it was written")
            }
            current = next
        }
        throw Failure(path: link, reason: reason(ELOOP))
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
