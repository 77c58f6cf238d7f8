import Quire
import QuireCore
import Testing

@Suite("Identity hashing: replica, record and text IDs in sets and dictionaries")
struct IdentityHashingTests {
    /// IDs of a few replicas with consecutive counters, as a store holds them.
    static let records: [RecordID] = ([0x1, 0xFFFF_FFFF_FFFF_FFFF, 0x3A9D_52C0_1B7E_4F66] as [UInt64]).flatMap { replica in
        (0..<2_000).map { RecordID(replica: ReplicaID(replica), counter: UInt64($0)) }
    }

    @Test("equal IDs hash alike; dictionaries find every ID and only it")
    func lookups() {
        var byRecord: [RecordID: Int] = [:]
        var byText: [TextID: Int] = [:]
        var byReplica: [ReplicaID: Int] = [:]
        for (index, id) in Self.records.enumerated() {
            byRecord[id] = index
            byText[TextID(record: id, field: index.isMultiple(of: 2) ? "body" : "title")] = index
            byReplica[ReplicaID(id.counter &* 0x9E37_79B9_7F4A_7C15)] = index
        }
        #expect(byRecord.count == Self.records.count)
        #expect(byText.count == Self.records.count)
        for (index, id) in Self.records.enumerated() {
            let copy = RecordID(replica: ReplicaID(id.replica.rawValue), counter: id.counter)
            #expect(copy.hashValue == id.hashValue)
            #expect(byRecord[copy] == index)
            #expect(byText[TextID(record: copy, field: index.isMultiple(of: 2) ? "body" : "title")] == index)
            // Same record, the other field: another text.
            #expect(byText[TextID(record: copy, field: index.isMultiple(of: 2) ? "title" : "body")] == nil)
        }
        #expect(byRecord[RecordID(replica: ReplicaID(2), counter: 0)] == nil)
        #expect(byReplica[ReplicaID(0x9E37_79B9_7F4A_7C15)] != nil)
        #expect(Set(Self.records.map(\.replica)).count == 3)
    }

    @Test("the replica and the counter both reach the hash: swapping them or moving one changes it")
    func bothParts() {
        var hashes = Set<Int>()
        for id in Self.records { hashes.insert(id.hashValue) }
        // Sixty-four-bit hashes of six thousand distinct IDs: a collision means a part is ignored.
        #expect(hashes.count == Self.records.count)
        let id = RecordID(replica: ReplicaID(5), counter: 9)
        #expect(id.hashValue != RecordID(replica: ReplicaID(9), counter: 5).hashValue)
        #expect(ReplicaID(5).hashValue == ReplicaID(5).hashValue)
        #expect(ReplicaID(5).hashValue != ReplicaID(6).hashValue)
    }
}
