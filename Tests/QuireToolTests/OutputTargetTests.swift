#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import QuireTestSupport
import Testing

/// The file type bits of what `path` itself is (links not followed), or `nil` if nothing is there.
private func fileType(_ path: String) -> mode_t? {
    var status = stat()
    return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
}

private func contents(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Runs the built `quire` with its standard output going to `output`; returns the exit
/// status and standard error.
private func run(_ arguments: [String], store: String, standardOutput output: FileHandle) throws -> (status: Int32, standardError: String) {
    let process = Process()
    process.executableURL = try BuiltProducts.executable(named: "quire")
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(["QUIRE_STORE": store]) { $1 }
    let errors = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

@Suite("Where the tool's output goes: standard output, export -o, status --version-out (the real binary)")
struct OutputTargetTests {
    static let ode = "My Poetry/Your Poetry/Draft/Ode"

    private func makeStore(in temp: TemporaryDirectory) throws -> AppTool {
        let quire = AppTool(store: temp.appending("store"))
        try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
        try quire.ok(["write", Self.ode], input: "The sea is calm tonight.\n")
        return quire
    }

    @Test("cat, tree and log with standard output on /dev/full exit 1 and say the output could not be written")
    func fullStandardOutput() throws {
        try withTemporaryDirectory { temp in
            let quire = try makeStore(in: temp)
            for arguments in [["cat", Self.ode], ["tree"], ["log", Self.ode], ["status"]] {
                let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
                defer { try? full.close() }
                let result = try run(arguments, store: quire.store, standardOutput: full)
                #expect(result.status == 1, "quire \(arguments): \(result.standardError)")
                #expect(result.standardError.contains("cannot write standard output: No space left on device"),
                        "quire \(arguments): \(result.standardError)")
            }
            // The same commands succeed with a working standard output.
            let null = try #require(FileHandle(forWritingAtPath: "/dev/null"))
            defer { try? null.close() }
            #expect(try run(["cat", Self.ode], store: quire.store, standardOutput: null).status == 0)
        }
    }

    @Test("export -o and status --version-out through a symbolic link write its target and keep the link")
    func symbolicLinks() throws {
        try withTemporaryDirectory { temp in
            let quire = try makeStore(in: temp)
            let target = temp.appending("target.qdelta"), link = temp.appending("link.qdelta")
            try Data("old".utf8).write(to: URL(fileURLWithPath: target))
            try #require(chmod(target, 0o600) == 0)
            try #require(symlink("target.qdelta", link) == 0)
            let export = try quire.run(["export", "-o", link])
            #expect(export.status == 0, "stderr: \(export.standardError)")
            #expect(fileType(link) == S_IFLNK)
            #expect(fileType(target) == S_IFREG)
            let written = try contents(target)
            #expect(written.count > 100 && written != Array("old".utf8))
            var status = stat()
            #expect(stat(target, &status) == 0 && status.st_mode & 0o777 == 0o600, "the replaced file keeps its mode")
            // The bytes are a delta another store accepts.
            let other = AppTool(store: temp.appending("other"))
            try other.ok(["import", link])
            #expect(try other.ok(["cat", Self.ode]) == "The sea is calm tonight.\n")

            // A dangling link gets its target created; the link stays.
            let dangling = temp.appending("dangling.version")
            try #require(symlink("created.version", dangling) == 0)
            let version = try quire.run(["status", "--version-out", dangling])
            #expect(version.status == 0, "stderr: \(version.standardError)")
            #expect(fileType(dangling) == S_IFLNK)
            #expect(String(decoding: try contents(temp.appending("created.version")), as: UTF8.self).hasPrefix("quire-version 1"))
            // No temporary file is left behind.
            let left = try FileManager.default.contentsOfDirectory(atPath: temp.path).filter { $0.hasSuffix(".tmp") }
            #expect(left.isEmpty)
        }
    }

    @Test("export -o a FIFO writes the delta into it and leaves the FIFO; the summary goes to standard error")
    func fifo() throws {
        try withTemporaryDirectory { temp in
            let quire = try makeStore(in: temp)
            let fifo = temp.appending("pipe")
            try #require(mkfifo(fifo, 0o600) == 0)
            // Held open for reading (and writing, so opening does not wait): the export's
            // open then succeeds at once, and the delta fits in the pipe's buffer.
            let reader = open(fifo, O_RDWR | O_NONBLOCK)
            try #require(reader >= 0)
            defer { close(reader) }
            let export = try quire.run(["export", "-o", fifo])
            #expect(export.status == 0, "stderr: \(export.standardError)")
            #expect(fileType(fifo) == S_IFIFO)
            #expect(export.standardError.contains("wrote \(fifo): "))
            #expect(export.standardOutput.isEmpty)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let count = read(reader, &buffer, buffer.count)
            #expect(count > 100, "the delta arrived through the FIFO")
            let delta = temp.appending("copy.qdelta")
            try Data(buffer.prefix(max(count, 0))).write(to: URL(fileURLWithPath: delta))
            let other = AppTool(store: temp.appending("other"))
            try other.ok(["import", delta])
            #expect(try other.ok(["cat", Self.ode]) == "The sea is calm tonight.\n")
        }
    }

    @Test("export -o to a full device (a link to /dev/full, or a node of it) exits 1 and leaves the device a device")
    func fullDevice() throws {
        try withTemporaryDirectory { temp in
            let quire = try makeStore(in: temp)
            let link = temp.appending("full")
            try #require(symlink("/dev/full", link) == 0)
            let export = try quire.run(["export", "-o", link])
            #expect(export.status == 1)
            #expect(export.standardError.contains("cannot write \(link): No space left on device"), "\(export.standardError)")
            #expect(fileType(link) == S_IFLNK)
            #expect(fileType("/dev/full") == S_IFCHR)

            // A device node of /dev/full inside the temporary directory (root only, and
            // only where device nodes work): written directly, never renamed over.
            var device = stat()
            try #require(stat("/dev/full", &device) == 0)
            let node = temp.appending("full-node")
            guard mknod(node, S_IFCHR | 0o666, device.st_rdev) == 0 else { return }
            let probe = open(node, O_WRONLY)
            guard probe >= 0 else { return }  // a nodev mount
            close(probe)
            let direct = try quire.run(["export", "-o", node])
            #expect(direct.status == 1)
            #expect(direct.standardError.contains("No space left on device"))
            #expect(fileType(node) == S_IFCHR)
        }
    }

    @Test("export -o /dev/stdout with standard output redirected to a file writes the delta into that file, the summary to standard error")
    func standardOutputFile() throws {
        try withTemporaryDirectory { temp in
            let quire = try makeStore(in: temp)
            let file = temp.appending("redirected.qdelta")
            try #require(FileManager.default.createFile(atPath: file, contents: nil))
            let handle = try #require(FileHandle(forWritingAtPath: file))
            let result = try run(["export", "-o", "/dev/stdout"], store: quire.store, standardOutput: handle)
            try handle.close()
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.contains("wrote /dev/stdout: "))
            let other = AppTool(store: temp.appending("other"))
            try other.ok(["import", file])
            #expect(try other.ok(["cat", Self.ode]) == "The sea is calm tonight.\n")
        }
    }

    @Test("export -o a directory is refused with exit 1 and the directory is left as it is")
    func directory() throws {
        try withTemporaryDirectory { temp in
            let quire = try makeStore(in: temp)
            let folder = temp.appending("folder")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let export = try quire.run(["export", "-o", folder])
            #expect(export.status == 1)
            #expect(export.standardError.contains("cannot write \(folder): it is a directory, not a file"))
            #expect(fileType(folder) == S_IFDIR)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }
}
