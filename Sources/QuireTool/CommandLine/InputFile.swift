#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a file a command is given (a delta file to import) with `open(2)` and
/// `read(2)`, so that FIFOs, `/dev/stdin` and process substitutions work like regular
/// files, with a bound on the size and every failure a sentence.
enum InputFile {
    #if canImport(Glibc)
    private static let systemRead = Glibc.read
    #elseif canImport(Darwin)
    private static let systemRead = Darwin.read
    #endif

    /// Why a file could not be read, as a sentence naming what to do.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Every byte of the file at `path`, at most `limit` of them.
    ///
    /// - Parameters:
    ///   - path: A regular file, a FIFO, a character device or `/dev/stdin`.
    ///   - limit: The most bytes accepted; a longer input is refused.
    ///   - what: What the file should be, for the messages ("a delta file").
    /// - Throws: ``Failure`` for a missing or unreadable path, a directory, or an input
    ///   longer than `limit`.
    static func read(_ path: String, limit: Int, what: String) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let reason = code == ENOENT ? "no such file" : String(cString: strerror(code))
            throw Failure(description: "cannot read \(path) (\(reason)); check its path and permissions")
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw Failure(description: "\(path) is a directory, not \(what); give the files in it (for example \(path)/*.qdelta), or sync with a sync folder: 'quire sync FOLDER'")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot read \(path) (\(String(cString: strerror(errno)))); check the file and the disk")
            }
            guard bytes.count + count <= limit else {
                throw Failure(description: "\(path) is longer than \(limit) bytes, more than \(what) can be; check that it is \(what)")
            }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
