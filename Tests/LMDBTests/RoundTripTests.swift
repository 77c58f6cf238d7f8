import LMDB
import Testing

@Suite("Get, put and delete")
struct RoundTripTests {
    @Test("a value put is read back, overwritten and removed")
    func putGetOverwriteRemove() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "things")

        try env.write { tx in try tx.put(bytes("one"), forKey: Key("a"), in: db) }
        #expect(try env.read { tx in text(try tx.value(forKey: Key("a"), in: db)) } == "one")

        try env.write { tx in try tx.put(bytes("two"), forKey: Key("a"), in: db) }
        #expect(try env.read { tx in text(try tx.value(forKey: Key("a"), in: db)) } == "two")

        let removed = try env.write { tx in try tx.removeValue(forKey: Key("a"), in: db) }
        #expect(removed)
        let removedAgain = try env.write { tx in try tx.removeValue(forKey: Key("a"), in: db) }
        #expect(!removedAgain)
        #expect(try env.read { tx in try tx.value(forKey: Key("a"), in: db) } == nil)
        #expect(try env.read { tx in try tx.containsValue(forKey: Key("a"), in: db) } == false)
    }

    @Test("a write transaction sees its own uncommitted writes")
    func readYourWrites() throws {
        let test = try TestEnvironment()
        let db = try test.environment.openDatabase(named: "d")
        let seen = try test.environment.write { tx throws in
            try tx.put(bytes("v"), forKey: bytes("k"), in: db)
            return try tx.value(forKey: bytes("k"), in: db)
        }
        #expect(seen == bytes("v"))
    }

    @Test("empty values are stored; empty and over-long keys are refused")
    func sizeLimits() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put([UInt8](), forKey: bytes("empty"), in: db) }
        #expect(try env.read { tx in try tx.value(forKey: bytes("empty"), in: db) } == [])

        let emptyKey = lmdbError { try env.write { tx in try tx.put(bytes("v"), forKey: [UInt8](), in: db) } }
        #expect(emptyKey?.code == .badValueSize)
        let longKey = [UInt8](repeating: 7, count: env.maxKeySize + 1)
        let tooLong = lmdbError { try env.write { tx in try tx.put(bytes("v"), forKey: longKey, in: db) } }
        #expect(tooLong?.code == .badValueSize)
        #expect(env.maxKeySize == 511)

        let large = [UInt8](repeating: 0x5A, count: 3 << 20)  // overflow pages
        try env.write { tx in try tx.put(large, forKey: bytes("large"), in: db) }
        #expect(try env.read { tx in try tx.value(forKey: bytes("large"), in: db) } == large)
    }

    @Test("noOverwrite refuses an existing key and keeps its value")
    func noOverwrite() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("first"), forKey: bytes("k"), in: db, options: .noOverwrite) }
        let error = lmdbError {
            try env.write { tx in try tx.put(bytes("second"), forKey: bytes("k"), in: db, options: .noOverwrite) }
        }
        #expect(error?.code == .keyExists)
        #expect(error?.operation == .put)
        #expect(try env.read { tx in text(try tx.value(forKey: bytes("k"), in: db)) } == "first")
    }

    @Test("append loads ascending keys and refuses one out of order")
    func append() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "log")
        try env.write { tx throws in
            for counter in UInt64(0)..<1_000 {
                try tx.put(Key(counter), forKey: Key(counter), in: db, options: .append)
            }
        }
        #expect(try env.read { tx in try tx.count(in: db) } == 1_000)
        let error = lmdbError {
            try env.write { tx in try tx.put(bytes("x"), forKey: Key(UInt64(5)), in: db, options: .append) }
        }
        #expect(error?.code == .keyExists)
    }

    @Test("entry counts, range removal and clearing")
    func countsAndRemoval() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx throws in
            for index in UInt32(0)..<100 { try tx.put(Key(index), forKey: Key(index), in: db) }
        }
        #expect(try env.read { tx in try tx.count(in: db) } == 100)

        let removed = try env.write { tx throws in
            try tx.removeAll(in: db, range: KeyRange(from: Key(UInt32(10)), to: Key(UInt32(20))))
        }
        #expect(removed == 10)
        let keys = try env.read { tx in try tx.entries(in: db).map { try readUInt32($0.key) } }
        #expect(keys == Array(0..<10) + Array(20..<100))

        try env.write { tx in try tx.removeAll(in: db) }
        #expect(try env.read { tx in try tx.count(in: db) } == 0)
        // The database itself survives being emptied.
        try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }
        #expect(try env.read { tx in try tx.count(in: db) } == 1)
    }

    @Test("named databases are separate key spaces")
    func separateDatabases() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let first = try env.openDatabase(named: "first")
        let second = try env.openDatabase(named: "second")
        #expect(try env.openDatabase(named: "first") == first)
        try env.write { tx throws in
            try tx.put(bytes("1"), forKey: bytes("k"), in: first)
            try tx.put(bytes("2"), forKey: bytes("k"), in: second)
        }
        try env.read { tx throws in
            #expect(text(try tx.value(forKey: bytes("k"), in: first)) == "1")
            #expect(text(try tx.value(forKey: bytes("k"), in: second)) == "2")
        }
    }

    @Test("opening a missing database without .create fails with a clear error")
    func missingDatabase() throws {
        let test = try TestEnvironment()
        let error = lmdbError { _ = try test.environment.openDatabase(named: "absent", options: []) }
        #expect(error?.code == .notFound)
        #expect(error?.description.contains("absent") == true)
        #expect(error?.description.contains(".create") == true)
        let invalid = lmdbError { _ = try test.environment.openDatabase(named: "") }
        #expect(invalid?.code == .invalidName)
    }

    @Test("more databases than maxDatabases fails with MDB_DBS_FULL")
    func tooManyDatabases() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = Environment.Configuration()
        configuration.maxDatabases = 2
        let env = try Environment(path: directory.appending("env"), configuration: configuration)
        _ = try env.openDatabase(named: "a")
        _ = try env.openDatabase(named: "b")
        let error = lmdbError { _ = try env.openDatabase(named: "c") }
        #expect(error?.code == .databasesFull)
        #expect(error?.description.contains("maxDatabases") == true)
    }
}

func readUInt32(_ key: [UInt8]) throws -> UInt32 {
    var reader = KeyReader(key)
    return try reader.read(UInt32.self)
}

import QuireTestSupport
