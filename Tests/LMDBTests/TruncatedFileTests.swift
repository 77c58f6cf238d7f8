import Foundation
import LMDB
import QuireTestSupport
import Testing

/// Writes a few hundred kilobytes into a new environment at `path` and closes it.
private func makeEnvironment(at path: String) throws {
    let environment = try Environment(path: path)
    let database = try environment.openDatabase(named: "notes")
    try environment.write { tx in
        for index in UInt32(0)..<400 { try tx.put([UInt8](repeating: 7, count: 700), forKey: Key(index), in: database) }
    }
    try environment.close()
}

private func fileSize(_ path: String) throws -> Int {
    try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
}

/// Cuts the file at `path` to `size` bytes, as `truncate -s` does.
private func truncate(_ path: String, to size: Int) throws {
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.truncate(atOffset: UInt64(size))
    try handle.close()
}

@Suite("A truncated data file")
struct TruncatedFileTests {
    @Test("opening a data.mdb cut to half its size throws .truncatedFile with both sizes, instead of mapping it")
    func halfTruncated() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("env")
            try makeEnvironment(at: path)
            let full = try fileSize(path + "/data.mdb")
            #expect(full > 100 * 4096)
            try truncate(path + "/data.mdb", to: full / 2)

            let error = lmdbError { _ = try Environment(path: path) }
            #expect(error?.code == .truncatedFile)
            #expect(error?.operation == .openEnvironment)
            let message = error?.description ?? ""
            #expect(message.contains("truncated: it has \(full / 2) bytes, but its last committed transaction needs at least \(full)"))
            #expect(message.contains("Restore the directory from a backup"))
            #expect(message.contains("import a full delta"))
            // Refused before LMDB saw it: the file is as it was, and read-only opening refuses too.
            #expect(try fileSize(path + "/data.mdb") == full / 2)
            var readOnly = Environment.Configuration()
            readOnly.readOnly = true
            #expect(lmdbError { _ = try Environment(path: path, configuration: readOnly) }?.code == .truncatedFile)
        }
    }

    @Test("a data.mdb cut inside its second meta page, or by one page, is refused; a complete one opens")
    func smallCuts() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("env")
            try makeEnvironment(at: path)
            let full = try fileSize(path + "/data.mdb")
            // A complete file opens (the check accepts what LMDB wrote).
            try Environment(path: path).close()

            try truncate(path + "/data.mdb", to: full - 4096)
            #expect(lmdbError { _ = try Environment(path: path) }?.code == .truncatedFile)
            try truncate(path + "/data.mdb", to: 4096 + 100)
            #expect(lmdbError { _ = try Environment(path: path) }?.code == .truncatedFile)
        }
    }

    @Test("a new environment and a freshly created one still open (an empty or missing file is not truncated)")
    func newEnvironments() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("env")
            try Environment(path: path).close()
            try Environment(path: path).close()
            try truncate(path + "/data.mdb", to: 0)
            try Environment(path: path).close()
        }
    }
}
