import Foundation
import LMDB
import QuireTestSupport
import Testing

@Suite("A second process")
struct MultiProcessTests {
    @Test("a second process writes (and grows the map) while this one reads consistent snapshots")
    func secondProcessWriter() throws {
        let test = try TestEnvironment(mapSize: 64 << 10)
        let env = test.environment
        let db = try env.openDatabase(named: "data")
        let writerURL = try BuiltProducts.executable(named: "lmdb-test-writer")
        let commits = 200
        let fill = 20_000  // 200 × 20 kB: the writer must grow the map far past ours

        // A snapshot taken before the other process starts.
        let before = try env.read { tx in try tx.count(in: db) }
        #expect(before == 0)

        let child = TestThread {
            let result = try runProcess(writerURL, ["write", test.path, "\(commits)", "\(fill)"])
            guard result.status == 0, result.standardOutput == "done\n" else {
                throw ThreadFailure(message: "writer exited \(result.status): \(result.standardError)")
            }
        }
        // Read while the other process commits: every snapshot must be whole.
        var snapshots = 0
        var last: UInt64 = 0
        while !child.join(within: 0) {
            let observed = try env.read { tx throws -> UInt64? in
                let counter = try tx.value(forKey: Key("counter"), in: db)
                let mirror = try tx.value(forKey: Key("mirror"), in: db)
                #expect(counter == mirror)
                return counter.map { var reader = KeyReader($0); return (try? reader.read(UInt64.self)) ?? 0 }
            }
            if let observed {
                #expect(observed >= last)
                last = observed
            }
            snapshots += 1
        }
        try child.join()

        // The other process grew the file beyond our map; reading adopts the new size.
        let (count, counter) = try env.read { tx throws in
            (try tx.count(in: db), try tx.value(forKey: Key("counter"), in: db))
        }
        #expect(count == commits + 2)
        #expect(counter == Key(UInt64(commits - 1)).bytes)
        #expect(try env.info().mapSize > 64 << 10)
        #expect(snapshots > 0)
        // And this process can still write after the other one grew the map.
        try env.write { tx in try tx.put(bytes("mine"), forKey: Key("local"), in: db) }
        #expect(try env.read { tx in try tx.count(in: db) } == commits + 3)
    }

    @Test("a reader slot left by a killed process is cleared by the reader check")
    func staleReaderFromKilledProcess() throws {
        let test = try TestEnvironment()
        let env = test.environment
        let writerURL = try BuiltProducts.executable(named: "lmdb-test-writer")

        let process = Process()
        process.executableURL = writerURL
        process.arguments = ["hold-reader", test.path]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        // Wait until the child has its read transaction open.
        var announced = Data()
        while !String(decoding: announced, as: UTF8.self).contains("reading") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            announced.append(chunk)
        }
        #expect(String(decoding: announced, as: UTF8.self).contains("reading"))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        #expect(try env.clearStaleReaders() == 1)
        #expect(try env.clearStaleReaders() == 0)
    }
}
