@testable import Quire
import QuireCore
import Testing

/// The small pieces a keystroke's commit leans on to stay cheap: replica tables searched
/// instead of hashed, text IDs hashed by their record, and the names table left alone
/// when a change names nothing new.
@Suite("Keystroke bookkeeping: replica tables, text ID hashing, known names")
struct KeystrokeBookkeepingTests {
    @Test("a replica index finds each replica at its position and nothing else")
    func replicaIndex() {
        let table = [ReplicaID(7), ReplicaID(3), ReplicaID(9)]
        let index = ReplicaIndex(table)
        #expect(table.indices.allSatisfy { index[table[$0]] == $0 })
        #expect(index[ReplicaID(4)] == nil)
        // A replica listed twice (no table is built so) is found where it first appears.
        #expect(ReplicaIndex([ReplicaID(1), ReplicaID(2), ReplicaID(1)])[ReplicaID(1)] == 0)

        // A long table (a history from many replicas) is hashed: the same answers.
        let long = (0..<100).map { ReplicaID(UInt64(1_000 - $0)) } + [ReplicaID(1_000)]
        #expect(long.count > ReplicaIndex.linearSearchLimit)
        let longIndex = ReplicaIndex(long)
        #expect((0..<100).allSatisfy { longIndex[long[$0]] == $0 })
        #expect(longIndex[ReplicaID(1_000)] == 0)
        #expect(longIndex[ReplicaID(5)] == nil)

        var built: [ReplicaID] = [ReplicaID(5)]
        for replica in [ReplicaID(5), ReplicaID(2), ReplicaID(5), ReplicaID(8), ReplicaID(2)] {
            ReplicaIndex.add(replica, to: &built)
        }
        #expect(built == [ReplicaID(5), ReplicaID(2), ReplicaID(8)])
    }

    @Test("the replicas of text operations are listed in order of first appearance, once")
    func replicasOfOperations() throws {
        let (a, b, c) = (ReplicaID(1), ReplicaID(2), ReplicaID(3))
        let operations: [TextOperation] = [
            .insert(TextInsertion(id: OperationID(replica: b, counter: 4), originLeft: OperationID(replica: c, counter: 0),
                                  rightParent: OperationID(replica: b, counter: 1), text: "x")),
            .delete(TextDeletion(id: OperationID(replica: b, counter: 5), target: OperationID(replica: a, counter: 2), length: 1)),
        ]
        #expect(TextOperationCoding.replicas(in: operations) == [b, c, a])
        var table = [a]
        TextOperationCoding.addReplicas(of: operations, to: &table)
        #expect(table == [a, b, c])
        // The encoding refers to them by these positions and decodes to the same operations.
        let encoded = TextOperationCoding.encode(operations, sharing: table, counterBase: 4)
        #expect(try TextOperationCoding.decode(encoded, sharing: table, counterBase: 4) == operations)
    }

    @Test("text IDs of one record hash alike but stay distinct keys")
    func textIDHashing() {
        let record = RecordID(replica: ReplicaID(1), counter: 4)
        let content = TextID(record: record, field: "content")
        let notes = TextID(record: record, field: "notes")
        #expect(content.hashValue == notes.hashValue)
        #expect(content != notes)
        let slots = [content: 1, notes: 2, TextID(record: RecordID(replica: ReplicaID(2), counter: 4), field: "content"): 3]
        #expect(slots.count == 3)
        #expect(slots[content] == 1 && slots[notes] == 2)
        #expect(slots[TextID(record: record, field: "content")] == 1)
        #expect(slots[TextID(record: record, field: "Content")] == nil)
    }

    @Test("a change that names only known names is known; one new name makes it unknown")
    func knownNames() {
        let replica = ReplicaID(1)
        let record = RecordID(replica: replica, counter: 0)
        let typing = Change(
            id: ChangeID(replica: replica, counter: 10), count: 1, lamport: 3, dependencies: VersionVector(),
            operations: [.text(TextID(record: record, field: "content"), [])])
        let fields = Change(
            id: ChangeID(replica: replica, counter: 11), count: 1, lamport: 4, dependencies: VersionVector(),
            operations: [.fields(record: record, type: "file", values: ["name": [1], "status": [2]])])
        var names = ReplicaNames()
        #expect(!names.knowsEveryName(in: .change(typing)))
        _ = names.learn(from: typing)
        #expect(names.knowsEveryName(in: .change(typing)))
        #expect(!names.knowsEveryName(in: .change(fields)))
        _ = names.learn(from: fields)
        #expect(names.knowsEveryName(in: .change(fields)))
        // A write of one more field is not known until learned.
        var more = fields
        more.operations = [.fields(record: record, type: "file", values: ["name": [1], "tags": [3]])]
        #expect(!names.knowsEveryName(in: .change(more)))
        #expect(names.learn(from: more) == [names.count - 1])
        #expect(names.knowsEveryName(in: .change(more)))
    }
}
