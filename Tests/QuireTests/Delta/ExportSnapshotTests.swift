import Dispatch
import Foundation
import LMDB
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

/// Exports and `changes(since:)` read an LMDB snapshot, as `store.read` does: they never
/// wait for a writer, and they give what the writer's state would give.
@Suite("Delta: exports on LMDB snapshots")
struct ExportSnapshotTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    /// Two replicas' work merged into the first: records with several fields, typing, a
    /// rename, and changes (with their names) of the second replica.
    static func mergedStore(_ replicas: Replicas) throws -> (folder: RecordID, file: RecordID) {
        let (a, b) = (replicas[0], replicas[1])
        let (folder, file) = try a.write { tx in
            let folder = try tx.insert(Folder(name: "Drafts"))
            let file = try tx.insert(File(name: "Ode", status: "ready", rating: 4), under: folder)
            return (folder, file)
        }
        for (offset, letter) in "The sea".enumerated() {
            try a.write { tx in try tx.insert(String(letter), at: offset, in: file.text("content")) }
        }
        try b.importDelta(try #require(try a.exportDelta()))
        try b.write { tx in
            _ = try tx.insert(File(name: "Hymn", status: "idea"), under: folder)
            try tx.update(file, as: File.self) { $0.rating = 5 }
        }
        try a.importDelta(try #require(try b.exportDelta()))
        try a.write { tx in try tx.update(folder, as: Folder.self) { $0.name = "Poems" } }
        return (folder, file)
    }

    @Test("an export and changes(since:) finish while a write body on another thread holds the writer, and see the last commit")
    func exportDuringWrite() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let store = replicas[0]
        let (folder, _) = try Self.mergedStore(replicas)
        let before = try #require(try store.exportDelta())
        let changesBefore = try store.changes()

        let inWrite = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? store.write { tx in
                _ = try tx.insert(File(name: "Elegy"), under: folder)
                inWrite.signal()
                release.wait()
            }
            written.signal()
        }
        inWrite.wait()
        let exported = DispatchSemaphore(value: 0)
        let seen = Locked<([UInt8]?, [Change]?)>((nil, nil))
        Thread.detachNewThread {
            seen.set((try? store.exportDelta(), try? store.changes()))
            exported.signal()
        }
        let finished = exported.wait(timeout: .now() + .seconds(20)) == .success
        release.signal()
        written.wait()
        if !finished { exported.wait() }
        #expect(finished, "the export waited for the write body")
        #expect(seen.get().0 == before, "the export saw the last commit, not the write in progress")
        #expect(seen.get().1 == changesBefore)
        #expect(try store.changes().count == changesBefore.count + 1)
    }

    @Test("an export from a snapshot is byte for byte the writer state's, also after reopening (names read from LMDB)")
    func snapshotExportMatchesState() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        _ = try Self.mergedStore(replicas)
        for reopening in [false, true] {
            let store = reopening ? try replicas.reopen(0) : replicas[0]
            let fromState = try store.withCurrentState { state in
                state.deltaFile(of: try state.storedUnits(since: VersionVector())).encoded()
            }
            let version = try store.read { $0.version }
            var partial = version
            partial[version.counters.keys.sorted()[0]] = 2
            let partialFromState = try store.withCurrentState { state in
                state.deltaFile(of: try state.storedUnits(since: partial)).encoded()
            }
            #expect(try store.exportDelta() == fromState)
            #expect(try store.exportDelta(since: partial) == partialFromState)
            // The check can fail: another cut of the history is another file.
            #expect(fromState != partialFromState)
        }
        // What the snapshot exported imports into a third replica as the same store.
        let third = replicas[2]
        try third.importDelta(try #require(try replicas[0].exportDelta()))
        let report = { (store: Store) in try store.read { tx in try tx.all(File.self).map { "\($0.value)" }.sorted() } }
        #expect(try report(third) == report(replicas[0]))
        #expect(try report(third).count == 2)
    }

    @Test("a damaged names entry makes an export throw, naming the names database; reads go on")
    func damagedNamesThrow() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let options = StoreSpec.options(replica: 1)
        var store = try Store(directory: directory.path, options: options)
        let folder = try store.write { tx in try tx.insert(Folder(name: "Drafts")) }
        try store.close()
        try MaintenanceSpec.damage(directory.path) { _, layout, tx in
            try tx.put([0xFF], forKey: StoreLayout.nameKey(ReplicaID(1), 0), in: layout.names)
        }
        store = try Store(directory: directory.path, options: options)
        defer { try? store.close() }
        let opened = store
        let error = #expect(throws: StoreError.self) { try opened.exportDelta() }
        #expect(error.map { "\($0)".contains("names") } == true, "\(String(describing: error))")
        #expect(try store.read { tx in try tx.record(Folder.self, folder).name } == "Drafts")
    }
}
