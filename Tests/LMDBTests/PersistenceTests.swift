import Foundation
import LMDB
import QuireTestSupport
import Testing

@Suite("Persistence and maintenance")
struct PersistenceTests {
    @Test("data committed before close is there after reopening")
    func reopen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("env")
            do {
                let env = try Environment(path: path)
                let db = try env.openDatabase(named: "notes")
                try env.write { tx in
                    for index in UInt64(0)..<500 { try tx.put(Key("note", index), forKey: Key(index), in: db) }
                }
                try env.close()
                let closed = lmdbError { try env.read { _ in } }
                #expect(closed?.code == .environmentClosed)
                try env.close()  // closing twice does nothing
            }
            let env = try Environment(path: path)
            let db = try env.openDatabase(named: "notes", options: [])
            try env.read { tx throws in
                #expect(try tx.count(in: db) == 500)
                #expect(try tx.value(forKey: Key(UInt64(499)), in: db) == Key("note", UInt64(499)).bytes)
            }
        }
    }

    @Test("a compacting copy is a complete, smaller, openable backup")
    func compactingCopy() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in
            for index in UInt32(0)..<2_000 { try tx.put([UInt8](repeating: 9, count: 500), forKey: Key(index), in: db) }
        }
        try env.write { tx in _ = try tx.removeAll(in: db, range: .atLeast(Key(UInt32(100)))) }

        let backupPath = test.directory.appending("backup")
        try env.copy(to: backupPath, compacting: true)
        let original = try FileManager.default.attributesOfItem(atPath: test.path + "/data.mdb")[.size] as? Int
        let copied = try FileManager.default.attributesOfItem(atPath: backupPath + "/data.mdb")[.size] as? Int
        #expect(try #require(copied) < (try #require(original)))

        let backup = try Environment(path: backupPath)
        let backupDB = try backup.openDatabase(named: "d", options: [])
        #expect(try backup.read { tx in try tx.count(in: backupDB) } == 100)
    }

    @Test("info and statistics describe the environment")
    func infoAndStatistics() throws {
        let test = try TestEnvironment(mapSize: 1 << 20)
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        let before = try env.info()
        try env.write { tx in
            for index in UInt32(0)..<1_000 { try tx.put(Key(index), forKey: Key(index), in: db) }
        }
        let after = try env.info()
        #expect(after.mapSize == 1 << 20)
        #expect(after.lastTransactionID == before.lastTransactionID + 1)
        #expect(after.lastPageNumber > before.lastPageNumber)
        #expect(after.maxReaders == 126)
        let stats = try env.read { tx in try tx.statistics(of: db) }
        #expect(stats.entries == 1_000)
        #expect(stats.pageSize == 4_096)
        #expect(stats.depth >= 2)
        #expect(stats.totalBytes >= stats.leafPages * 4_096)
        #expect(try env.statistics().entries == 1)  // the main tree holds one named database
        try env.sync()
        #expect(Environment.libraryVersion.major == 0 && Environment.libraryVersion.minor == 9)
    }

    @Test("every durability mode commits data that a reopen sees")
    func durabilityModes() throws {
        for durability in [Environment.Durability.full, .noMetaSync, .noSync] {
            try withTemporaryDirectory { directory in
                var configuration = Environment.Configuration()
                configuration.durability = durability
                let path = directory.appending("env")
                do {
                    let env = try Environment(path: path, configuration: configuration)
                    let db = try env.openDatabase(named: "d")
                    try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }
                    try env.sync()
                    try env.close()
                }
                let env = try Environment(path: path)
                let db = try env.openDatabase(named: "d", options: [])
                #expect(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) } == bytes("v"))
            }
        }
    }

    @Test("opening something that is not an LMDB file fails with a clear error")
    func notAnLMDBFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("env")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try Data(repeating: 0x41, count: 16_384).write(to: URL(fileURLWithPath: path + "/data.mdb"))
            let error = lmdbError { _ = try Environment(path: path) }
            #expect(error?.code == .invalidFile)
            #expect(error?.operation == .openEnvironment)
            #expect(error?.description.contains(path) == true)
        }
    }

    @Test("a directory that cannot be created fails naming the path")
    func uncreatableDirectory() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("missing-parent/env")
            let error = lmdbError { _ = try Environment(path: path) }
            #expect(error?.code == .noSuchFile)
            #expect(error?.description.contains("missing-parent") == true)
        }
    }
}
