import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Store: records")
struct StoreRecordTests {
    typealias Project = StoreSpec.Project
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File
    typealias Clue = StoreSpec.Clue

    static let day = Date(timeIntervalSinceReferenceDate: 86_400)

    @Test("insert, get, record, all, update, replace and delete read back, also after reopening")
    func crud() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let poems = Project(name: "Poems", kind: .poetry, created: Self.day, details: "sonnets")
        let (a, b) = try store.write { tx throws in
            (try tx.insert(poems), try tx.insert(Project(name: "Novel", kind: .prose, created: Self.day + 1)))
        }
        #expect(a != b)
        try store.read { tx throws in
            #expect(try tx.get(Project.self, a) == poems)
            #expect(try tx.record(Project.self, b).name == "Novel")
            #expect(try tx.all(Project.self).map(\.id) == [a, b].sorted())
            #expect(tx.typeName(of: a) == Project.typeName)
        }
        try store.write { tx throws in
            try tx.update(a, as: Project.self) { $0.name = "Poetry"; $0.kind = .drama }
            try tx.replace(b, with: Project(name: "Novella", kind: .prose, created: Self.day + 2, details: "short"))
            // A writer reads its own writes.
            #expect(try tx.record(Project.self, a).name == "Poetry")
        }
        try store.write { tx in try tx.delete(b) }

        for reopening in [false, true] {
            let store = reopening ? try replicas.reopen(0) : replicas[0]
            try store.read { tx throws in
                #expect(try tx.record(Project.self, a) == Project(name: "Poetry", kind: .drama, created: Self.day, details: "sonnets"))
                #expect(try tx.record(Project.self, b) == Project(name: "Novella", kind: .prose, created: Self.day + 2, details: "short"))
                #expect(try tx.all(Project.self).map(\.id) == [a])
                #expect(try tx.all(Project.self, includingDeleted: true).map(\.id) == [a, b].sorted())
                #expect(tx.isDeleted(b) && !tx.isDeleted(a))
            }
        }
    }

    @Test("an unknown ID reads as nil, throws recordNotFound, and cannot be updated or replaced")
    func recordNotFound() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let elsewhere = try replicas[1].write { tx in try tx.insert(Folder(name: "Elsewhere")) }
        let store = replicas[0]
        try store.read { tx throws in
            #expect(try tx.get(Folder.self, elsewhere) == nil)
            #expect(throws: StoreError.recordNotFound(elsewhere)) { try tx.record(Folder.self, elsewhere) }
        }
        #expect(throws: StoreError.recordNotFound(elsewhere)) {
            try store.write { tx in try tx.update(elsewhere, as: Folder.self) { $0.name = "X" } }
        }
        #expect(throws: StoreError.recordNotFound(elsewhere)) {
            try store.write { tx in try tx.replace(elsewhere, with: Folder(name: "X")) }
        }
        #expect(throws: StoreError.recordNotFound(elsewhere)) {
            try store.write { tx in try tx.insert("x", at: 0, in: elsewhere.text("content")) }
        }
        #expect(try store.changes().isEmpty)
    }

    @Test("reading or writing a record as another type throws wrongType")
    func wrongType() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let folder = try store.write { tx in try tx.insert(Folder(name: "Drafts")) }
        let expected = StoreError.wrongType(folder, expected: File.typeName, actual: Folder.typeName)
        try store.read { tx throws in
            #expect(throws: expected) { try tx.get(File.self, folder) }
            #expect(throws: expected) { try tx.record(File.self, folder) }
            #expect(try tx.all(File.self).isEmpty)
        }
        #expect(throws: expected) { try store.write { tx in try tx.update(folder, as: File.self) { $0.name = "X" } } }
        #expect(throws: expected) { try store.write { tx in try tx.replace(folder, with: File(name: "X")) } }
        #expect(expected.description.contains("folder") && expected.description.contains("file"))
        #expect(try store.read { tx in try tx.record(Folder.self, folder) } == Folder(name: "Drafts"))
        #expect(try store.changes().count == 1)
    }

    @Test("an Optional field set to nil round-trips, locally, after reopening and on another replica")
    func optionalNil() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let id = try a.write { tx in try tx.insert(File(name: "Ode", rating: 4)) }
        try StoreSpec.send(a, to: b)
        try a.write { tx in try tx.update(id, as: File.self) { $0.rating = nil } }
        #expect(try a.read { tx in try tx.record(File.self, id).rating } == nil)
        try StoreSpec.send(a, to: b)
        #expect(try b.read { tx in try tx.record(File.self, id) } == File(name: "Ode", rating: nil))
        let reopened = try replicas.reopen(0)
        #expect(try reopened.read { tx in try tx.record(File.self, id) } == File(name: "Ode", rating: nil))
        // And back from nil to a value.
        try reopened.write { tx in try tx.replace(id, with: File(name: "Ode", rating: 5)) }
        #expect(try reopened.read { tx in try tx.record(File.self, id).rating } == 5)
    }

    @Test("every integer width, Int128 and UInt128 included, round-trips through a field and an update")
    func integerFields() throws {
        struct Counters: Record, Equatable {
            static let typeName = "spec.counters"
            var small: Int8
            var wide: Int128
            var unsigned: UInt128?
            var plain: UInt64?
        }
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let value = Counters(small: -8, wide: .max, unsigned: .max, plain: .max)
        let id = try store.write { tx in try tx.insert(value) }
        #expect(try store.read { tx in try tx.record(Counters.self, id) } == value)
        try store.write { tx in try tx.update(id, as: Counters.self) { $0.wide = .min; $0.unsigned = nil } }
        #expect(try store.read { tx in try tx.record(Counters.self, id) } == Counters(small: -8, wide: .min, unsigned: nil, plain: .max))
    }

    @Test("a record referring to another record's ID round-trips and resolves on another replica")
    func recordReferences() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let (target, clue) = try a.write { tx throws in
            let target = try tx.insert(Folder(name: "Target"))
            return (target, try tx.insert(Clue(text: "see", seeAlso: target)))
        }
        try StoreSpec.send(a, to: b)
        for store in [b, try replicas.reopen(0)] {
            try store.read { tx throws in
                let read = try tx.record(Clue.self, clue)
                #expect(read == Clue(text: "see", seeAlso: target))
                #expect(try tx.record(Folder.self, try #require(read.seeAlso)).name == "Target")
            }
        }
        // RecordID's own Codable form is [replica, counter].
        let json = try JSONEncoder().encode(target)
        #expect(String(decoding: json, as: UTF8.self) == "[\(target.replica.rawValue),\(target.counter)]")
        #expect(try JSONDecoder().decode(RecordID.self, from: json) == target)
    }

    @Test("all(where:) keeps matching records; all(sortedBy:ascending:) sorts by a key path")
    func filterAndSort() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let names = ["Cello", "Alto", "Bass", "Drum"]
        let ids = try store.write { tx throws in
            try names.enumerated().map { index, name in
                try tx.insert(Project(name: name, kind: index % 2 == 0 ? .poetry : .prose, created: Self.day + Double(10 - index)))
            }
        }
        try store.write { tx in try tx.delete(ids[3]) }
        try store.read { tx throws in
            #expect(try tx.all(Project.self) { $0.kind == .poetry }.map(\.name) == ["Cello", "Bass"])
            #expect(try tx.all(Project.self, includingDeleted: true) { $0.kind == .prose }.map(\.name).sorted() == ["Alto", "Drum"])
            #expect(try tx.all(Project.self, sortedBy: \.name).map(\.name) == ["Alto", "Bass", "Cello"])
            #expect(try tx.all(Project.self, sortedBy: \.name, ascending: false).map(\.name) == ["Cello", "Bass", "Alto"])
            #expect(try tx.all(Project.self, sortedBy: \.created).map(\.name) == ["Bass", "Alto", "Cello"])
            #expect(try tx.all(Project.self, sortedBy: \.created, ascending: false).map(\.id) == [ids[0], ids[1], ids[2]])
        }
    }

    @Test("concurrent updates of different fields of one record both survive the merge")
    func concurrentDifferentFields() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let id = try a.write { tx in try tx.insert(File(name: "Ode", status: "draft", rating: 1)) }
        try StoreSpec.send(a, to: b)
        try a.write { tx in try tx.update(id, as: File.self) { $0.name = "Ode to Joy" } }
        try b.write { tx in try tx.update(id, as: File.self) { $0.status = "ready" } }
        // Only the changed field travels: B's change does not carry the old name.
        let reportA = try StoreSpec.send(b, to: a)
        let reportB = try StoreSpec.send(a, to: b)
        #expect(reportA.changedRecords == [id] && reportB.changedRecords == [id])
        for store in [a, b] {
            #expect(try store.read { tx in try tx.record(File.self, id) } == File(name: "Ode to Joy", status: "ready", rating: 1))
        }
        #expect(try StoreSpec.dump(a).records == StoreSpec.dump(b).records)
    }

    @Test("a remote update made after seeing the old value is not reported as overwritten")
    func causalUpdateIsNotAConflict() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let id = try a.write { tx in try tx.insert(File(name: "Ode", status: "draft")) }
        try StoreSpec.send(a, to: b)
        // B saw "draft" and changed it; nobody wrote the field concurrently.
        try b.write { tx in try tx.update(id, as: File.self) { $0.status = "ready" } }
        let report = try StoreSpec.send(b, to: a)
        #expect(report.changedRecords == [id])
        #expect(try a.read { tx in try tx.record(File.self, id).status } == "ready")
        #expect(report.overwritten.isEmpty, "\(report.overwritten)")
    }

    @Test("concurrent updates of one field: the (lamport, replica) winner stays on both, the loser is reported",
          arguments: [false, true])
    func concurrentSameField(firstReplicaIsLater: Bool) throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])  // replica 1 < replica 2
        let id = try a.write { tx in try tx.insert(Folder(name: "Start")) }
        try StoreSpec.send(a, to: b)
        if firstReplicaIsLater {
            // A's clock moves ahead, so its next write wins despite the lower replica ID.
            _ = try a.write { tx in try tx.insert(Folder(name: "Other")) }
        }
        try a.write { tx in try tx.update(id, as: Folder.self) { $0.name = "From A" } }
        try b.write { tx in try tx.update(id, as: Folder.self) { $0.name = "From B" } }
        let writeA = try #require(a.changes().last), writeB = try #require(b.changes().last)
        #expect((writeA.lamport > writeB.lamport) == firstReplicaIsLater)

        let reportA = try StoreSpec.send(b, to: a)
        let reportB = try StoreSpec.send(a, to: b)
        let (winner, loser, losing) = firstReplicaIsLater ? ("From A", "From B", writeB) : ("From B", "From A", writeA)
        for store in [a, b] {
            #expect(try store.read { tx in try tx.record(Folder.self, id).name } == winner)
        }
        for report in [reportA, reportB] {
            #expect(report.overwritten.count == 1)
            let lost = try #require(report.overwritten.first)
            #expect(lost.record == id && lost.field == "name" && lost.value == "\"\(loser)\"")
            #expect(lost.timestamp == Timestamp(lamport: losing.lamport, replica: losing.id.replica))
        }
    }

    @Test("record IDs are the same on every replica after a merge")
    func idsAgreeAfterMerge() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let fromA = try a.write { tx in try (0..<3).map { try tx.insert(Folder(name: "A\($0)")) } }
        let fromB = try b.write { tx in try (0..<2).map { try tx.insert(Folder(name: "B\($0)")) } }
        #expect(Set(fromA).isDisjoint(with: fromB))
        try StoreSpec.sync(a, b)
        for store in [a, b] {
            let all = try store.read { tx in try tx.all(Folder.self) }
            #expect(all.map(\.id) == (fromA + fromB).sorted())
            #expect(Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0.name) })
                == Dictionary(uniqueKeysWithValues: zip(fromA + fromB, ["A0", "A1", "A2", "B0", "B1"]).map { ($0, $1) }))
        }
        #expect(try a.read { tx in tx.children(of: nil) } == b.read { tx in tx.children(of: nil) })
    }
}
