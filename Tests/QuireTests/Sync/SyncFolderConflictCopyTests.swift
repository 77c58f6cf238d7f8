import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

/// Conflict copies a file-sync engine makes, named as the engines name them, and stores
/// copied to a second device that write as one replica.
@Suite("Sync folder: conflict copies and copied stores")
struct SyncFolderConflictCopyTests {
    private typealias File = StoreSpec.File

    private static func edit(_ store: Store, _ text: String) throws {
        try store.write { tx in
            let file = try tx.insert(File(name: text, status: "draft", rating: 0))
            try tx.insert(text, at: 0, in: file.text("content"))
        }
    }

    /// The names Syncthing, Dropbox and iCloud Drive give a conflict copy of `name`.
    private static func conflictNames(of name: String) -> [String] {
        let (stem, ext) = name.hasSuffix(".qdelta") ? (String(name.dropLast(7)), ".qdelta") : (name, "")
        return [
            "\(stem).sync-conflict-20261201-101500-7QWERTY\(ext)",
            "\(stem) (Ann's conflicted copy 2026-12-01)\(ext)",
            "\(stem) 2\(ext)",
        ]
    }

    /// A second store with `store`'s replica ID and history: its directory copied, as a
    /// backup restored on another device or a copied store would be.
    private static func copy(of store: Store, replica: UInt64) throws -> (Store, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        try FileManager.default.removeItem(atPath: directory.path)
        try FileManager.default.copyItem(atPath: store.directory, toPath: directory.path)
        let copy = try Store(directory: directory.path, options: StoreSpec.options(replica: replica))
        #expect(copy.replica == store.replica)
        return (copy, directory)
    }

    @Test("conflict copies of a replica's own ack and delta files are removed by its next sync; others ignore them as conflict copies")
    func ownConflictCopiesRemoved() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let (a, b) = (replicas[0], replicas[1])
        try Self.edit(a, "one")
        let written = try #require(try a.sync(folder: folder.path).written.first)
        try b.sync(folder: folder.path)
        let sub = a.replica.description
        let ack = try SyncSpec.read(folder.appending("\(sub)/ack"))
        let delta = try SyncSpec.read(folder.appending(written))
        let deltaName = (written as NSString).lastPathComponent
        let copies = Self.conflictNames(of: "ack").map { ("\(sub)/\($0)", ack) }
            + Self.conflictNames(of: deltaName).map { ("\(sub)/\($0)", delta) }
        for (path, bytes) in copies { try SyncSpec.write(bytes, to: folder.appending(path)) }

        let other = try b.sync(folder: folder.path)
        #expect(other.skipped.isEmpty)
        let ignored = Dictionary(uniqueKeysWithValues: other.ignored.map { ($0.path, $0.reason) })
        for name in Self.conflictNames(of: "ack") { #expect(ignored["\(sub)/\(name)"] == .conflictCopy(original: "ack")) }
        for name in Self.conflictNames(of: deltaName) { #expect(ignored["\(sub)/\(name)"] == .conflictCopy(original: deltaName)) }
        #expect(copies.allSatisfy { FileManager.default.fileExists(atPath: folder.appending($0.0)) })  // never another's

        let own = try a.sync(folder: folder.path)
        #expect(Set(own.removedConflictCopies) == Set(copies.map(\.0)))
        #expect(own.ignored.isEmpty)
        #expect(try SyncSpec.entries(folder.path, sub) == [deltaName, "ack"].sorted())
        #expect(try b.sync(folder: folder.path).ignored.isEmpty)
        #expect(try StoreSpec.dump(b) == StoreSpec.dump(a))
    }

    @Test("a conflict copy of a delta file holding another device's changes under the same replica is refused on every device")
    func conflictCopyOfCopiedStore() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        let scratch = try TemporaryDirectory()
        defer { folder.remove(); scratch.remove() }
        let (a, b) = (replicas[0], replicas[1])
        try Self.edit(a, "one")
        for store in [a, b, a] { try store.sync(folder: folder.path) }
        let (clone, cloneDirectory) = try Self.copy(of: a, replica: 1)
        defer { try? clone.close(); cloneDirectory.remove() }

        // Both devices write the next counters of replica 1, each its own edit, under the
        // same file name: the engine keeps one and makes a conflict copy of the other.
        try FileManager.default.removeItem(atPath: scratch.path)
        try FileManager.default.copyItem(atPath: folder.path, toPath: scratch.path)
        try Self.edit(a, "mine")
        try Self.edit(clone, "theirs")
        let original = try #require(try a.sync(folder: folder.path).written.first)
        #expect(try clone.sync(folder: scratch.path).written == [original])
        let conflict = "\(a.replica)/" + Self.conflictNames(of: (original as NSString).lastPathComponent)[0]
        try SyncSpec.write(try SyncSpec.read(scratch.appending(original)), to: folder.appending(conflict))

        let before = try StoreSpec.dump(b)
        for (store, isThisReplica) in [(b, false), (a, true), (clone, true)] {
            #expect {
                try store.sync(folder: folder.path)
            } throws: { error in
                guard case .divergentHistories(let replica, let files, isThisReplica) = error as? SyncError else { return false }
                return replica == a.replica && Set(files) == [original, conflict] && "\(error)".contains("Keep the replica on one device")
            }
        }
        #expect(try StoreSpec.dump(b) == before)
        #expect(FileManager.default.fileExists(atPath: folder.appending(conflict)))  // not removed as a copy
    }

    @Test("two delta files of one replica with overlapping counters and different changes are refused, and the rest still syncs")
    func overlappingFilesOfCopiedStore() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let folder = try TemporaryDirectory()
        let scratch = try TemporaryDirectory()
        defer { folder.remove(); scratch.remove() }
        let (a, b, c) = (replicas[0], replicas[1], replicas[2])
        try Self.edit(a, "one")
        for store in [a, b, c, a] { try store.sync(folder: folder.path) }
        let (clone, cloneDirectory) = try Self.copy(of: a, replica: 1)
        defer { try? clone.close(); cloneDirectory.remove() }

        try FileManager.default.removeItem(atPath: scratch.path)
        try FileManager.default.copyItem(atPath: folder.path, toPath: scratch.path)
        try Self.edit(a, "mine")
        try Self.edit(clone, "theirs")
        try Self.edit(clone, "and more")
        let mine = try #require(try a.sync(folder: folder.path).written.first)
        let theirs = try #require(try clone.sync(folder: scratch.path).written.first)
        #expect(mine != theirs)
        try SyncSpec.write(try SyncSpec.read(scratch.appending(theirs)), to: folder.appending(theirs))
        try Self.edit(c, "from c")
        #expect(throws: SyncError.self) { try c.sync(folder: folder.path) }  // c refuses too; its own file went out first

        #expect {
            try b.sync(folder: folder.path)
        } throws: { error in
            guard case .divergentHistories(let replica, let files, false) = error as? SyncError else { return false }
            return replica == a.replica && Set(files) == [mine, theirs]
        }
        // c's change arrived all the same; nothing of either history of replica 1 did.
        #expect(b.version[c.replica] == c.version[c.replica])
        #expect(b.version[a.replica] < a.version[a.replica])
    }
}
