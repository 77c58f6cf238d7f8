import Dispatch
@_spi(Testing) import LMDB
import QuireTestSupport
import Synchronization
import Testing

/// Read transactions are kept open when they end; the next read uses one as it is while
/// nothing was committed since, and renews it onto the latest commit otherwise
/// (`IdleReaders`): either must behave exactly as a new one would.
@Suite("Idle read transactions")
struct IdleReaderTests {
    @Test("reads after the first renew a kept transaction, and each sees the latest commit")
    func renewedReadsSeeLatestCommit() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        for round in 0..<50 {
            try env.write { tx in try tx.put(bytes("value \(round)"), forKey: bytes("k"), in: db) }
            #expect(text(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }) == "value \(round)")
        }
        // One begin for the first read (and one per write); every later read renewed.
        #expect(test.faults.count(of: .renewTransaction) == 49)
    }

    @Test("reads with no commit between them use the kept transaction as it is; the next commit is seen")
    func keptReaderReusedWhileCurrent() throws {
        let test = try TestEnvironment(idleReaderLifetime: .seconds(3_600))
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }
        _ = try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }
        let begins = test.faults.count(of: .beginTransaction)
        let renews = test.faults.count(of: .renewTransaction)
        for _ in 0..<50 {
            #expect(text(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }) == "v")
        }
        #expect(test.faults.count(of: .renewTransaction) == renews)
        #expect(test.faults.count(of: .beginTransaction) == begins)
        // The next commit is seen at once, by a renew.
        try env.write { tx in try tx.put(bytes("w"), forKey: bytes("k"), in: db) }
        #expect(text(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }) == "w")
        #expect(test.faults.count(of: .renewTransaction) == renews + 1)
    }

    @Test("a read that failed leaves no transaction open for the next: it is renewed")
    func failedReadIsNotReusedAsItIs() throws {
        let test = try TestEnvironment(idleReaderLifetime: .seconds(3_600))
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }
        _ = try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }
        test.faults.fail(.get, with: .corrupted)
        #expect(lmdbError { _ = try env.read { tx in try tx.value(forKey: bytes("k"), in: db) } }?.code == .corrupted)
        let renews = test.faults.count(of: .renewTransaction)
        #expect(text(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }) == "v")
        #expect(test.faults.count(of: .renewTransaction) == renews + 1)
    }

    @Test("databases opened while transactions are kept open are read through their own handles")
    func databasesOpenedWhileReadersAreKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("env")
        do {
            let env = try Environment(path: path)
            for name in ["a", "b", "c"] {
                let db = try env.openDatabase(named: name)
                try env.write { tx in try tx.put(bytes(name), forKey: bytes("k"), in: db) }
            }
            try env.close()
        }
        var configuration = Environment.Configuration()
        configuration.idleReaderLifetime = .seconds(3_600)
        let env = try Environment(path: path, configuration: configuration)
        defer { try? env.close() }
        let a = try env.openDatabase(named: "a", options: [])
        // Two transactions kept open, each knowing only the databases open so far.
        try env.read { _ in try env.read { _ in } }
        let b = try env.openDatabase(named: "b", options: [])
        #expect(text(try env.read { tx in try tx.value(forKey: bytes("k"), in: b) }) == "b")
        try env.read { _ in try env.read { _ in } }
        let c = try env.openDatabase(named: "c", options: [])
        for (db, name) in [(a, "a"), (b, "b"), (c, "c")] {
            #expect(text(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }) == name)
        }
    }

    @Test("an environment let go while a reset of its kept readers is due opens again at once")
    func reopenWhileResetIsDue() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = Environment.Configuration()
        configuration.idleReaderLifetime = .zero  // the reset runs as the environment goes
        for round in 0..<30 {
            let env = try Environment(path: directory.appending("env"), configuration: configuration)
            let db = try env.openDatabase(named: "d")
            try env.write { tx in try tx.put(bytes("\(round)"), forKey: bytes("k"), in: db) }
            #expect(text(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }) == "\(round)")
        }  // let go without close: the next round opens the same files
    }

    @Test("a kept transaction pins no snapshot: later writes reuse the pages freed")
    func keptReaderPinsNothing() throws {
        let test = try TestEnvironment(mapSize: 64 << 20, idleReaderLifetime: .seconds(3_600))
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        let large = [UInt8](repeating: 7, count: 64 << 10)  // 16 overflow pages a copy
        try env.write { tx in try tx.put(large, forKey: bytes("k"), in: db) }
        _ = try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }  // now kept, open
        for round in 0..<200 {
            try env.write { tx in try tx.put([UInt8](repeating: UInt8(round), count: 64 << 10), forKey: bytes("k"), in: db) }
        }
        // A pinned snapshot would keep every old copy: 200 × 16 pages. Only this process's
        // next write resets the kept reader here (its lifetime is an hour).
        #expect(try env.info().lastPageNumber < 150)  // about 61: a few copies in turn
        #expect(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }?.first == 199)
    }

    @Test("a renew that fails falls back to beginning a new transaction")
    func failedRenewFallsBack() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }
        _ = try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }
        try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }  // the kept one must renew
        let begins = test.faults.count(of: .beginTransaction)
        test.faults.fail(.renewTransaction, with: .ioError)
        #expect(text(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }) == "v")
        #expect(test.faults.count(of: .beginTransaction) == begins + 1)
        #expect(text(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }) == "v")
    }

    @Test("kept transactions survive map growth and are ended by close")
    func mapGrowthAndClose() throws {
        let test = try TestEnvironment(mapSize: 64 << 10)
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("first"), forKey: bytes("k"), in: db) }
        _ = try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }
        let before = try env.info().mapSize
        for batch in 0..<20 {
            try env.write { tx in
                for item in 0..<50 { try tx.put([UInt8](repeating: 1, count: 2_000), forKey: Key(UInt32(batch), UInt32(item)), in: db) }
            }
            #expect(text(try env.read { tx in try tx.value(forKey: bytes("k"), in: db) }) == "first")
        }
        #expect(try env.info().mapSize > before)
        try env.close()
        #expect(lmdbError { _ = try env.beginRead() }?.code == .environmentClosed)
    }

    @Test("threads reading while one writes each see a whole commit")
    func concurrentReaders() throws {
        let test = try TestEnvironment(mapSize: 16 << 20)
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in
            try tx.put(Key(UInt64(0)).bytes, forKey: bytes("a"), in: db)
            try tx.put(Key(UInt64(0)).bytes, forKey: bytes("b"), in: db)
        }
        let torn = Atomic<Int>(0), failed = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 5) { worker in
            if worker == 0 {
                for round in 1...300 {
                    do {
                        try env.write { tx in
                            try tx.put(Key(UInt64(round)).bytes, forKey: bytes("a"), in: db)
                            try tx.put(Key(UInt64(round)).bytes, forKey: bytes("b"), in: db)
                        }
                    } catch { failed.add(1, ordering: .relaxed) }
                }
                return
            }
            for _ in 0..<2_000 {
                do {
                    let same = try env.read { tx in
                        try tx.value(forKey: bytes("a"), in: db) == tx.value(forKey: bytes("b"), in: db)
                    }
                    if !same { torn.add(1, ordering: .relaxed) }
                } catch { failed.add(1, ordering: .relaxed) }
            }
        }
        #expect(torn.load(ordering: .relaxed) == 0)
        #expect(failed.load(ordering: .relaxed) == 0)
        // Whether a read renewed, began or reused a kept transaction depends on how the
        // threads interleaved; each must have seen a whole commit.
    }
}
