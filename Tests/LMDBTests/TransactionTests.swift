import Foundation
import LMDB
import QuireTestSupport
import Synchronization
import Testing

@Suite("Transactions")
struct TransactionTests {
    struct Rollback: Error {}

    @Test("a write whose body throws leaves nothing behind")
    func abortOnThrow() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("kept"), forKey: bytes("old"), in: db) }
        #expect(throws: Rollback.self) {
            try env.write { tx throws in
                try tx.put(bytes("lost"), forKey: bytes("new"), in: db)
                try tx.put(bytes("changed"), forKey: bytes("old"), in: db)
                try tx.removeAll(in: db)
                throw Rollback()
            }
        }
        let entries = try env.read { tx in try tx.entries(in: db) }
        #expect(entries == [Entry(key: bytes("old"), value: bytes("kept"))])
    }

    @Test("a write inside a write on the same thread throws instead of deadlocking")
    func nestedWrite() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        var inner: LMDBError?
        try env.write { tx in
            try tx.put(bytes("outer"), forKey: bytes("k"), in: db)
            inner = lmdbError { try env.write { tx in try tx.put(bytes("inner"), forKey: bytes("k"), in: db) } }
        }
        #expect(inner?.code == .nestedWrite)
        #expect(inner?.description.contains("write { } block") == true)
        // The outer write still committed.
        #expect(try env.read { tx in text(try tx.value(forKey: bytes("k"), in: db)) } == "outer")
        // And writing works again afterwards.
        try env.write { tx in try tx.put(bytes("again"), forKey: bytes("k"), in: db) }
    }

    @Test("a read inside a write sees the last commit, not the write in progress")
    func readInsideWrite() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("committed"), forKey: bytes("k"), in: db) }
        let seen = try env.write { tx throws in
            try tx.put(bytes("pending"), forKey: bytes("k"), in: db)
            return try env.read { reader in text(try reader.value(forKey: bytes("k"), in: db)) }
        }
        #expect(seen == "committed")
    }

    @Test("opening a database or closing inside a transaction body is refused")
    func callsThatWaitForTransactions() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let openInside = lmdbError { try env.read { _ in _ = try env.openDatabase(named: "late") } }
        #expect(openInside?.code == .insideTransaction)
        let closeInside = lmdbError { try env.write { _ in try env.close() } }
        #expect(closeInside?.code == .insideTransaction)
    }

    @Test("a reader keeps its snapshot while a writer on another thread commits")
    func snapshotIsolation() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("before"), forKey: bytes("k"), in: db) }

        let writerDone = DispatchSemaphore(value: 0)
        let (duringRead, afterCommit) = try env.read { tx throws -> (String?, String?) in
            let writer = TestThread {
                try env.write { tx in
                    try tx.put(bytes("after"), forKey: bytes("k"), in: db)
                    try tx.put(bytes("new"), forKey: bytes("other"), in: db)
                }
                writerDone.signal()
            }
            writerDone.wait()
            try writer.join()
            // The writer has committed; this transaction still reads its snapshot.
            #expect(try tx.value(forKey: bytes("other"), in: db) == nil)
            #expect(try tx.count(in: db) == 1)
            let stillSeen = text(try tx.value(forKey: bytes("k"), in: db))
            let fresh = try env.read { tx in text(try tx.value(forKey: bytes("k"), in: db)) }
            return (stillSeen, fresh)
        }
        #expect(duringRead == "before")
        #expect(afterCommit == "after")
    }

    @Test("readers on several threads always see whole commits while a writer runs")
    func concurrentReadersAndWriter() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        let commits = 300
        try env.write { tx in
            try tx.put(Key(UInt64(0)), forKey: bytes("counter"), in: db)
            try tx.put(Key(UInt64(0)), forKey: bytes("mirror"), in: db)
        }
        let writerFinished = Locked(false)
        let writer = TestThread {
            for index in 1...UInt64(commits) {
                try env.write { tx in
                    try tx.put(Key(index), forKey: bytes("counter"), in: db)
                    try tx.put(Key(UInt64(index) * 7), forKey: Key("fill", index), in: db)
                    try tx.put(Key(index), forKey: bytes("mirror"), in: db)
                }
            }
            writerFinished.set(true)
        }
        let readers = (0..<3).map { _ in
            TestThread {
                var reads = 0
                var lastSeen: UInt64 = 0
                // Read until the writer is done, then once more.
                while true {
                    let done = writerFinished.get()
                    let (counter, mirror, fills) = try env.read { tx in
                        (
                            try tx.value(forKey: bytes("counter"), in: db),
                            try tx.value(forKey: bytes("mirror"), in: db),
                            try tx.count(in: db) - 2
                        )
                    }
                    guard counter == mirror, let counter else { throw TornRead(reads: reads) }
                    let value = try KeyReader(counter).readingUInt64()
                    guard value >= lastSeen, fills == Int(value) else { throw TornRead(reads: reads) }
                    lastSeen = value
                    reads += 1
                    if done { break }
                }
                guard lastSeen == UInt64(commits) else { throw TornRead(reads: reads) }
            }
        }
        try writer.join()
        for reader in readers { try reader.join() }
    }

    @Test("a read-only environment reads but refuses writes")
    func readOnly() throws {
        let test = try TestEnvironment()
        let db = try test.environment.openDatabase(named: "d")
        try test.environment.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }
        try test.environment.close()  // one environment per file per process
        var configuration = Environment.Configuration()
        configuration.readOnly = true
        let reader = try Environment(path: test.path, configuration: configuration)
        let readDB = try reader.openDatabase(named: "d")
        #expect(try reader.read { tx in text(try tx.value(forKey: bytes("k"), in: readDB)) } == "v")
        let error = lmdbError { try reader.write { _ in } }
        #expect(error?.code == .permissionDenied)
    }

    struct TornRead: Error { var reads: Int }
}

extension KeyReader {
    func readingUInt64() throws -> UInt64 {
        var copy = self
        return try copy.read(UInt64.self)
    }
}
