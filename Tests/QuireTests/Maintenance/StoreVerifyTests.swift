import Foundation
import LMDB
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

/// `Store.verify()`: a healthy store verifies; each kind of damage, made on purpose
/// through the LMDB layer in a closed store, is reported precisely.
@Suite("Store verification")
struct StoreVerifyTests {
    typealias Spec = MaintenanceSpec

    /// Builds the two-replica scenario, closes both, damages replica 1's store with
    /// `damage`, and returns its verification (made without opening it as a store).
    private func verifyDamaged(
        _ damage: (MaintenanceSpec.Built, Environment, StoreLayout, borrowing WriteTransaction) throws -> Void
    ) throws -> (VerifyReport, MaintenanceSpec.Built) {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let built = try Spec.build(replicas[0], replicas[1])
        try replicas[0].close()
        #expect(try Store.verify(directory: replicas.directories[0].path).isHealthy)
        try Spec.damage(replicas.directories[0].path) { environment, layout, tx in try damage(built, environment, layout, tx) }
        return (try Store.verify(directory: replicas.directories[0].path), built)
    }

    @Test("a healthy store verifies, open or closed, with pending changes, after random edits merged three ways")
    func healthy() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        _ = try Spec.build(replicas[0], replicas[1])
        var random = SplitMix64(seed: 7)
        for round in 0..<60 {
            try SyncSpec.randomEdit(replicas[round % 3], &random)
            if round % 7 == 0 { try StoreSpec.sync(replicas[round % 3], replicas[(round + 1) % 3]) }
        }
        // A change of replica 3 whose predecessor replica 1 lacks: pending there.
        try StoreSpec.send(replicas[2], to: replicas[1])
        let before = replicas[1].version
        try replicas[1].write { tx in try tx.insert(StoreSpec.Folder(name: "late"), under: nil) }
        try replicas[1].write { tx in try tx.insert(StoreSpec.Folder(name: "later"), under: nil) }
        let lastOnly = try replicas[1].changes(since: before).filter { $0.id.replica == replicas[1].replica }.suffix(1)
        let merge = try replicas[0].apply(Array(lastOnly))
        #expect(!merge.pending.isEmpty)
        for index in 0..<3 {
            let report = try replicas[index].verify()
            #expect(report.isHealthy, "\(report)")
            #expect(report.changeCount > 0 && report.recordCount > 0 && report.nodeCount == report.recordCount)
        }
        #expect(try replicas[0].verify().pendingCount == 1)
        try replicas[0].close()
        let closed = try Store.verify(directory: replicas.directories[0].path)
        #expect(closed.isHealthy, "\(closed)")
        #expect(closed.description.hasPrefix("healthy: checked "))
        #expect(try replicas.reopen(0).verify().isHealthy)
    }

    @Test("a cycle in the tree: the node that is its own ancestor, and the children index that no longer matches")
    func cycle() throws {
        let (report, built) = try verifyDamaged { built, _, layout, tx in
            let key = TreeStorageLayout.nodeKey(built.top.node)
            var reader = ByteReader(try #require(try tx.value(forKey: key, in: layout.tree.nodes)))
            var record = try TreeStorageLayout.decodeNode(built.top.node, from: &reader)
            record.parent = built.sub.node  // Poems under its own child Drafts
            var writer = ByteWriter()
            TreeStorageLayout.encode(record, of: built.top.node, into: &writer)
            try tx.put(writer.bytes, forKey: key, in: layout.tree.nodes)
        }
        let tree = report.problems(of: .tree)
        let cycle = try #require(tree.first { $0.problem.contains("its own ancestor") })
        #expect(cycle.database == "tree.nodes")
        #expect([built.top.node.description, built.sub.node.description].contains(cycle.key))
        #expect(cycle.problem.contains("\(built.top.node) → \(built.sub.node)") || cycle.problem.contains("\(built.sub.node) → \(built.top.node)"))
        #expect(tree.contains { $0.database == "tree.children" && $0.key == "\(built.top.node) under \(built.sub.node)" && $0.problem.contains("no entry in the children index") })
        #expect(tree.contains { $0.database == "tree.children" && $0.key == "\(built.top.node) under \(NodeID.root)" })
        // The file under the cycle is unreachable too.
        #expect(tree.contains { $0.key == "\(built.file.node)" && $0.problem.contains("unreachable") })
        #expect(!report.isHealthy)
        #expect(cycle.remedy.contains("backup"))
    }

    @Test("a node missing from tree.nodes: its record, its child and its children-index entry are reported")
    func missingNode() throws {
        let (report, built) = try verifyDamaged { built, _, layout, tx in
            let changed = try tx.removeValue(forKey: TreeStorageLayout.nodeKey(built.sub.node), in: layout.tree.nodes)
            #expect(changed)
        }
        #expect(report.problems.contains { $0.check == .indexes && $0.database == "records" && $0.key == "\(built.sub)" && $0.problem.contains("has no tree node") })
        #expect(report.problems.contains { $0.check == .tree && $0.key == "\(built.file.node)" && $0.problem.contains("its parent \(built.sub.node) does not exist") })
        #expect(report.problems.contains { $0.database == "tree.children" && $0.key == "\(built.sub.node) under \(built.top.node)" && $0.problem.contains("tree.nodes has no such node") })
        #expect(report.problems.count == 3, "\(report)")
    }

    @Test("a children-index entry deleted: exactly that entry is reported")
    func missingChildEntry() throws {
        let (report, built) = try verifyDamaged { built, _, layout, tx in
            let prefix = TreeStorageLayout.childrenPrefix(built.sub.node)
            let changed = try tx.removeAll(in: layout.tree.children, range: .prefix(prefix)) == 1
            #expect(changed)
        }
        #expect(report.problems.count == 1, "\(report)")
        let problem = try #require(report.problems.first)
        #expect(problem.check == .tree && problem.database == "tree.children")
        #expect(problem.key == "\(built.file.node) under \(built.sub.node)")
        #expect(problem.description.contains("not listed among its parent's children"))
    }

    @Test("a change deleted from the middle of a replica's log: a gap, reported at the change after it")
    func changeLogGap() throws {
        var removed: ChangeID?
        var next: ChangeID?
        let (report, _) = try verifyDamaged { _, _, layout, tx in
            let own = try tx.entries(in: layout.changes, range: .prefix(Key(UInt64(1)))).map { entry in
                entry.key.withUnsafeBytes { StoreLayout.changeID(fromKey: $0) }
            }
            #expect(own.count == 3)
            removed = own[1]
            next = own[2]
            let changed = try tx.removeValue(forKey: StoreLayout.changeKey(own[1]), in: layout.changes)
            #expect(changed)
        }
        let removedID = try #require(removed), nextID = try #require(next)
        #expect(report.problems.count == 1, "\(report)")
        let problem = try #require(report.problems.first)
        #expect(problem.check == .changeLog && problem.database == "changes" && problem.key == "\(nextID)")
        #expect(problem.problem.contains("changes \(removedID.replica)@\(removedID.counter)..<\(nextID.counter) are missing"))
    }

    @Test("another replica's last change deleted: the version claims counters the log does not hold")
    func changeLogTail() throws {
        var last: ChangeID?
        let (report, _) = try verifyDamaged { _, _, layout, tx in
            let entries = try tx.entries(in: layout.changes, range: .prefix(Key(UInt64(2))))
            let id = try #require(entries.last).key.withUnsafeBytes { StoreLayout.changeID(fromKey: $0) }
            last = id
            let changed = try tx.removeValue(forKey: StoreLayout.changeKey(id), in: layout.changes)
            #expect(changed)
        }
        let id = try #require(last)
        let problem = try #require(report.problems.first { $0.check == .changeLog && $0.key == "\(ReplicaID(2))" })
        #expect(problem.problem.contains("counters 0..<\(id.counter + 1) of replica \(ReplicaID(2))"))
        #expect(problem.problem.contains("changes \(id.counter)..<\(id.counter + 1) are missing"))
    }

    @Test("a change-log entry overwritten with garbage does not decode")
    func undecodableChange() throws {
        var damaged: ChangeID?
        let (report, _) = try verifyDamaged { _, _, layout, tx in
            let entries = try tx.entries(in: layout.changes, range: .prefix(Key(UInt64(1))))
            let id = entries[1].key.withUnsafeBytes { StoreLayout.changeID(fromKey: $0) }
            damaged = id
            try tx.put([1, 3, 0xFF, 0xFF, 0xFF], forKey: StoreLayout.changeKey(id), in: layout.changes)
        }
        let damagedID = try #require(damaged)
        let problem = try #require(report.problems.first { $0.key == "\(damagedID)" })
        #expect(problem.check == .changeLog && problem.problem.hasPrefix("the entry does not decode"))
        #expect(report.problems.count == 1, "\(report)")
    }

    @Test("a record deleted: its tree node has no record")
    func missingRecord() throws {
        let (report, built) = try verifyDamaged { built, _, layout, tx in
            let changed = try tx.removeValue(forKey: StoreLayout.recordKey(built.file), in: layout.records)
            #expect(changed)
        }
        // The file's text names a record that is gone, too.
        #expect(report.problems.contains { $0.check == .indexes && $0.database == "tree.nodes" && $0.key == "\(built.file.node)" && $0.problem == "tree node \(built.file.node) has no record in records" })
        #expect(report.problems.contains { $0.database == "text-slots" && $0.key == "\(built.file.text("content"))" && $0.problem.contains("which does not exist") })
    }

    @Test("a text slot deleted: the slot numbering has a gap, and the text's snapshot has no slot")
    func missingTextSlot() throws {
        let (report, built) = try verifyDamaged { _, _, layout, tx in
            let changed = try tx.removeValue(forKey: StoreLayout.slotKey(0), in: layout.textSlots)
            #expect(changed)
        }
        #expect(report.problems.contains { $0.database == "text-slots" && $0.key == "slot 1" && $0.problem.contains("slots 0..<1 are missing") })
        #expect(report.problems.contains { $0.database == "texts" && $0.key == "\(built.file.text("content"))" && $0.problem.contains("no slot") })
        #expect(report.problems.contains { $0.check == .changeLog && $0.problem.contains("unknown text slot 0") })
    }

    @Test("a name table entry deleted: the table is not contiguous")
    func namesGap() throws {
        let (report, _) = try verifyDamaged { _, _, layout, tx in
            let changed = try tx.removeValue(forKey: StoreLayout.nameKey(ReplicaID(1), 0), in: layout.names)
            #expect(changed)
        }
        let problem = try #require(report.problems.first)
        #expect(problem.check == .indexes && problem.database == "names" && problem.key == "\(ReplicaID(1)) #1")
        #expect(problem.problem.contains("not contiguous: position 1 follows 0 names"))
    }

    @Test("a pending entry that does not decode, and one that is applied already")
    func pending() throws {
        let (report, _) = try verifyDamaged { _, _, layout, tx in
            try tx.put([9, 9, 9], forKey: StoreLayout.changeKey(ChangeID(replica: ReplicaID(2), counter: 40)), in: layout.pending)
            // An applied change of replica 2, stored again as pending.
            let applied = try #require(try tx.entries(in: layout.changes, range: .prefix(Key(UInt64(2)))).first)
            let id = applied.key.withUnsafeBytes { StoreLayout.changeID(fromKey: $0) }
            var slots: [UInt64: TextID] = [:]
            for entry in try tx.entries(in: layout.textSlots) {
                slots[entry.key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }] = try StoreLayout.decodeText(entry.value)
            }
            var reader = ByteReader(applied.value)
            let change = try Change.decodeBody(from: &reader, id: id) { reader, _ in slots[try reader.readVarint("slot")]! }
            try tx.put(IncomingChange.decoded(change).stored, forKey: StoreLayout.changeKey(id), in: layout.pending)
        }
        #expect(report.problems.contains { $0.check == .pending && $0.key == "\(ReplicaID(2))@40" && $0.problem.hasPrefix("the pending change does not decode") })
        #expect(report.problems.contains { $0.check == .pending && $0.key == "\(ReplicaID(2))@0" && $0.problem.contains("applied already") })
        #expect(report.problems.count == 2, "\(report)")
        #expect(report.pendingCount == 2)
    }

    @Test("meta claiming more of a replica than the log holds, and a clock behind the log")
    func meta() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        _ = try Spec.build(replicas[0], replicas[1])
        // Replica 2's latest change is later than anything replica 1 wrote.
        try replicas[1].write { tx in try tx.insert(StoreSpec.Folder(name: "Later"), under: nil) }
        try StoreSpec.send(replicas[1], to: replicas[0])
        try replicas[0].close()
        let directory = replicas.directories[0].path
        try Spec.damage(directory) { _, layout, tx in
            var meta = try StoreMeta.decode(try #require(try tx.value(forKey: StoreLayout.metaKey, in: layout.meta)))
            meta.version[ReplicaID(2)] += 5
            meta.lamport = 0
            try tx.put(meta.encoded(), forKey: StoreLayout.metaKey, in: layout.meta)
        }
        let report = try Store.verify(directory: directory)
        #expect(report.problems.contains { $0.check == .changeLog && $0.key == "\(ReplicaID(2))" && $0.problem.contains("are missing") })
        #expect(report.problems.contains { $0.check == .meta && $0.database == "meta" && $0.key == "store" && $0.problem.contains("the Lamport clock") })
        #expect(report.problems.count == 2, "\(report)")
    }

    @Test("a missing meta record is reported, not thrown")
    func missingMeta() throws {
        let (report, _) = try verifyDamaged { _, _, layout, tx in
            let changed = try tx.removeValue(forKey: StoreLayout.metaKey, in: layout.meta)
            #expect(changed)
        }
        #expect(report.problems.first?.check == .meta)
        #expect(report.problems.first?.key == "store")
        #expect(report.problems.first?.problem.contains("missing") == true)
    }
}
