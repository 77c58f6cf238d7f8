@_spi(Testing) import LMDB
import QuireTestSupport
import Testing

@Suite("Injected failures")
struct FaultInjectionTests {
    @Test("an injected map-full on put is absorbed: the map grows and the body reruns")
    func mapFullOnPut() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        let sizeBefore = try env.info().mapSize
        test.faults.fail(.put, with: .mapFull)
        var runs = 0
        try env.write { tx in
            runs += 1
            try tx.put(bytes("v"), forKey: bytes("k"), in: db)
        }
        #expect(runs == 2)
        #expect(try env.info().mapSize == sizeBefore * 2)
        #expect(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) } == bytes("v"))
    }

    @Test("an injected map-full on commit is absorbed too")
    func mapFullOnCommit() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        test.faults.fail(.commit, with: .mapFull)
        var runs = 0
        try env.write { tx in
            runs += 1
            try tx.put(bytes("v"), forKey: bytes("k"), in: db)
        }
        #expect(runs == 2)
        #expect(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) } == bytes("v"))
    }

    @Test("an I/O error on commit is thrown as EIO and nothing is written")
    func ioErrorOnCommit() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("old"), forKey: bytes("k"), in: db) }
        test.faults.fail(.commit, with: .ioError)
        let error = lmdbError { try env.write { tx in try tx.put(bytes("new"), forKey: bytes("k"), in: db) } }
        #expect(error?.code == .ioError)
        #expect(error?.operation == .commit)
        #expect(error?.description.contains("EIO") == true)
        #expect(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) } == bytes("old"))
        // The environment stays usable.
        try env.write { tx in try tx.put(bytes("new"), forKey: bytes("k"), in: db) }
        #expect(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) } == bytes("new"))
    }

    @Test("a full disk on commit is thrown as ENOSPC with advice, and nothing is written")
    func diskFullOnCommit() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        test.faults.fail(.commit, with: .noSpace)
        let error = lmdbError { try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) } }
        #expect(error?.code == .noSpace)
        #expect(error?.description.contains("Free disk space") == true)
        #expect(try env.read { tx in try tx.count(in: db) } == 0)
    }

    @Test("EIO on commit with the disk nearly full is reported as a full disk, with the free space and what to do")
    func ioErrorOnFullDisk() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("old"), forKey: bytes("k"), in: db) }
        test.faults.fail(.commit, with: .ioError)
        test.faults.reportFreeSpace(12 * 1024)
        let error = lmdbError { try env.write { tx in try tx.put(bytes("new"), forKey: bytes("k"), in: db) } }
        #expect(error?.code == .noSpace)
        #expect(error?.operation == .commit)
        #expect(error?.description == "LMDB commit (\(test.path)) failed: ENOSPC: the disk is full (12 KiB free; LMDB reported the short write as EIO). Free disk space and try again; nothing was written")
        #expect(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) } == bytes("old"))
    }

    @Test("EIO on commit with room on the disk stays an I/O error; the probe asks the real file system")
    func ioErrorWithRoom() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        test.faults.fail(.commit, with: .ioError)
        test.faults.reportFreeSpace(LMDBError.diskFullThreshold)
        #expect(lmdbError { try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) } }?.code == .ioError)
        // Without an injected answer the probe asks statvfs; a test directory has room.
        test.faults.reportFreeSpace(nil)
        test.faults.fail(.commit, with: .ioError)
        let error = lmdbError { try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) } }
        #expect(error?.code == .ioError)
        #expect(error?.description.contains("Check the disk") == true)
    }

    @Test("failures of put, get, delete, cursor and begin surface with their operation")
    func failuresCarryTheirOperation() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }

        test.faults.fail(.put, with: .ioError)
        #expect(lmdbError { try env.write { tx in try tx.put(bytes("x"), forKey: bytes("k"), in: db) } }?.operation == .put)
        test.faults.fail(.get, with: .ioError)
        #expect(lmdbError { _ = try env.read { tx in try tx.value(forKey: bytes("k"), in: db) } }?.operation == .get)
        test.faults.fail(.delete, with: .ioError)
        #expect(lmdbError { _ = try env.write { tx in try tx.removeValue(forKey: bytes("k"), in: db) } }?.operation == .delete)
        test.faults.fail(.cursorGet, with: .corrupted)
        let cursorError = lmdbError { _ = try env.read { tx in try tx.entries(in: db) } }
        #expect(cursorError?.code == .corrupted)
        #expect(cursorError?.description.contains("backup") == true)
        // The reads above left a transaction, which a commit made stale: its renew fails
        // too, so the read falls back to a begin, whose failure surfaces.
        try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }
        test.faults.fail(.renewTransaction, with: .ioError)
        test.faults.fail(.beginTransaction, with: .readersFull)
        let beginError = lmdbError { try env.read { _ in } }
        #expect(beginError?.code == .readersFull)
        #expect(beginError?.operation == .beginTransaction)
        #expect(beginError?.description.contains("maxReaders") == true)
        // Every failure left the data as it was.
        #expect(try env.read { tx in try tx.entries(in: db) } == [Entry(key: bytes("k"), value: bytes("v"))])
    }

    @Test("a failed map resize closes the environment for good; the file stays intact")
    func failedResize() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("kept"), forKey: bytes("old"), in: db) }
        test.faults.fail(.put, with: .mapFull)
        test.faults.fail(.setMapSize, with: .outOfMemory)
        let error = lmdbError { try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) } }
        #expect(error?.code == .outOfMemory)
        #expect(error?.operation == .growMap)
        #expect(error?.description.contains("data on disk is intact") == true)
        // LMDB has unmapped the old map by now: every later call is refused, not crashed.
        #expect(lmdbError { try env.read { _ in } }?.code == .environmentFailed)
        #expect(lmdbError { _ = try env.info() }?.code == .environmentFailed)
        let reopened = try Environment(path: test.path)
        let reopenedDB = try reopened.openDatabase(named: "d", options: [])
        #expect(try reopened.read { tx in try tx.entries(in: reopenedDB) } == [Entry(key: bytes("old"), value: bytes("kept"))])
    }

    @Test("a failed open releases the handle and names the path")
    func failedOpen() throws {
        try withTemporaryDirectory { directory in
            let faults = FaultInjector()
            faults.fail(.openEnvironment, with: .permissionDenied)
            var configuration = Environment.Configuration()
            configuration.faultInjector = faults
            let path = directory.appending("env")
            let error = lmdbError { _ = try Environment(path: path, configuration: configuration) }
            #expect(error?.code == .permissionDenied)
            #expect(error?.description == "LMDB open environment (\(path)) failed: EACCES: Permission denied. Check the permissions of the store's directory and files")
            // Nothing is left locked: a normal open succeeds.
            _ = try Environment(path: path)
        }
    }

    @Test("a value where a named database should be (MDB_INCOMPATIBLE) says the file is damaged and what to do")
    func incompatibleIsExplained() throws {
        let test = try TestEnvironment()
        let env = test.environment
        test.faults.fail(.openDatabase, with: .incompatible)
        let error = lmdbError { _ = try env.openDatabase(named: "other") }
        #expect(error?.code == .incompatible)
        #expect(error?.description.contains("MDB_INCOMPATIBLE: MDB_INCOMPATIBLE") == false)
        #expect(error?.description.contains("the file is damaged or was written by another program") == true, "\(String(describing: error))")
        #expect(error?.description.contains("Restore the directory from a backup") == true)
    }

    @Test("unknown codes still describe themselves")
    func unknownCodes() {
        let lmdb = LMDBError.Code(rawValue: -30_797)
        #expect(lmdb == .pageNotFound)
        #expect(lmdb.name == "MDB_PAGE_NOTFOUND")
        let unknown = LMDBError.Code(rawValue: 9_999)
        #expect(unknown.name == "error 9999")
        #expect(!unknown.explanation.isEmpty)
    }
}
