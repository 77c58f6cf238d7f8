import Foundation
@_spi(Testing) import LMDB
import QuireTestSupport
import Testing

@Suite("Handles are used only where they belong")
struct HandleSafetyTests {
    @Test("a second Environment on the same directory in one process is refused")
    func oneEnvironmentPerFile() throws {
        let test = try TestEnvironment()
        let error = lmdbError { _ = try Environment(path: test.path) }
        #expect(error?.code == .alreadyOpen)
        #expect(error?.description.contains("Share the one Environment") == true)
        // The refusal did not disturb the open one.
        let db = try test.environment.openDatabase(named: "d")
        try test.environment.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }

        try test.environment.close()
        let reopened = try Environment(path: test.path)
        let reopenedDB = try reopened.openDatabase(named: "d")
        #expect(try reopened.read { tx in try tx.count(in: reopenedDB) } == 1)
    }

    @Test("a new store in the place of a deleted one opens while the old handle still lives")
    func replacedDirectory() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("env")
            let old = try Environment(path: path)
            try FileManager.default.removeItem(atPath: path)
            let replacement = try Environment(path: path)
            let db = try replacement.openDatabase(named: "d")
            try replacement.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }
            #expect(try replacement.read { tx in try tx.count(in: db) } == 1)
            try old.close()
        }
    }

    @Test("an Environment released without close frees its directory for the next one")
    func releaseFreesTheDirectory() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("env")
            do { _ = try Environment(path: path) }
            _ = try Environment(path: path)
        }
    }

    @Test("a database handle of another environment, or of a closed one, is refused")
    func foreignDatabaseHandles() throws {
        let first = try TestEnvironment()
        let second = try TestEnvironment()
        let users = try first.environment.openDatabase(named: "users")
        _ = try second.environment.openDatabase(named: "secrets")
        let foreign = lmdbError {
            try second.environment.write { tx in try tx.put(bytes("x"), forKey: bytes("k"), in: users) }
        }
        #expect(foreign?.code == .badDatabase)
        #expect(foreign?.description.contains("another") == true)

        try first.environment.close()
        let reopened = try Environment(path: first.path)
        let stale = lmdbError { _ = try reopened.read { tx in try tx.count(in: users) } }
        #expect(stale?.code == .badDatabase)
    }

    @Test("a copy inside a transaction body is refused instead of hanging")
    func copyInsideTransaction() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let inWrite = lmdbError { try env.write { _ in try env.copy(to: test.directory.appending("b1"), compacting: false) } }
        #expect(inWrite?.code == .insideTransaction)
        let inRead = lmdbError { try env.read { _ in try env.copy(to: test.directory.appending("b2")) } }
        #expect(inRead?.code == .insideTransaction)
        try env.copy(to: test.directory.appending("b3"), compacting: false)
    }

    @Test("a cached database opens inside a write while another thread creates a new one")
    func cachedOpenDuringConcurrentCreate() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let faults = test.faults
        _ = try env.openDatabase(named: "cached")
        let creator = Locked<TestThread?>(nil)
        let writer = TestThread {
            try env.write { _ in
                let begunBefore = faults.count(of: .beginTransaction)
                creator.set(TestThread { _ = try env.openDatabase(named: "fresh") })
                // Once the creator has asked LMDB for its transaction it holds the
                // database-opening lock and waits for the writer lock this thread holds.
                while faults.count(of: .beginTransaction) == begunBefore { sched_yield() }
                _ = try env.openDatabase(named: "cached")
            }
        }
        guard writer.join(within: 20) else {
            Issue.record("deadlock: the cached open waited for the creator")
            return
        }
        try writer.join()
        try creator.get()?.join()
        #expect(try env.openDatabase(named: "fresh", options: []).name == "fresh")
    }

    @Test("removing a range that covers every entry empties the database")
    func removeEverything() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        for range in [KeyRange.all, .atLeast(Key(UInt32(0))), .prefix(Key())] {
            try env.write { tx in
                for index in UInt32(0)..<10 { try tx.put(Key(index), forKey: Key(index), in: db) }
            }
            let removed = try env.write { tx in try tx.removeAll(in: db, range: range) }
            #expect(removed == 10)
            #expect(try env.read { tx in try tx.count(in: db) } == 0)
        }
    }

    @Test("empty bounds: an empty prefix matches everything, nothing is below the empty key")
    func emptyBounds() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in
            for index in UInt32(0)..<5 { try tx.put(Key(index), forKey: Key(index), in: db) }
        }
        try env.read { tx throws in
            #expect(try tx.entries(in: db, range: .prefix(Key())).count == 5)
            #expect(try tx.entries(in: db, range: .atLeast([UInt8]())).count == 5)
            #expect(try tx.entries(in: db, range: .below([UInt8]())).isEmpty)
            #expect(try tx.entries(in: db, range: .below([UInt8]()), reverse: true).isEmpty)
        }
    }

    @Test("an absurd map size is an error or a working environment, never a crash")
    func hugeMapSize() throws {
        try withTemporaryDirectory { directory in
            var configuration = Environment.Configuration()
            configuration.mapSize = Int.max
            do {
                let env = try Environment(path: directory.appending("env"), configuration: configuration)
                _ = try env.openDatabase(named: "d")
            } catch let error as LMDBError {
                #expect(error.operation == .openEnvironment || error.operation == .openDatabase)
            }
        }
    }
}
