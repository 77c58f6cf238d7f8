import Quire
import QuireCore
import Testing

/// Change IDs kept as ranges must read exactly like the array of the same IDs.
@Suite("Change IDs kept as ranges")
struct ChangeIDsTests {
    static let a = ReplicaID(0xA), b = ReplicaID(0xB)

    /// A seeded mix of consecutive runs, gaps, replica switches and repeats.
    static func sample(seed: UInt64) -> [ChangeID] {
        var state = seed
        func next(_ bound: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % bound
        }
        var ids: [ChangeID] = []
        var counters = [a: UInt64(0), b: UInt64(0)]
        for _ in 0..<300 {
            let replica = next(2) == 0 ? a : b
            switch next(4) {
            case 0: counters[replica]! += next(5)  // a gap
            case 1: if let last = ids.last { ids.append(last); continue }  // a repeat
            default: break
            }
            for _ in 0..<(1 + next(8)) {
                ids.append(ChangeID(replica: replica, counter: counters[replica]!))
                counters[replica]! += 1
            }
        }
        return ids
    }

    @Test("built by appends, it reads as the array: count, every index, iteration, equality", arguments: [1, 2, 3] as [UInt64])
    func readsAsArray(seed: UInt64) {
        let ids = Self.sample(seed: seed)
        let list = ChangeIDs(ids)
        #expect(list.count == ids.count)
        #expect(list == ids)
        #expect(ids == list)
        #expect(Array(list) == ids)
        for position in ids.indices where list[position] != ids[position] {
            Issue.record("index \(position): \(list[position]) instead of \(ids[position])")
        }
        #expect(list.reversed().elementsEqual(ids.reversed()))
        #expect(Set(list) == Set(ids))
    }

    @Test("one form however it was built: ranges, single IDs and joined lists are equal and hash alike")
    func oneForm() {
        var byRanges = ChangeIDs(replica: Self.a, counters: 0..<5)
        byRanges.append(replica: Self.b, counters: 3..<4)
        byRanges.append(replica: Self.b, counters: 4..<9)
        var bySingles = ChangeIDs()
        for counter in 0..<5 as Range<UInt64> { bySingles.append(ChangeID(replica: Self.a, counter: counter)) }
        for counter in 3..<9 as Range<UInt64> { bySingles.append(ChangeID(replica: Self.b, counter: counter)) }
        var joined: ChangeIDs = [ChangeID(replica: Self.a, counter: 0)]
        joined += ChangeIDs(replica: Self.a, counters: 1..<5)
        joined += [ChangeID(replica: Self.b, counter: 3)]
        joined += ChangeIDs(replica: Self.b, counters: 4..<9)
        #expect(byRanges == bySingles && bySingles == joined)
        #expect(byRanges.hashValue == joined.hashValue)
        #expect(byRanges.count == 11)
        #expect(byRanges != ChangeIDs(replica: Self.a, counters: 0..<11))
        // An empty range adds nothing.
        byRanges.append(replica: Self.a, counters: 7..<7)
        #expect(byRanges == bySingles)
    }

    @Test("an empty list, and a long one's description names how many more")
    func emptyAndDescription() {
        let empty = ChangeIDs()
        #expect(empty.isEmpty && empty.count == 0 && empty.first == nil && empty == [])
        let long = ChangeIDs(replica: Self.a, counters: 0..<25)
        #expect(long.description.hasSuffix("… 15 more]"))
        #expect(long.last == ChangeID(replica: Self.a, counter: 24))
    }
}
