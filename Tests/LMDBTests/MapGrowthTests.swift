import Foundation
import LMDB
import QuireTestSupport
import Synchronization
import Testing

@Suite("Map growth")
struct MapGrowthTests {
    @Test("writes grow a 64 KiB map to hold 100 MB, invisibly to the caller")
    func growFrom64KiB() throws {
        let test = try TestEnvironment(mapSize: 64 << 10)
        let env = test.environment
        let db = try env.openDatabase(named: "bulk")
        #expect(try env.info().mapSize == 64 << 10)

        let valueSize = 4_000
        let perTransaction = 250  // ~1 MB per commit
        let transactions = 100
        var bodyRuns = 0
        for batch in 0..<transactions {
            try env.write { tx in
                bodyRuns += 1
                for item in 0..<perTransaction {
                    let value = [UInt8](repeating: UInt8(truncatingIfNeeded: batch &+ item), count: valueSize)
                    try tx.put(value, forKey: Key(UInt32(batch), UInt32(item)), in: db)
                }
            }
        }
        let info = try env.info()
        #expect(info.mapSize >= 100_000_000)
        #expect(bodyRuns > transactions)  // some bodies ran again after the map grew
        try env.read { tx in
            #expect(try tx.count(in: db) == transactions * perTransaction)
            let sample = try tx.value(forKey: Key(UInt32(77), UInt32(5)), in: db)
            #expect(sample == [UInt8](repeating: 82, count: valueSize))
        }
    }

    @Test("a body that swallows the map-full error is still rerun, not committed half-done")
    func swallowedMapFull() throws {
        let test = try TestEnvironment(mapSize: 64 << 10)
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        var runs = 0
        try env.write { tx in
            runs += 1
            for index in UInt32(0)..<400 {
                do {
                    try tx.put([UInt8](repeating: 1, count: 1_000), forKey: Key(index), in: db)
                } catch {
                    // A careless body: ignores the failure and carries on.
                }
            }
        }
        #expect(runs >= 2)
        #expect(try env.read { tx in try tx.count(in: db) } == 400)
    }

    @Test("past maximumMapSize the write fails with MDB_MAP_FULL and earlier data is intact")
    func maximumReached() throws {
        let test = try TestEnvironment(mapSize: 64 << 10, maximumMapSize: 1 << 20)
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("safe"), forKey: bytes("first"), in: db) }
        let error = lmdbError {
            try env.write { tx in
                for index in UInt32(0)..<2_000 {
                    try tx.put([UInt8](repeating: 2, count: 1_000), forKey: Key(index), in: db)
                }
            }
        }
        #expect(error?.code == .mapFull)
        #expect(error?.description.contains("maximumMapSize") == true)
        #expect(try env.info().mapSize == 1 << 20)
        let entries = try env.read { tx in try tx.entries(in: db) }
        #expect(entries == [Entry(key: bytes("first"), value: bytes("safe"))])
    }

    @Test("the map grows only after readers on other threads have finished")
    func growthWaitsForReaders() throws {
        let test = try TestEnvironment(mapSize: 64 << 10)
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put(bytes("v"), forKey: bytes("k"), in: db) }
        let initialSize = try env.info().mapSize

        let readerInside = DispatchSemaphore(value: 0)
        let releaseReader = DispatchSemaphore(value: 0)
        let mapSizeSeenByReader = Locked<[Int]>([])
        let reader = TestThread {
            try env.read { tx in
                readerInside.signal()
                releaseReader.wait()
                // Still the original mapping: the writer could not resize under us.
                let size = try env.info().mapSize
                mapSizeSeenByReader.update { $0.append(size) }
                _ = try tx.value(forKey: bytes("k"), in: db)
            }
        }
        readerInside.wait()

        let hitMapFull = DispatchSemaphore(value: 0)
        let attempts = Locked(0)
        let writer = TestThread {
            try env.write { tx in
                if attempts.update({ count in count += 1; return count }) == 1 {
                    do {
                        for index in UInt32(0)..<400 {
                            try tx.put([UInt8](repeating: 3, count: 1_000), forKey: Key(index), in: db)
                        }
                    } catch {
                        hitMapFull.signal()
                        throw error
                    }
                } else {
                    for index in UInt32(0)..<400 {
                        try tx.put([UInt8](repeating: 3, count: 1_000), forKey: Key(index), in: db)
                    }
                }
            }
        }
        hitMapFull.wait()
        // The writer now waits for the reader; it must not finish while the reader is open.
        #expect(writer.join(within: 0.3) == false)
        #expect(attempts.get() == 1)
        releaseReader.signal()
        try reader.join()
        try writer.join()
        #expect(mapSizeSeenByReader.get() == [initialSize])
        #expect(try env.info().mapSize > initialSize)
        #expect(attempts.get() >= 2)
    }

    @Test("a write needing growth while its own thread holds a reader throws instead of hanging")
    func growthBlockedBySameThread() throws {
        let test = try TestEnvironment(mapSize: 64 << 10)
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        let error = lmdbError {
            try env.read { _ in
                try env.write { tx in
                    for index in UInt32(0)..<400 {
                        try tx.put([UInt8](repeating: 4, count: 1_000), forKey: Key(index), in: db)
                    }
                }
            }
        }
        #expect(error?.code == .growthBlocked)
        #expect(try env.read { tx in try tx.count(in: db) } == 0)
    }

    @Test("readers on several threads keep reading, never mid-resize, while a writer grows the map many times")
    func readersThroughManyGrowths() throws {
        let test = try TestEnvironment(mapSize: 64 << 10)
        let env = test.environment
        let db = try env.openDatabase(named: "d")
        try env.write { tx in try tx.put([UInt8](repeating: 0, count: 64), forKey: bytes("probe"), in: db) }
        let initialSize = try env.info().mapSize

        let writing = Atomic<Bool>(true)
        let reads = Atomic<Int>(0)
        let readers = (0..<3).map { _ in
            TestThread {
                while writing.load(ordering: .relaxed) {
                    // Each read sees one whole commit: the probe's 64 bytes are all one value.
                    let probe = try env.read { tx in try tx.value(forKey: bytes("probe"), in: db) }
                    guard let probe, probe.count == 64, Set(probe).count == 1 else {
                        throw ThreadFailure(message: "a read saw \(String(describing: probe))")
                    }
                    reads.wrappingAdd(1, ordering: .relaxed)
                }
            }
        }
        defer { writing.store(false, ordering: .relaxed) }
        for batch in 0..<60 {
            try env.write { tx in
                for item in 0..<64 {
                    try tx.put([UInt8](repeating: 7, count: 4_000), forKey: Key(UInt32(batch), UInt32(item)), in: db)
                }
                try tx.put([UInt8](repeating: UInt8(batch + 1), count: 64), forKey: bytes("probe"), in: db)
            }
        }
        writing.store(false, ordering: .relaxed)
        for reader in readers { try reader.join() }
        #expect(try env.info().mapSize >= 16 * initialSize)  // it grew several times
        #expect(reads.load(ordering: .relaxed) > 0)
        #expect(try env.read { tx in try tx.value(forKey: bytes("probe"), in: db) } == [UInt8](repeating: 60, count: 64))
    }
}

