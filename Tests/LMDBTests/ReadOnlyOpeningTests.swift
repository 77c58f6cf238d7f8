#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LMDB
import QuireTestSupport
import Testing

@Suite("Read-only opening")
struct ReadOnlyOpeningTests {
    @Test("readOnly without the lock file (MDB_RDONLY | MDB_NOLOCK) reads files chmod 0444 in a 0555 directory, creates no lock.mdb, refuses writes")
    func withoutLockFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("env")
            do {
                let environment = try Environment(path: path)
                let notes = try environment.openDatabase(named: "notes")
                try environment.write { tx in try tx.put(bytes("kept"), forKey: Key(UInt64(1)), in: notes) }
                try environment.close()
            }
            try FileManager.default.removeItem(atPath: path + "/lock.mdb")
            let before = try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))
            try #require(chmod(path + "/data.mdb", 0o444) == 0 && chmod(path, 0o555) == 0)
            defer { _ = chmod(path, 0o755) }

            var configuration = Environment.Configuration()
            configuration.readOnly = true
            configuration.usesLockFile = false
            let environment = try Environment(path: path, configuration: configuration)
            let notes = try environment.openDatabase(named: "notes")
            #expect(text(try environment.read { tx in try tx.value(forKey: Key(UInt64(1)), in: notes) }) == "kept")
            let refused = lmdbError { try environment.write { tx in try tx.put(bytes("x"), forKey: Key(UInt64(2)), in: notes) } }
            #expect(refused?.code == .permissionDenied)
            try environment.close()

            #expect(!FileManager.default.fileExists(atPath: path + "/lock.mdb"), "MDB_NOLOCK opens no lock file")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")) == before)
        }
    }

    @Test("readOnly with the lock file (the default) uses lock.mdb, so it reads beside a writer")
    func withLockFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("env")
            let writer = try Environment(path: path)
            let notes = try writer.openDatabase(named: "notes")
            try writer.write { tx in try tx.put(bytes("first"), forKey: Key(UInt64(1)), in: notes) }
            try writer.close()
            try FileManager.default.removeItem(atPath: path + "/lock.mdb")
            var configuration = Environment.Configuration()
            configuration.readOnly = true
            let reader = try Environment(path: path, configuration: configuration)
            #expect(FileManager.default.fileExists(atPath: path + "/lock.mdb"))
            let database = try reader.openDatabase(named: "notes")
            #expect(text(try reader.read { tx in try tx.value(forKey: Key(UInt64(1)), in: database) }) == "first")
            try reader.close()
        }
    }
}
