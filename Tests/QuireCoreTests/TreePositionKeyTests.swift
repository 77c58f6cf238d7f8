import Testing
@testable import QuireCore

@Suite("Tree: position keys and encoding")
struct TreePositionKeyTests {
    @Test("a key between two keys sorts strictly between them and never ends in 0x00")
    func between() {
        var random = SplitMix64(seed: 42)
        var keys: [PositionKey] = [PositionKey.between(nil, and: nil, using: &random)]
        for step in 0..<2_000 {
            let place = Int(random.next() % UInt64(keys.count + 1))
            let lower = place > 0 ? keys[place - 1] : nil
            let upper = place < keys.count ? keys[place] : nil
            let key = PositionKey.between(lower, and: upper, using: &random)
            if let lower { #expect(lower < key, "step \(step)") }
            if let upper { #expect(key < upper, "step \(step)") }
            #expect(key.bytes.last != 0)
            keys.insert(key, at: place)
        }
        #expect(keys == keys.sorted())
        #expect(keys.map(\.bytes.count).max()! < 40)
    }

    @Test("appending and prepending repeatedly keeps keys short")
    func shortKeys() {
        var random = SplitMix64(seed: 1)
        var last = PositionKey.between(nil, and: nil, using: &random)
        var first = last
        for _ in 0..<1_000 {
            last = PositionKey.between(last, and: nil, using: &random)
            first = PositionKey.between(nil, and: first, using: &random)
        }
        #expect(last.bytes.count < 30)
        #expect(first.bytes.count < 30)
    }

    @Test("bounds in the wrong order, equal, or ending in 0x00 still give a key after the lower one")
    func degenerateBounds() {
        var random = SplitMix64(seed: 3)
        let a = PositionKey([5]), b = PositionKey([5, 0])
        #expect(a < PositionKey.between(a, and: a, using: &random))
        #expect(a < PositionKey.between(a, and: b, using: &random))
        #expect(b < PositionKey.between(b, and: a, using: &random))
    }

    @Test("operations round-trip through their encoding")
    func roundTrip() throws {
        let operation = TreeOperation(
            id: OperationID(replica: ReplicaID(.max), counter: 12), lamport: 1 << 40,
            node: NodeID(replica: ReplicaID(3), counter: 4), parent: .deletedRoot,
            position: PositionKey([1, 0, 255]), metadata: bytes("Chapter 1"))
        var reader = ByteReader(operation.encoded + operation.encoded)
        #expect(try TreeOperation.decode(from: &reader) == operation)
        #expect(try TreeOperation.decode(from: &reader) == operation)
        #expect(reader.isAtEnd)
    }

    @Test("every truncation of an encoded operation, and an overlong position key, throw DecodingError")
    func malformed() {
        let operation = TreeOperation(
            id: OperationID(replica: ReplicaID(7), counter: 1), lamport: 3, node: NodeID(replica: ReplicaID(7), counter: 1),
            parent: .root, position: PositionKey([9, 9]), metadata: bytes("name"))
        let encoded = operation.encoded
        for length in 0..<encoded.count {
            var reader = ByteReader(Array(encoded.prefix(length)))
            #expect(throws: DecodingError.self) { try TreeOperation.decode(from: &reader) }
        }
        var long = operation
        long.position = PositionKey(Array(repeating: 1, count: PositionKey.maximumLength + 1))
        var reader = ByteReader(long.encoded)
        #expect(throws: DecodingError.self) { try TreeOperation.decode(from: &reader) }
    }
}
