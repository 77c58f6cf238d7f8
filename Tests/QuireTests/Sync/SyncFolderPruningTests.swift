import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Sync folder: acknowledgements and pruning")
struct SyncFolderPruningTests {
    private typealias File = StoreSpec.File

    private static func edit(_ store: Store, _ text: String) throws {
        try store.write { tx in
            let file = try tx.insert(File(name: text, status: "draft", rating: 0))
            try tx.insert(text, at: 0, in: file.text("content"))
        }
    }

    @Test("once every replica has acknowledged them, the writer compacts its own files into one base file from counter 0, never another's")
    func pruneAfterAllAcknowledged() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b, c) = (replicas[0], replicas[1], replicas[2])
        func files(_ store: Store) throws -> [String] {
            try SyncSpec.deltaFiles(folder.path, of: store.replica).map { "\(store.replica)/\($0)" }
        }
        try Self.edit(a, "one")
        // Alone in the folder: nobody else is known, nothing is pruned.
        try a.sync(folder: folder.path)
        #expect(try a.sync(folder: folder.path).pruned.isEmpty)
        let first = try files(a)
        #expect(first.count == 1)
        try b.sync(folder: folder.path)
        try c.sync(folder: folder.path)
        // One acknowledged file from counter 0 is a base file already.
        let kept = try a.sync(folder: folder.path)
        #expect(kept.pruned.isEmpty && kept.base == nil)
        #expect(try files(a) == first)

        try Self.edit(a, "two")
        try a.sync(folder: folder.path)
        let second = try files(a)
        #expect(second.count == 2)
        try b.sync(folder: folder.path)
        #expect(try files(a) == second)  // b never deletes a's files
        #expect(try a.sync(folder: folder.path).pruned.isEmpty)  // c has not acknowledged it
        try c.sync(folder: folder.path)
        let compacted = try a.sync(folder: folder.path)
        #expect(compacted.pruned == second)
        let base = try #require(compacted.base)
        #expect(base.hasSuffix("/0-\(a.version[a.replica] - 1).qdelta"))
        #expect(try files(a) == [base])

        try Self.edit(b, "three")
        let third = try b.sync(folder: folder.path).written
        try a.sync(folder: folder.path)
        try c.sync(folder: folder.path)
        #expect(try b.sync(folder: folder.path).pruned.isEmpty)
        // The base files and acknowledgements stay; every replica has everything.
        #expect(try files(b) == third)
        for store in [a, b, c] {
            #expect(try SyncSpec.entries(folder.path, store.replica.description)
                == (try files(store)).map { String($0.dropFirst(17)) } + ["ack"])
            #expect(try StoreSpec.dump(store) == StoreSpec.dump(a))
        }
        // The writer does not write pruned changes again.
        #expect(try a.sync(folder: folder.path).written.isEmpty)
    }

    @Test("a replica that was offline keeps the writer's files until it has synced, then converges")
    func offlineReplicaBlocksPruning() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b, c) = (replicas[0], replicas[1], replicas[2])
        try Self.edit(a, "base")
        for store in [a, b, c, a] { try store.sync(folder: folder.path) }
        // c goes offline for many rounds of a and b.
        for round in 0..<5 {
            try Self.edit(a, "a\(round)")
            try Self.edit(b, "b\(round)")
            try a.sync(folder: folder.path)
            try b.sync(folder: folder.path)
        }
        try Self.edit(c, "offline")
        #expect(try SyncSpec.deltaFiles(folder.path, of: a.replica).count == 6)
        #expect(try SyncSpec.deltaFiles(folder.path, of: b.replica).count == 5)
        let back = try c.sync(folder: folder.path)
        #expect(back.imported.count == 10 && back.skipped.isEmpty)
        for store in [a, b, a] { try store.sync(folder: folder.path) }
        try c.sync(folder: folder.path)
        for store in [a, b, c] {
            let files = try SyncSpec.deltaFiles(folder.path, of: store.replica)
            #expect(files == ["0-\(store.version[store.replica] - 1).qdelta"])
        }
        for store in [b, c] { #expect(try StoreSpec.dump(store) == StoreSpec.dump(a)) }
    }

    @Test("a new, empty store gets everything from files not yet pruned")
    func joinBeforePruning() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b, newcomer) = (replicas[0], replicas[1], replicas[2])
        try Self.edit(a, "one")
        try a.sync(folder: folder.path)
        try Self.edit(a, "two")
        try a.sync(folder: folder.path)
        try b.sync(folder: folder.path)
        try Self.edit(b, "three")
        try b.sync(folder: folder.path)
        // a has not seen b's acknowledgement yet: its files are all there.
        #expect(try SyncSpec.deltaFiles(folder.path, of: a.replica).count == 2)
        let report = try newcomer.sync(folder: folder.path)
        #expect(report.skipped.isEmpty)
        #expect(newcomer.storeID == a.storeID)
        #expect(newcomer.version == b.version)
        #expect(try StoreSpec.dump(newcomer) == StoreSpec.dump(b))
    }

    @Test("a replica joining after pruning gets everything from the base files, through the folder alone")
    func joinAfterPruning() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b, late) = (replicas[0], replicas[1], replicas[2])
        try Self.edit(a, "one")
        for store in [a, b, a] { try store.sync(folder: folder.path) }
        try Self.edit(a, "two")
        try Self.edit(b, "bee")
        for store in [a, b, a, b] { try store.sync(folder: folder.path) }
        // Both have pruned: each keeps one base file; then a writes one more file.
        #expect(try SyncSpec.deltaFiles(folder.path, of: a.replica).count == 1)
        try Self.edit(a, "three")
        try a.sync(folder: folder.path)
        #expect(try SyncSpec.deltaFiles(folder.path, of: a.replica).count == 2)

        let joined = try late.sync(folder: folder.path)
        #expect(joined.skipped.isEmpty)
        #expect(late.storeID == a.storeID)
        #expect(late.version == a.version)
        #expect(try StoreSpec.dump(late) == StoreSpec.dump(a))
    }

    @Test("a store whose history compaction pruned makes its base file from its files in the folder; a late joiner gets everything")
    func baseAfterHistoryPruning() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b, late) = (replicas[0], replicas[1], replicas[2])
        try Self.edit(a, "one")
        try a.sync(folder: folder.path)
        try Self.edit(a, "two")
        for store in [a, b] { try store.sync(folder: folder.path) }
        let pruned = try a.pruneHistory(acknowledged: HistoryAcknowledgements(syncFolder: folder.path))
        #expect(pruned.prunedChanges > 0)
        #expect(throws: PrunedHistoryError.self) { try a.exportDelta() }

        let report = try a.sync(folder: folder.path)
        #expect(report.pruned.count == 2)
        #expect(report.base == "\(a.replica)/0-\(a.version[a.replica] - 1).qdelta")
        let joined = try late.sync(folder: folder.path)
        #expect(joined.skipped.isEmpty, "\(joined.skipped)")
        #expect(late.version == a.version)
        #expect(try StoreSpec.dump(late) == StoreSpec.dump(b))  // a's own dump needs its pruned history
    }

    @Test("an empty store that can import nothing says it has not joined and writes nothing; the writer's next sync writes the base it needs")
    func notJoinedUntilBase() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b, late) = (replicas[0], replicas[1], replicas[2])
        try Self.edit(a, "one")
        for store in [a, b] { try store.sync(folder: folder.path) }
        try Self.edit(a, "two")
        try a.sync(folder: folder.path)
        // A folder pruned the old way: a's first file deleted, no base file.
        let files = try SyncSpec.deltaFiles(folder.path, of: a.replica)
        #expect(files.count == 2)
        try FileManager.default.removeItem(atPath: folder.appending("\(a.replica)/\(files[0])"))

        let before = try StoreSpec.dump(late)
        #expect {
            try late.sync(folder: folder.path)
        } throws: { error in
            guard case .notJoined(_, let problems) = error as? SyncError else { return false }
            return problems.count == 1 && problems[0].contains(files[1]) && "\(error)".contains("has not joined")
                && "\(error)".contains("quire import")
        }
        #expect(try StoreSpec.dump(late) == before)
        #expect(try SyncSpec.entries(folder.path, late.replica.description).isEmpty)  // no ack to hold back pruning

        // a's files no longer start at counter 0: its next sync writes the base.
        let repaired = try a.sync(folder: folder.path)
        #expect(repaired.base == "\(a.replica)/0-\(SyncSpec.first(of: files[1]) - 1).qdelta")
        let joined = try late.sync(folder: folder.path)
        #expect(joined.skipped.isEmpty)
        #expect(try StoreSpec.dump(late) == StoreSpec.dump(a))
    }

    @Test("empty stores set up to sync before anyone writes do not fail; the first to write gives the others its store")
    func emptyStoresBeforeFirstWrite() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b, c) = (replicas[0], replicas[1], replicas[2])
        for store in [a, b, c, a] {
            let report = try store.sync(folder: folder.path)
            #expect(report.skipped.isEmpty, "\(report.skipped)")
        }
        try Self.edit(b, "first")
        for store in [b, a, c] { try store.sync(folder: folder.path) }
        for store in [a, c] {
            #expect(store.storeID == b.storeID)
            #expect(try StoreSpec.dump(store) == StoreSpec.dump(b))
        }
    }

    @Test("the acknowledgement of another store's replica is reported and does not hold back pruning")
    func foreignAcknowledgement() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b, stranger) = (replicas[0], replicas[1], replicas[2])
        try Self.edit(a, "one")
        try a.sync(folder: folder.path)
        try Self.edit(a, "two")
        for store in [a, b] { try store.sync(folder: folder.path) }
        // A store of its own lineage syncs through the same folder.
        try Self.edit(stranger, "elsewhere")
        try stranger.sync(folder: folder.path)
        #expect(stranger.storeID != a.storeID)
        let report = try a.sync(folder: folder.path)
        #expect(report.pruned.count == 2)
        #expect(report.skipped.contains {
            $0.path == "\(stranger.replica)/ack" && $0.reason == .foreignAcknowledgement(store: stranger.storeID, this: a.storeID)
        })
    }

    @Test("an unreadable acknowledgement is reported and keeps the writer's files")
    func malformedAcknowledgement() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b) = (replicas[0], replicas[1])
        try Self.edit(a, "one")
        try a.sync(folder: folder.path)
        try Self.edit(a, "two")
        for store in [a, b] { try store.sync(folder: folder.path) }
        let ack = folder.appending("\(b.replica)/ack")
        let good = try SyncSpec.read(ack)
        for damaged in [Array(good.dropLast()), Array("quire-ack 2\n".utf8), good.map { $0 == 0x31 ? 0x2B : $0 }, [UInt8]()] {
            try SyncSpec.write(damaged, to: ack)
            let report = try a.sync(folder: folder.path)
            #expect(report.pruned.isEmpty)
            #expect(report.skipped.map(\.path) == ["\(b.replica)/ack"])
            if case .unreadable = report.skipped.first?.reason {} else { Issue.record("\(report.skipped)") }
        }
        try SyncSpec.write(good, to: ack)
        #expect(try a.sync(folder: folder.path).pruned.count == 2)
    }

    @Test("failures of this replica's side of the folder throw errors naming the path and what to do")
    func errors() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b) = (replicas[0], replicas[1])
        try Self.edit(a, "one")

        // A folder that cannot be created: its parent is a file.
        try SyncSpec.write(Array("x".utf8), to: folder.appending("file"))
        #expect {
            try a.sync(folder: folder.appending("file/sync"))
        } throws: { error in
            guard case .folderUnavailable(let path, _) = error as? SyncError else { return false }
            return path.hasSuffix("file/sync/\(a.replica)") && "\(error)".contains("writable")
        }
        // The store's own directory, or a folder inside it.
        for path in [a.directory, a.directory + "/sync", (a.directory as NSString).deletingLastPathComponent] {
            #expect(throws: SyncError.self) { try a.sync(folder: path) }
        }
        // A file that cannot be written: the acknowledgement's name is taken by a folder.
        try SyncSpec.write(Array("x".utf8), to: folder.appending("\(a.replica)/ack/blocker"))
        #expect {
            try a.sync(folder: folder.path)
        } throws: { error in
            guard case .writeFailed(let path, _) = error as? SyncError else { return false }
            return path == folder.appending("\(a.replica)/ack")
        }
        try FileManager.default.removeItem(atPath: folder.appending("\(a.replica)/ack"))
        // The delta file went out before the failure; the next sync only acknowledges.
        let report = try a.sync(folder: folder.path)
        #expect(report.written.isEmpty)
        try b.sync(folder: folder.path)
        #expect(try StoreSpec.dump(b) == StoreSpec.dump(a))

        // The folder claims more of this replica than the store has (a restored backup).
        let ahead = folder.appending("\(b.replica)/0-99.qdelta")
        try SyncSpec.write(Array("x".utf8), to: ahead)
        #expect(throws: SyncError.folderAhead(replica: b.replica, inFolder: 100, inStore: 0)) { try b.sync(folder: folder.path) }
    }
}
