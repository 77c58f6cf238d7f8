import LMDB
import QuireTestSupport
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

    @Test("owned reads of two environments ended out of order leave neither marked as held by the thread")
    func twoEnvironmentsOutOfOrder() throws {
        let first = try TestEnvironment()
        let second = try TestEnvironment()
        let (envA, envB) = (first.environment, second.environment)
        let db = try envB.openDatabase(named: "d")
        do {
            let a = try envA.beginRead()
            let b = try envB.beginRead()
            _ = consume a  // the first one ends first
            try envB.read { _ in }  // B's holding changes while A's is gone
            try envB.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }  // and B writes
            _ = consume b
        }
        // The thread holds nothing now: closing (which refuses inside a transaction) works
        // for both, and a write of B is not taken for a nested one.
        try envB.write { tx in try tx.put(bytes("w"), forKey: bytes("k"), in: db) }
        try envA.close()
        try envB.close()
    }

    @Test("an owned read keeps its environment open after every other reference is gone, and closing follows its end")
    func keepsEnvironmentAlive() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("env")
        var environment: Environment? = try Environment(path: path)
        let db = try environment!.openDatabase(named: "d")
        try environment!.write { tx in try tx.put(bytes("kept"), forKey: bytes("k"), in: db) }
        let snapshot = try environment!.beginRead()
        environment = nil  // the read's reference is the last
        #expect(text(try snapshot.value(forKey: bytes("k"), in: db)) == "kept", "LMDB is still open under the read")
        _ = consume snapshot  // now the environment goes, and closes
        let reopened = try Environment(path: path)  // a live one would refuse: .alreadyOpen
        let again = try reopened.openDatabase(named: "d")
        #expect(text(try reopened.read { tx in try tx.value(forKey: bytes("k"), in: again) }) == "kept")
        try reopened.close()
    }
}

