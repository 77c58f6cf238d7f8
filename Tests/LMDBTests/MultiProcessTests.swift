import Foundation
@_spi(Testing) import LMDB
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

    @Test("a read after another process committed sees the commit, though this one kept its transaction open")
    func keptReaderSeesOtherProcessCommit() throws {
        // Kept for an hour: only the check of the latest commit can make the read renew.
        let test = try TestEnvironment(idleReaderLifetime: .seconds(3_600))
        let env = test.environment
        let db = try env.openDatabase(named: "data")
        let writerURL = try BuiltProducts.executable(named: "lmdb-test-writer")
        try env.write { tx in try tx.put(bytes("mine"), forKey: Key("local"), in: db) }
        // Reads in a row: the transaction is kept open, on the latest commit.
        for _ in 0..<3 { #expect(try env.read { tx in try tx.value(forKey: Key("counter"), in: db) } == nil) }
        let result = try runProcess(writerURL, ["write", test.path, "1", "100"])
        #expect(result.status == 0)
        #expect(try env.read { tx in try tx.value(forKey: Key("counter"), in: db) } == Key(UInt64(0)).bytes)
        #expect(try env.read { tx in try tx.count(in: db) } == 4)
    }

    @Test("a transaction kept open after a read pins nothing once it idled: another process's commits reuse pages")
    func keptReaderDoesNotPinAnotherProcessesCommits() throws {
        let test = try TestEnvironment(mapSize: 64 << 20)
        let env = test.environment
        let db = try env.openDatabase(named: "data")
        let writerURL = try BuiltProducts.executable(named: "lmdb-test-writer")
        let size = 64 << 10  // 16 overflow pages a copy
        try env.write { tx in try tx.put([UInt8](repeating: 7, count: size), forKey: Key("large"), in: db) }
        #expect(try env.read { tx in try tx.value(forKey: Key("large"), in: db) }?.count == size)  // kept open
        Thread.sleep(forTimeInterval: 0.5)  // well past `idleReaderLifetime`
        let result = try runProcess(writerURL, ["rewrite", test.path, "200", "\(size)"])
        #expect(result.status == 0, "\(result.standardError)")
        // A pinned snapshot would keep every copy the other process freed: 200 × 16 pages.
        #expect(try env.info().lastPageNumber < 150)  // about 61: a few copies in turn
        #expect(try env.read { tx in try tx.value(forKey: Key("large"), in: db) }?.first == 199)
    }

    @Test("opening while another process commits and grows the file never reports a truncated file")
    func openWhileAnotherProcessGrowsTheFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("env")
            try Environment(path: path).close()
            let writerURL = try BuiltProducts.executable(named: "lmdb-test-writer")
            let child = TestThread {
                let result = try runProcess(writerURL, ["write", path, "2000", "8000"])
                guard result.status == 0, result.standardOutput == "done\n" else {
                    throw ThreadFailure(message: "writer exited \(result.status): \(result.standardError)")
                }
            }
            // Each open checks the file against its meta pages while the writer commits:
            // a size read before a commit and a meta page read after it would look truncated.
            var opens = 0
            var refusals: [String] = []
            while !child.join(within: 0) {
                do { try Environment(path: path).close() } catch { refusals.append("\(error)") }
                opens += 1
            }
            try child.join()
            #expect(refusals.isEmpty, "\(refusals.count) of \(opens) opens refused: \(refusals.first ?? "")")
            #expect(opens > 0)
        }
    }

    @Test("a map that cannot grow (address space exhausted) closes the environment instead of crashing")
    func mapGrowthFailure() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("env")
        let writerURL = try BuiltProducts.executable(named: "lmdb-test-writer")
        let result = try runProcess(writerURL, ["exhaust-address-space", path])
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput == "write failed: ENOMEM\nthen: environment failed\n")
        // What was committed before the failure is intact and opens normally.
        let env = try Environment(path: path)
        let data = try env.openDatabase(named: "data", options: [])
        #expect(try env.read { tx in try tx.count(in: data) } > 0)
    }

    @Test("reader slots left by killed processes are cleared on demand and on open")
    func staleReadersFromKilledProcesses() throws {
        let test = try TestEnvironment()
        let writerURL = try BuiltProducts.executable(named: "lmdb-test-writer")

        let first = try ReaderProcess(writerURL, path: test.path)
        first.kill()
        #expect(try test.environment.clearStaleReaders() == 1)
        #expect(try test.environment.clearStaleReaders() == 0)

        // LMDB resets the reader table when the first process opens the environment, so
        // keep a live reader process while a dead one leaves a slot and this one reopens.
        let survivor = try ReaderProcess(writerURL, path: test.path)
        let victim = try ReaderProcess(writerURL, path: test.path)
        victim.kill()
        try test.environment.close()
        let reopened = try Environment(path: test.path)
        #expect(reopened.staleReadersClearedAtOpen == 1)
        #expect(try reopened.clearStaleReaders() == 0)
        survivor.finish()
        #expect(try reopened.clearStaleReaders() == 0)  // a clean exit leaves no stale slot
    }
}

/// A child process holding a read transaction open until it is told to finish or killed.
private final class ReaderProcess {
    private let process = Process()
    private let input = Pipe()

    init(_ executable: URL, path: String) throws {
        process.executableURL = executable
        process.arguments = ["hold-reader", path]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        // Wait until the child announces its open read transaction.
        var announced = Data()
        while !String(decoding: announced, as: UTF8.self).contains("reading") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            announced.append(chunk)
        }
        #expect(String(decoding: announced, as: UTF8.self).contains("reading"))
    }

    /// Kills the child, leaving its reader slot behind.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Lets the child end its transaction and exit normally.
    func finish() {
        input.fileHandleForWriting.closeFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
