import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Sync folder: stale, duplicated, partial and damaged files")
struct SyncFolderRobustnessTests {
    private typealias File = StoreSpec.File

    /// Two replicas of one store and a folder they both synced once.
    private struct Setup {
        let replicas: Replicas
        let folder: TemporaryDirectory
        let file: RecordID
        var a: Store { replicas[0] }
        var b: Store { replicas[1] }

        init() throws {
            replicas = try Replicas(2)
            folder = try TemporaryDirectory()
            let a = replicas[0]
            file = try a.write { tx in try tx.insert(File(name: "Ode", status: "draft", rating: 0)) }
            try a.sync(folder: folder.path)
            try replicas[1].sync(folder: folder.path)
        }

        func close() {
            replicas.close()
            folder.remove()
        }

        /// `a` types `text`, syncs, and returns the delta file it wrote (absolute path).
        func type(_ text: String) throws -> String {
            try a.write { tx in try tx.insert(text, at: try tx.length(of: file.text("content")), in: file.text("content")) }
            let written = try a.sync(folder: folder.path).written
            try #require(written.count == 1)
            return folder.appending(written[0])
        }
    }

    @Test("temporary files, conflict copies, unknown files and folders are ignored with their reasons")
    func ignoredEntries() throws {
        let setup = try Setup()
        defer { setup.close() }
        let (a, b, folder) = (setup.a, setup.b, setup.folder)
        let path = try setup.type("Hello")
        let name = (path as NSString).lastPathComponent
        let stem = String(name.dropLast(".qdelta".count))
        let subfolder = a.replica.description
        let bytes = try SyncSpec.read(path)
        try SyncSpec.write(bytes, to: folder.appending("\(subfolder)/\(stem) (conflicted copy).qdelta"))
        try SyncSpec.write(bytes, to: folder.appending("\(subfolder)/\(stem).sync-conflict-20240101-120000-ABCDEFG.qdelta"))
        try SyncSpec.write(Array(bytes.prefix(7)), to: folder.appending("\(subfolder)/.dat.nosync1234.Ab3xYz"))
        try SyncSpec.write(Array(bytes.prefix(7)), to: folder.appending("\(subfolder)/\(stem).qdelta.tmp"))
        try SyncSpec.write(Array("hello".utf8), to: folder.appending("README.txt"))
        try SyncSpec.write(Array("x".utf8), to: folder.appending("Other Stuff/notes.qdelta"))
        try SyncSpec.write(bytes, to: folder.appending("00000000000000AB/0-1.qdelta"))  // not lowercase

        let report = try b.sync(folder: folder.path)
        #expect(report.imported.map(\.path) == ["\(subfolder)/\(name)"])
        #expect(report.skipped.isEmpty)
        let ignored = Dictionary(uniqueKeysWithValues: report.ignored.map { ($0.path, $0.reason) })
        #expect(ignored["\(subfolder)/\(stem) (conflicted copy).qdelta"] == .conflictCopy(original: name))
        #expect(ignored["\(subfolder)/\(stem).sync-conflict-20240101-120000-ABCDEFG.qdelta"] == .conflictCopy(original: name))
        #expect(ignored["\(subfolder)/.dat.nosync1234.Ab3xYz"] == .temporaryFile)
        #expect(ignored["\(subfolder)/\(stem).qdelta.tmp"] == .temporaryFile)
        #expect(ignored["README.txt"] == .unrecognizedName)
        #expect(ignored["Other Stuff"] == .unrecognizedName)
        #expect(ignored["00000000000000AB"] == .unrecognizedName)
        #expect(try b.read { tx in try tx.string(of: setup.file.text("content")) } == "Hello")
        // Nothing was deleted but what the writer owns and prunes.
        #expect(FileManager.default.fileExists(atPath: folder.appending("README.txt")))
        #expect(FileManager.default.fileExists(atPath: folder.appending("\(subfolder)/\(stem) (conflicted copy).qdelta")))
    }

    @Test("a truncated file and a file with a flipped byte are skipped with a reason and change nothing; the repaired file imports")
    func damagedFiles() throws {
        let setup = try Setup()
        defer { setup.close() }
        let (a, b, folder) = (setup.a, setup.b, setup.folder)
        let path = try setup.type("Hello, world")
        let relative = String(path.dropFirst(folder.path.count + 1))
        let good = try SyncSpec.read(path)
        let before = try StoreSpec.dump(b)

        // Still syncing: only part of the file is there.
        try SyncSpec.write(Array(good.prefix(good.count / 2)), to: path)
        var report = try b.sync(folder: folder.path)
        #expect(report.imported.isEmpty)
        #expect(report.skipped.map(\.path) == [relative])
        guard case .rejected(let truncated) = try #require(report.skipped.first).reason else {
            Issue.record("expected a rejected file, got \(report.skipped)")
            return
        }
        #expect([.truncated, .notADeltaFile].contains(truncated) || { if case .checksumMismatch = truncated { true } else { false } }())
        #expect(try StoreSpec.dump(b) == before)

        // Damaged in transit: one byte flipped.
        for index in [0, 2, good.count / 2, good.count - 1] {
            var flipped = good
            flipped[index] ^= 0x20
            try SyncSpec.write(flipped, to: path)
            report = try b.sync(folder: folder.path)
            #expect(report.imported.isEmpty, "byte \(index)")
            #expect(report.skipped.count == 1, "byte \(index)")
            if case .rejected = report.skipped.first?.reason {} else { Issue.record("byte \(index): \(report.skipped)") }
            #expect(try StoreSpec.dump(b) == before, "byte \(index)")
        }
        // The whole file arrives: it imports.
        try SyncSpec.write(good, to: path)
        report = try b.sync(folder: folder.path)
        #expect(report.imported.map(\.path) == [relative] && report.skipped.isEmpty)
        #expect(try StoreSpec.dump(b) == StoreSpec.dump(a))
    }

    @Test("a delta name that is a symbolic link to /dev/zero, a FIFO or a directory is skipped before any byte is read; a link to a real delta imports")
    func nonRegularFiles() throws {
        let setup = try Setup()
        defer { setup.close() }
        let (a, b, folder) = (setup.a, setup.b, setup.folder)
        let path = try setup.type("Hello")
        let relative = String(path.dropFirst(folder.path.count + 1))
        let good = try SyncSpec.read(path)
        let before = try StoreSpec.dump(b)
        let kinds: [(String, (String) throws -> Void)] = [
            ("a character device", { try FileManager.default.createSymbolicLink(atPath: $0, withDestinationPath: "/dev/zero") }),
            ("a FIFO (named pipe)", { #expect(mkfifo($0, 0o644) == 0) }),
            ("a directory", { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false) }),
        ]
        for (kind, make) in kinds {
            try FileManager.default.removeItem(atPath: path)
            try make(path)
            let report = try b.sync(folder: folder.path)
            #expect(report.imported.isEmpty, "\(kind)")
            #expect(report.skipped.map(\.path) == [relative], "\(kind)")
            guard case .unreadable(let problem) = report.skipped.first?.reason else {
                Issue.record("\(kind): expected an unreadable file, got \(report.skipped)")
                continue
            }
            #expect(problem.contains("it is \(kind), not a regular file"), "\(problem)")
            #expect(try StoreSpec.dump(b) == before, "\(kind)")
        }
        // A symbolic link to a regular file is read as that file.
        try FileManager.default.removeItem(atPath: path)
        let outside = try TemporaryDirectory()
        defer { outside.remove() }
        let elsewhere = outside.appending("elsewhere.bin")
        try SyncSpec.write(good, to: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
        let report = try b.sync(folder: folder.path)
        #expect(report.imported.map(\.path) == [relative], "\(report.skipped)")
        #expect(try StoreSpec.dump(b) == StoreSpec.dump(a))
    }

    @Test("a file under another replica's name or range is skipped as misnamed")
    func misnamedFiles() throws {
        let setup = try Setup()
        defer { setup.close() }
        let (b, folder) = (setup.b, setup.folder)
        let path = try setup.type("abc")
        let bytes = try SyncSpec.read(path)
        try FileManager.default.removeItem(atPath: path)
        // a's file in a folder of a replica that does not exist, and under a wrong range.
        try SyncSpec.write(bytes, to: folder.appending("00000000000000ff/0-0.qdelta"))
        let name = (path as NSString).lastPathComponent
        let first = SyncSpec.first(of: name)
        try SyncSpec.write(bytes, to: folder.appending("\(setup.a.replica)/\(first)-\(first + 5).qdelta"))
        let before = try StoreSpec.dump(b)
        let report = try b.sync(folder: folder.path)
        #expect(report.imported.isEmpty)
        #expect(report.skipped.count == 2)
        #expect(report.skipped.allSatisfy { if case .misnamed = $0.reason { true } else { false } }, "\(report.skipped)")
        #expect(try StoreSpec.dump(b) == before)
    }

    @Test("files arriving out of order, one at a time, with syncs in between: the reader catches up")
    func outOfOrder() throws {
        var random = SplitMix64(seed: 99)
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let outbox = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        defer { outbox.remove(); shared.remove() }
        let (a, b) = (replicas[0], replicas[1])
        // a writes one file per sync into a folder of its own (nobody acknowledges, so
        // nothing is pruned) …
        for _ in 0..<12 {
            for _ in 0..<Int(1 + random.next() % 3) { try SyncSpec.randomEdit(a, &random) }
            try a.sync(folder: outbox.path)
        }
        let names = try SyncSpec.deltaFiles(outbox.path, of: a.replica)
        #expect(names.count == 12)
        // … which a file-sync engine delivers in any order, one now and then, sometimes twice.
        var arrivals = names.shuffled(using: &random)
        arrivals.insert(arrivals[3], at: 7)
        var skippedOnce = false
        for name in arrivals {
            let relative = "\(a.replica)/\(name)"
            try SyncSpec.write(try SyncSpec.read(outbox.appending(relative)), to: shared.appending(relative))
            let report: SyncReport
            do {
                report = try b.sync(folder: shared.path)
            } catch SyncError.notJoined(_, let problems) {
                // b is still empty: it says it has not joined yet, and why.
                #expect(b.version[a.replica] == 0 && !problems.isEmpty)
                skippedOnce = true
                continue
            }
            skippedOnce = skippedOnce || !report.skipped.isEmpty
            for skipped in report.skipped {
                // Not yet usable: a compact file from a replica b has not met, or changes
                // waiting for earlier ones. Never damage.
                switch skipped.reason {
                case .rejected(.unknownSender), .waiting: break
                default: Issue.record("unexpected: \(skipped)")
                }
            }
        }
        #expect(skippedOnce)
        #expect(b.version == a.version)
        #expect(try StoreSpec.dump(b) == StoreSpec.dump(a))
    }

    @Test("an old file put back after pruning and duplicated files change nothing")
    func staleFiles() throws {
        let setup = try Setup()
        defer { setup.close() }
        let (a, b, folder) = (setup.a, setup.b, setup.folder)
        let path = try setup.type("Hello")
        let old = try SyncSpec.read(path)
        try b.sync(folder: folder.path)
        let pruning = try a.sync(folder: folder.path)
        // (both files went into the base when `a` wrote this one: b had acknowledged them)
        #expect(pruning.pruned.last == String(path.dropFirst(folder.path.count + 1)))
        #expect(try SyncSpec.deltaFiles(folder.path, of: a.replica) == [(pruning.base! as NSString).lastPathComponent])
        // The engine restores the deleted file, and a copy of it appears under a second name.
        try SyncSpec.write(old, to: path)
        try SyncSpec.write(old, to: path.replacingOccurrences(of: ".qdelta", with: " (1).qdelta"))
        let before = try StoreSpec.dump(b)
        let report = try b.sync(folder: folder.path)
        #expect(report.imported.isEmpty && report.skipped.isEmpty)
        #expect(try StoreSpec.dump(b) == before)
        // Its writer prunes it again and does not write it anew.
        let again = try a.sync(folder: folder.path)
        #expect(again.written.isEmpty)
        #expect(again.pruned == [String(path.dropFirst(folder.path.count + 1))])
    }
}
