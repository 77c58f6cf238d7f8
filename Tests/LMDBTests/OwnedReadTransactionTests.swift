import LMDB
import Testing

/// ``Environment/beginRead()``: a read transaction its caller owns, for a snapshot that
/// outlives one closure (the groundwork for store reads on LMDB snapshots, issue 12).
@Suite("Owned read transactions")
struct OwnedReadTransactionTests {
    @Test("an owned read keeps its snapshot while a write commits, and ends when let go")
    func snapshotAndEnd() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("old"), forKey: bytes("k"), in: db) }
        do {
            let snapshot = try env.beginRead()
            try env.write { tx in try tx.put(bytes("new"), forKey: bytes("k"), in: db) }
            #expect(text(try snapshot.value(forKey: bytes("k"), in: db)) == "old")
            // A transaction held by this thread makes closing refuse (the gate knows it).
            #expect(lmdbError { try env.close() } != nil)
            _ = consume snapshot
        }
        #expect(text(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }) == "new")
        try env.close()  // throws if the owned transaction had not left the gate
    }

    @Test("beginRead on a closed environment throws")
    func closed() throws {
        let test = try TestEnvironment()
        try test.environment.close()
        #expect(lmdbError { _ = try test.environment.beginRead() }?.code == .environmentClosed)
    }
}
