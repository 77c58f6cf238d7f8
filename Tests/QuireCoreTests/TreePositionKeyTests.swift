import Testing
@testable import QuireCore

@Suite("Tree: position keys and encoding")
struct TreePositionKeyTests {
    @Test("a key between two keys sorts strictly between them, whichever neighbours' runs it may continue")
    func between() {
        var random = SplitMix64(seed: 42)
        var keys: [PositionKey] = [PositionKey.between(nil, and: nil, using: &random)]
        for step in 0..<5_000 {
            let place = Int(random.next() % UInt64(keys.count + 1))
            let lower = place > 0 ? keys[place - 1] : nil
            let upper = place < keys.count ? keys[place] : nil
            let continuing = PositionKey.Neighbours(rawValue: UInt8(random.next() % 4))
            let key = PositionKey.between(lower, and: upper, continuing: continuing, using: &random)
            if let lower { #expect(lower < key, "step \(step)") }
            if let upper { #expect(key < upper, "step \(step)") }
            #expect(key.components != nil, "step \(step): \(key) is not an integer sequence")
            keys.insert(key, at: place)
        }
        #expect(keys == keys.sorted())
        #expect(keys.map(\.bytes.count).max()! <= 64)
    }

    @Test("integers round-trip through their tokens, and tokens sort like the integers")
    func tokens() {
        let edges: [Int64] = [.min, .min + 1, -(1 << 40), -65_601, -65_600, -321, -320, -66, -65, -64, -1, 0, 1, 63, 64, 65,
                              319, 320, 65_599, 65_600, 1 << 40, .max - 1, .max]
        for value in edges {
            let key = PositionKey(encoding: [value])
            #expect(key.components == [value], "\(value) → \(key)")
        }
        var random = SplitMix64(seed: 9)
        for _ in 0..<20_000 {
            // Mixed magnitudes: shift a random word by a random amount, random sign.
            func draw() -> Int64 { Int64(bitPattern: random.next()) >> Int64(random.next() % 64) }
            let a = [draw(), draw()].prefix(Int(random.next() % 2) + 1), b = [draw(), draw()].prefix(Int(random.next() % 2) + 1)
            let ka = PositionKey(encoding: Array(a)), kb = PositionKey(encoding: Array(b))
            #expect((ka < kb) == a.lexicographicallyPrecedes(b), "\(a) vs \(b)")
            #expect(ka.components == Array(a))
        }
    }

    @Test("bytes that are not shortest-form tokens are not read as integers")
    func nonCanonicalTokens() {
        #expect(PositionKey([0xC1, 0x00, 0x05]).components == nil)  // 69 in two bytes
        #expect(PositionKey([0x3E, 0xFF, 0xFF]).components == nil)  // −65 in two bytes
        #expect(PositionKey([0xC0]).components == nil)              // truncated
        #expect(PositionKey([0x00, 0x80]).components == nil)        // not a head byte
        #expect(PositionKey([0xC7, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]).components == nil)  // beyond Int64
        #expect(PositionKey([]).components == [])
    }

    @Test("continuing a run: a million appends stay within 8 bytes, 100,000 inserts at one spot within 64")
    func runsStayShort() {
        var random = SplitMix64(seed: 1)
        var last = PositionKey.between(nil, and: nil, using: &random)
        var first = last
        for _ in 0..<1_000_000 {
            let next = PositionKey.between(last, and: nil, continuing: .lower, using: &random)
            #expect(last < next)
            last = next
        }
        #expect(last.bytes.count <= 8)
        for _ in 0..<100_000 { first = PositionKey.between(nil, and: first, continuing: .upper, using: &random) }
        #expect(first.bytes.count <= 8)
        // At one spot: always between a fixed key and the one inserted before.
        let anchor = PositionKey.between(nil, and: nil, using: &random)
        var newest = PositionKey.between(anchor, and: nil, continuing: .lower, using: &random)
        var longest = 0
        for step in 0..<100_000 {
            let key = PositionKey.between(anchor, and: newest, continuing: [.lower, .upper], using: &random)
            guard anchor < key && key < newest else { Issue.record("step \(step): not between"); return }
            newest = key
            longest = max(longest, key.bytes.count)
        }
        #expect(longest <= 64)
    }

    @Test("a neighbour of another replica is never continued, so concurrent runs start apart")
    func foreignNeighbours() {
        var random = SplitMix64(seed: 5)
        let lower = PositionKey(encoding: [10]), upper = PositionKey(encoding: [11])
        let a = PositionKey.between(lower, and: upper, using: &random)
        let b = PositionKey.between(lower, and: upper, using: &random)
        #expect(a != b)
        #expect(a.components?.count == 2 && b.components?.count == 2)
        // Owning a neighbour whose continuation would leave the gap starts a run instead.
        let c = PositionKey.between(lower, and: upper, continuing: [.lower, .upper], using: &random)
        #expect(lower < c && c < upper)
    }

    @Test("keys from before format 2 (arbitrary bytes) still get a key between them")
    func legacyBounds() {
        var random = SplitMix64(seed: 3)
        let a = PositionKey([5]), b = PositionKey([5, 0])
        #expect(a < PositionKey.between(a, and: a, using: &random))
        #expect(a < PositionKey.between(a, and: b, using: &random))
        #expect(b < PositionKey.between(b, and: a, using: &random))
        let old = PositionKey([0x80, 0x13, 0xA7]), older = PositionKey([0x81, 0x02])
        for continuing in [PositionKey.Neighbours(), .lower, .upper, [.lower, .upper]] {
            let key = PositionKey.between(old, and: older, continuing: continuing, using: &random)
            #expect(old < key && key < older)
        }
        let mixed = PositionKey(encoding: [0x01])
        let key = PositionKey.between(PositionKey([0x20, 0x99]), and: mixed, using: &random)
        #expect(PositionKey([0x20, 0x99]) < key && key < mixed)
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
