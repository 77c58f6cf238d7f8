import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite(
    "Sync folder through a real Syncthing (two instances on 127.0.0.1)",
    .enabled(if: SyncthingDevice.isInstalled, "syncthing is not installed (apt-get install -y syncthing): the end-to-end test with a real engine is skipped"),
    .serialized)
struct SyncthingEndToEndTests {
    private typealias File = StoreSpec.File

    private static func edit(_ store: Store, _ text: String) throws {
        try store.write { tx in
            let file = try tx.insert(File(name: text, status: "draft", rating: 0))
            try tx.insert(text, at: 0, in: file.text("content"))
        }
    }

    /// The relative paths and contents of the sync folder's files (Syncthing's own
    /// `.stfolder` and temporary files left out).
    private static func files(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for replica in try FileManager.default.contentsOfDirectory(atPath: folder) where !replica.hasPrefix(".") {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder + "/" + replica) where !name.hasPrefix(".") {
                files[replica + "/" + name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + replica + "/" + name))
            }
        }
        return files
    }

    @Test("a late joiner gets everything after pruning, and a copied store's conflict copy is refused on both devices")
    func lateJoinerAndCopiedStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = Int.random(in: 20_000..<60_000)
        let one = try SyncthingDevice(in: directory.appending("one"), guiPort: port, listenPort: port + 1)
        let two = try SyncthingDevice(in: directory.appending("two"), guiPort: port + 2, listenPort: port + 3)
        try one.start()
        defer { one.stop() }
        try two.start()
        defer { two.stop() }
        try one.share(with: two)
        try two.share(with: one)
        func delivered(_ what: String) throws {
            try one.scan()
            try two.scan()
            try two.wait(for: what) { try Self.files(one.folder) == Self.files(two.folder) }
        }

        let replicas = try Replicas(3)
        defer { replicas.close() }
        let (a, b, late) = (replicas[0], replicas[1], replicas[2])  // a on device one; b, late on two
        try Self.edit(a, "one")
        try a.sync(folder: one.folder)
        try delivered("a's first file")
        try b.sync(folder: two.folder)
        try delivered("b's acknowledgement")
        try Self.edit(a, "two")
        try a.sync(folder: one.folder)
        try delivered("a's second file")
        try b.sync(folder: two.folder)
        try delivered("b's second acknowledgement")
        let pruning = try a.sync(folder: one.folder)
        #expect(pruning.pruned.count == 2 && pruning.base != nil)
        try delivered("a's base file and the deletions")

        // A device joining now, through the folder alone.
        let joined = try late.sync(folder: two.folder)
        #expect(joined.skipped.isEmpty, "\(joined.skipped)")
        #expect(try StoreSpec.dump(late) == StoreSpec.dump(a))
        try delivered("late's acknowledgement")

        // a's store copied to device two writes as a too, while the devices are apart.
        let cloneDirectory = try TemporaryDirectory()
        defer { cloneDirectory.remove() }
        try FileManager.default.removeItem(atPath: cloneDirectory.path)
        try FileManager.default.copyItem(atPath: a.directory, toPath: cloneDirectory.path)
        let clone = try Store(directory: cloneDirectory.path, options: StoreSpec.options(replica: 1))
        defer { try? clone.close() }
        try one.setPaused(true, peer: two)
        try two.setPaused(true, peer: one)
        try Self.edit(a, "mine")
        try Self.edit(clone, "theirs")
        let written = try #require(try a.sync(folder: one.folder).written.first)
        #expect(try clone.sync(folder: two.folder).written == [written])
        try one.scan()
        try two.scan()
        try one.setPaused(false, peer: two)
        try two.setPaused(false, peer: one)
        let replica = a.replica.description
        // The conflict copy is made by the receiving device's puller; it reaches the other
        // device after a scan there, so each poll asks both to scan rather than waiting for
        // Syncthing's file watcher (seconds late on a loaded machine).
        try two.wait(upTo: 90, for: "Syncthing's conflict copy on both devices") {
            let (first, second) = (try Self.files(one.folder), try Self.files(two.folder))
            if first == second && first.keys.contains(where: { $0.hasPrefix(replica + "/") && $0.contains(".sync-conflict-") }) {
                return true
            }
            try one.scan()
            try two.scan()
            return false
        }
        for (store, folder, isThisReplica) in [(a, one.folder, true), (b, two.folder, false), (clone, two.folder, true)] {
            #expect {
                try store.sync(folder: folder)
            } throws: { error in
                guard case .divergentHistories(let divergent, let files, isThisReplica) = error as? SyncError else { return false }
                return divergent == a.replica && files.contains(written) && files.contains { $0.contains(".sync-conflict-") }
            }
        }
    }
}
