import Foundation
import LMDB
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

/// Compaction: compacting copies, and pruning the change-log history every known replica
/// has acknowledged — never more.
@Suite("Store compaction and history pruning")
struct StoreCompactionTests {
    typealias Spec = MaintenanceSpec
    typealias Folder = StoreSpec.Folder

    @Test("a compacting copy is a complete store: smaller than a grown file, verified, reading the same")
    func compactingCopy() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let built = try Spec.build(replicas[0], replicas[1])
        // Grow the file with text that is then deleted.
        let long = String(repeating: "x", count: 4_000)
        for _ in 0..<40 {
            try replicas[0].write { tx in try tx.insert(long, at: 0, in: built.file.text("content")) }
            try replicas[0].write { tx in try tx.delete(0..<4_000, in: built.file.text("content")) }
        }
        let view = try Spec.view(replicas[0])
        let destination = replicas.directories[0].appending("../copy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let report = try replicas[0].compact(to: destination)
        #expect(report.bytesAfter > 0 && report.bytesAfter < report.bytesBefore)
        #expect(try Store.verify(directory: destination).isHealthy)
        let copy = try Store(directory: destination)
        defer { try? copy.close() }
        #expect(try Spec.view(copy) == view)
        #expect(copy.version == replicas[0].version)
        // The original goes on working.
        try replicas[0].write { tx in try tx.insert(Folder(name: "After"), under: nil) }
        #expect(try replicas[0].verify().isHealthy)
    }

    @Test("pruning what both replicas acknowledged: the store still opens, reads, writes, verifies and exports what the peer lacks")
    func pruneAcknowledged() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let built = try Spec.build(replicas[0], replicas[1])
        let a = replicas[0], b = replicas[1]
        let changesBefore = try a.statistics().changeCount
        let view = try Spec.view(a)

        let report = try a.pruneHistory(acknowledged: HistoryAcknowledgements([b.replica: b.version]))
        #expect(report.unacknowledged.isEmpty)
        #expect(report.prunedChanges == changesBefore, "\(report)")
        #expect(report.keptFrom == a.version)
        #expect(try a.statistics().changeCount == 0)
        let verified = try a.verify()
        #expect(verified.isHealthy, "\(verified)")

        let reopened = try replicas.reopen(0)
        #expect(try Spec.view(reopened) == view)
        #expect(reopened.version == b.version)
        #expect(try reopened.verify().isHealthy)
        // Writes and merges go on; the peer gets exactly what it lacks.
        try reopened.write { tx in try tx.insert(" Again.", at: 0, in: built.file.text("content")) }
        try b.write { tx in try tx.insert(Folder(name: "From b"), under: nil) }
        let forB = try reopened.changes(since: b.version)
        #expect(forB.count == 1)
        try b.apply(forB)
        try reopened.apply(try b.changes(since: reopened.version))
        #expect(try Spec.view(reopened) == Spec.view(b))
        #expect(try reopened.verify().isHealthy)
        // The peer sending its whole history again is idempotent, pruned part included.
        let again = try reopened.apply(try b.changes())
        #expect(again.applied.isEmpty && !again.alreadyKnown.isEmpty)
        #expect(try Spec.view(reopened) == Spec.view(b))
    }

    @Test("a replica asking for pruned history gets an error saying where to get it")
    func prunedHistoryRefused() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        _ = try Spec.build(replicas[0], replicas[1])
        try replicas[0].pruneHistory(acknowledged: HistoryAcknowledgements([replicas[1].replica: replicas[1].version]))
        #expect(throws: PrunedHistoryError.self) { try replicas[0].exportDelta(since: VersionVector()) }
        do {
            _ = try replicas[0].changes(since: VersionVector())
            Issue.record("a pruned history was exported")
        } catch let error as PrunedHistoryError {
            #expect(error.requestedFrom == 0 && error.keptFrom > 0)
            #expect(error.description.contains("full delta exported by a replica that kept its whole history"))
        }
        // Nothing pruned is needed for a peer that has it all.
        #expect(try replicas[0].exportDelta(since: replicas[1].version) == nil)
    }

    @Test("a known replica without an acknowledgement blocks pruning")
    func unacknowledgedBlocks() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        _ = try Spec.build(replicas[0], replicas[1])
        try replicas[2].write { tx in try tx.insert(Folder(name: "c"), under: nil) }
        try StoreSpec.send(replicas[2], to: replicas[0])
        let before = try replicas[0].statistics().changeCount
        let report = try replicas[0].pruneHistory(acknowledged: HistoryAcknowledgements([replicas[1].replica: replicas[1].version]))
        #expect(report.unacknowledged == [replicas[2].replica])
        #expect(report.prunedChanges == 0)
        #expect(report.description.contains("no acknowledgement from replica \(replicas[2].replica)"))
        #expect(try replicas[0].statistics().changeCount == before)
        #expect(try replicas[0].exportDelta(since: VersionVector()) != nil)
    }

    @Test("never prunes what a replica lacks: only whole changes below every acknowledgement")
    func keepsWhatAReplicaLacks() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let built = try Spec.build(replicas[0], replicas[1])
        let a = replicas[0], b = replicas[1]
        let bHad = b.version
        try a.write { tx in try tx.insert(" more", at: 0, in: built.file.text("content")) }
        try a.write { tx in try tx.insert(" and more", at: 0, in: built.file.text("content")) }
        // b acknowledges less than a has of itself, and an older version of its own.
        var acknowledged = bHad
        acknowledged[b.replica] = 1
        let report = try a.pruneHistory(acknowledged: HistoryAcknowledgements([b.replica: acknowledged]))
        #expect(report.keptFrom[a.replica] == bHad[a.replica])
        #expect(report.keptFrom[b.replica] <= 1)
        // What b lacks is still exported.
        let file = try #require(try a.exportDelta(since: bHad))
        try b.importDelta(file)
        #expect(try Spec.view(a) == Spec.view(b))
        #expect(try a.verify().isHealthy)
    }

    @Test("acknowledgements read from a sync folder; an in-place compaction prunes and shrinks, and the store reopens healthy")
    func syncFolderAndInPlace() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // One lineage: replica 2 starts empty and joins through the folder.
        let file = try replicas[0].write { tx in
            let file = try tx.insert(StoreSpec.File(name: "Ode"), under: try tx.insert(Folder(name: "Poems")))
            try tx.insert("The sea", at: 0, in: file.text("content"))
            return file
        }
        for _ in 0..<30 {
            try replicas[0].write { tx in try tx.insert(String(repeating: "y", count: 2_000), at: 0, in: file.text("content")) }
            try replicas[0].write { tx in try tx.delete(0..<2_000, in: file.text("content")) }
        }
        try replicas[0].sync(folder: folder.path)
        try replicas[1].sync(folder: folder.path)
        try replicas[1].write { tx in try tx.insert(" is calm", at: 7, in: file.text("content")) }
        try replicas[1].sync(folder: folder.path)
        try replicas[0].sync(folder: folder.path)
        try replicas[1].sync(folder: folder.path)
        #expect(try Spec.view(replicas[0]) == Spec.view(replicas[1]))
        let acknowledgements = try HistoryAcknowledgements(syncFolder: folder.path)
        #expect(Set(acknowledgements.versions.keys) == [replicas[0].replica, replicas[1].replica])
        #expect(acknowledgements.unacknowledged.isEmpty)

        let view = try Spec.view(replicas[0])
        let version = replicas[0].version
        try replicas[0].close()
        let directory = replicas.directories[0].path
        let report = try Store.compact(directory: directory, acknowledged: acknowledgements)
        #expect(try #require(report.pruning).prunedChanges > 60)
        #expect(report.bytesAfter < report.bytesBefore)
        #expect(Store.dataFileSize(directory) == report.bytesAfter)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["data.mdb", "lock.mdb"])
        let reopened = try replicas.reopen(0)
        #expect(try Spec.view(reopened) == view)
        #expect(reopened.version == version)
        #expect(try reopened.verify().isHealthy)
        // Syncing goes on after the compaction.
        try reopened.write { tx in try tx.insert(Folder(name: "after compaction"), under: nil) }
        try reopened.sync(folder: folder.path)
        try replicas[1].sync(folder: folder.path)
        #expect(try Spec.view(reopened) == Spec.view(replicas[1]))
    }

    @Test("a replica with delta files but no ack in the folder is known and unacknowledged")
    func folderWithoutAck() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let replica = ReplicaID(0xabc)
        try FileManager.default.createDirectory(atPath: folder.appending(replica.description), withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder.appending("\(replica)/0-3.qdelta"), contents: Data([1]))
        let acknowledgements = try HistoryAcknowledgements(syncFolder: folder.path)
        #expect(acknowledgements.unacknowledged == [replica])
        #expect(throws: SyncError.self) { try HistoryAcknowledgements(syncFolder: folder.appending("missing")) }
    }

    @Test("an in-place compaction refuses a store this process has open")
    func inPlaceWhileOpen() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        #expect(throws: LMDBError.self) { try Store.compact(directory: replicas.directories[0].path) }
        #expect(try replicas[0].verify().isHealthy)
    }
}
