import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Store: merge refusals, pending changes and convergence")
struct StoreMergeTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    /// Expects `apply` to refuse `changes` with `invalidChange` mentioning `reason`, and
    /// the store to be exactly as before, in memory and after reopening.
    static func expectRefusal(
        _ changes: [Change], by replicas: Replicas, _ index: Int, mentioning reason: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try StoreSpec.dump(replicas[index])
        let error = #expect(throws: StoreError.self, sourceLocation: sourceLocation) { try replicas[index].apply(changes) }
        guard case .invalidChange(let problem) = error else {
            Issue.record("expected invalidChange, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(problem.contains(reason), "\(problem)", sourceLocation: sourceLocation)
        #expect(try StoreSpec.dump(replicas[index]) == before, sourceLocation: sourceLocation)
        #expect(try StoreSpec.dump(replicas.reopen(index)) == before, sourceLocation: sourceLocation)
    }

    @Test("a change claiming this store's own replica is refused and changes nothing")
    func ownReplicaRefused() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let file = try a.write { tx throws in
            let file = try tx.insert(File(name: "Ode"))
            try tx.insert("text", at: 0, in: file.text("content"))
            return file
        }
        try StoreSpec.send(a, to: b)
        try b.write { tx in try tx.insert("B: ", at: 0, in: file.text("content")) }
        // B's next change, relabelled as A's next one: A never made it.
        var forged = try #require(b.changes().last)
        forged.id = ChangeID(replica: a.replica, counter: a.version[a.replica])
        try Self.expectRefusal([forged], by: replicas, 0, mentioning: "this replica")
        // Mixed with a valid change, the whole batch is refused.
        try replicas[1].write { tx in _ = try tx.insert(Folder(name: "Valid")) }
        try Self.expectRefusal(try replicas[1].changes(since: replicas[0].version) + [forged], by: replicas, 0, mentioning: "this replica")
    }

    /// Two stores that share replica 1's ID and history up to one change, then diverge:
    /// what copying a store's directory to another device produces.
    static func clonedReplica(_ replicas: Replicas) throws -> (original: Change, clone: Change, cloneDirectory: TemporaryDirectory) {
        let a = replicas[0]
        try a.write { tx in _ = try tx.insert(Folder(name: "Shared")) }
        try a.close()
        let cloneDirectory = try TemporaryDirectory()
        try FileManager.default.removeItem(atPath: cloneDirectory.path)
        try FileManager.default.copyItem(atPath: replicas.directories[0].path, toPath: cloneDirectory.path)
        let original = try replicas.reopen(0)
        let clone = try Store(directory: cloneDirectory.path)
        defer { try? clone.close() }
        #expect(clone.replica == original.replica)
        try original.write { tx in _ = try tx.insert(Folder(name: "Original")) }
        try clone.write { tx in _ = try tx.insert(Folder(name: "Clone")) }
        let mine = try #require(original.changes().last), theirs = try #require(clone.changes().last)
        #expect(mine.id == theirs.id && mine != theirs)
        return (mine, theirs, cloneDirectory)
    }

    @Test("two different changes with one ID in one batch, or against a pending one, are refused")
    func sameIDTwiceRefused() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (original, clone, directory) = try Self.clonedReplica(replicas)
        defer { directory.remove() }
        let first = try replicas[0].changes().first!
        try Self.expectRefusal([first, original, clone], by: replicas, 1, mentioning: "two different changes")

        // One of them waits as pending (its predecessor is missing); the other is refused.
        let report = try replicas[1].apply([clone])
        #expect(report.pending == [clone.id])
        try Self.expectRefusal([original], by: replicas, 1, mentioning: "two different changes")
        try Self.expectRefusal([first, original], by: replicas, 1, mentioning: "two different changes")
    }

    @Test("a different change under an ID already applied is refused, not taken for a duplicate")
    func sameIDAfterApplyRefused() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (original, clone, directory) = try Self.clonedReplica(replicas)
        defer { directory.remove() }
        let first = try replicas[0].changes().first!
        try replicas[1].apply([first, original])
        try Self.expectRefusal([clone], by: replicas, 1, mentioning: "two different changes")
    }

    @Test("a change delivered before its predecessor waits as pending, survives reopening, and applies when the gap closes")
    func pendingUntilGapCloses() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let (a, c) = (replicas[0], replicas[2])
        let file = try a.write { tx throws in
            let file = try tx.insert(File(name: "Ode"))
            try tx.insert("one", at: 0, in: file.text("content"))
            return file
        }
        try a.write { tx throws in
            try tx.insert(" two", at: 3, in: file.text("content"))
            try tx.update(file, as: File.self) { $0.status = "second" }
        }
        let changes = try a.changes()
        #expect(changes.count == 2)
        // C merges A's changes and builds on them: C's change depends on A's.
        try StoreSpec.send(a, to: c)
        try c.write { tx in try tx.insert(" three", at: 7, in: file.text("content")) }
        let fromC = try c.changes(since: a.version)
        #expect(fromC.count == 1 && fromC[0].dependencies[a.replica] == changes[1].endCounter)

        let empty = try StoreSpec.dump(replicas[1])
        var report = try replicas[1].apply([changes[1]] + fromC)
        #expect(report.applied.isEmpty)
        #expect(report.pending == [changes[1].id, fromC[0].id].sorted())
        #expect(try StoreSpec.dump(replicas[1]).records == empty.records)
        #expect(replicas[1].version == empty.version)

        // The pending changes are on disk.
        let b = try replicas.reopen(1)
        #expect(try StoreSpec.dump(b).records == empty.records)
        report = try b.apply([])
        #expect(report.pending == [changes[1].id, fromC[0].id].sorted())
        report = try b.apply([changes[1]])  // a duplicate of a pending change
        #expect(report.applied.isEmpty && report.pending.count == 2)

        report = try b.apply([changes[0]])
        #expect(report.applied == [changes[0].id, changes[1].id, fromC[0].id])
        #expect(report.pending.isEmpty)
        #expect(try StoreSpec.dump(b) == StoreSpec.dump(c))
        #expect(try b.read { tx in try tx.string(of: file.text("content")) } == "one two three")
        let reopened = try replicas.reopen(1)
        #expect(try reopened.apply([]).pending.isEmpty)
        #expect(try StoreSpec.dump(reopened) == StoreSpec.dump(c))
    }

    @Test("changes already known are reported alreadyKnown and change nothing")
    func duplicates() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        for name in ["A", "B", "C"] { try a.write { tx in _ = try tx.insert(Folder(name: name)) } }
        try b.write { tx in _ = try tx.insert(Folder(name: "Mine")) }
        let changes = try a.changes()
        let first = try b.apply(changes + changes)  // duplicates inside one batch too
        #expect(first.applied == changes.map(\.id))
        #expect(first.alreadyKnown == changes.map(\.id) && first.pending.isEmpty)  // the second copies
        let after = try StoreSpec.dump(b)

        let again = try b.apply(changes.reversed() + b.changes(since: VersionVector([a.replica: 100])))
        #expect(again.applied.isEmpty && again.pending.isEmpty)
        #expect(Set(again.alreadyKnown) == Set(changes.map(\.id) + [ChangeID(replica: b.replica, counter: 0)]))
        #expect(again.changedRecords.isEmpty && again.movedNodes.isEmpty && again.overwritten.isEmpty)
        #expect(try StoreSpec.dump(b) == after)
        #expect(try StoreSpec.dump(replicas.reopen(1)) == after)
    }

    // MARK: Convergence

    /// Makes one random local edit on `store`: create, rename, type, move, reorder,
    /// delete or restore, chosen by `random`.
    static func randomEdit(_ store: Store, _ random: inout SplitMix64, step: Int) throws {
        let (live, folders, files, trash) = try store.read { tx throws in
            (try tx.all(Folder.self).map(\.id) + tx.all(File.self).map(\.id),
             try tx.all(Folder.self).map(\.id),
             try tx.all(File.self, includingDeleted: true).map(\.id),
             tx.trash)
        }
        func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[Int(random.next() % UInt64(items.count))] }
        let parent: RecordID? = random.next() % 4 == 0 ? nil : pick(folders)
        switch random.next() % 9 {
        case 0, 1:
            try store.write { tx in _ = try tx.insert(Folder(name: "F\(step)"), under: parent, at: 0) }
        case 2:
            try store.write { tx in
                let file = try tx.insert(File(name: "f\(step)"), under: parent)
                try tx.insert("t\(step)", at: 0, in: file.text("content"))
            }
        case 3:
            guard let id = pick(live) else { return }
            try store.write { tx in
                if tx.typeName(of: id) == Folder.typeName {
                    try tx.update(id, as: Folder.self) { $0.name = "R\(step)" }
                } else {
                    try tx.update(id, as: File.self) { $0.status = "s\(step)"; $0.rating = step }
                }
            }
        case 4, 5:
            guard let file = pick(files) else { return }
            let text = file.text("content")
            let length = try store.read { tx in try tx.length(of: text) }
            let at = Int(random.next() % UInt64(length + 1))
            try store.write { tx in
                if at < length, random.next() % 3 == 0 {
                    try tx.delete(at..<min(length, at + 2), in: text)
                } else {
                    try tx.insert("<\(step)>", at: at, in: text)
                }
            }
        case 6:
            guard let id = pick(live) else { return }
            do {
                try store.write { tx in try tx.move(id, to: parent, at: 0) }
            } catch StoreError.hierarchy(.cycle) {
                // A move into its own subtree: refused locally, nothing written.
            }
        case 7:
            guard let id = pick(live) else { return }
            try store.write { tx in try tx.delete(id) }
        default:
            guard let id = pick(trash) else { return }
            try store.write { tx in try tx.restore(id, to: nil) }
        }
    }

    /// Three replicas editing concurrently with occasional partial syncs, then fully synced.
    static func history(seed: UInt64, _ replicas: Replicas) throws {
        var random = SplitMix64(seed: seed)
        for step in 0..<60 {
            let index = Int(random.next() % 3)
            try randomEdit(replicas[index], &random, step: step)
            if random.next() % 4 == 0 {
                let from = Int(random.next() % 3), to = Int(random.next() % 3)
                if from != to { try StoreSpec.send(replicas[from], to: replicas[to]) }
            }
        }
        for _ in 0..<2 {
            for from in 0..<3 { for to in 0..<3 where from != to { try StoreSpec.send(replicas[from], to: replicas[to]) } }
        }
    }

    @Test("three replicas' concurrent changes converge on each of them, and in any delivery order on a fourth",
          arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomOrdersConverge(seed: UInt64) throws {
        let replicas = try Replicas(4)
        defer { replicas.close() }
        try Self.history(seed: seed, replicas)
        let reference = try StoreSpec.dump(replicas[0])
        #expect(try StoreSpec.dump(replicas[1]) == reference)
        #expect(try StoreSpec.dump(replicas[2]) == reference)
        #expect(reference.records.count > 5)
        #expect(reference.changes.count >= 40)

        // Deliver the same changes to a fresh replica in random orders, in random batches,
        // with duplicates and a reopen along the way.
        var random = SplitMix64(seed: seed &* 0x9E37_79B9)
        let all = reference.changes
        for round in 0..<4 {
            let index = 3
            var store = try replicas.reopen(index)
            if round > 0 {
                // Start again from an empty replica.
                try store.close()
                try FileManager.default.removeItem(atPath: replicas.directories[index].path)
                store = try replicas.reopen(index)
            }
            #expect(store.version == VersionVector())
            var order = all.shuffled(using: &random)
            order += (0..<5).map { _ in all[Int(random.next() % UInt64(all.count))] }
            order.shuffle(using: &random)
            let reopenAt = Int(random.next() % UInt64(order.count))
            var start = 0
            while start < order.count {
                let end = min(order.count, start + 1 + Int(random.next() % 6))
                try store.apply(Array(order[start..<end]))
                if (start..<end).contains(reopenAt) { store = try replicas.reopen(index) }
                start = end
            }
            #expect(try store.apply([]).pending.isEmpty)
            let dump = try StoreSpec.dump(store)
            #expect(dump == reference, "round \(round)")
            if dump != reference { break }
        }
    }
}
