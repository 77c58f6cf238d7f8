import QuireCore
import Testing

@Suite("Text convergence")
struct TextConvergenceTests {
    /// Replicas edit at random and exchange encoded deltas that get lost, reordered,
    /// duplicated and delayed; after a final full exchange all must be identical.
    @Test("2–5 replicas with random edits and messy delivery converge", arguments: 0..<12)
    func randomSchedules(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed))
        let replicaCount = 2 + seed % 4
        let root = ReplicatedText(replica: ReplicaID(1))
        try root.insert("start", at: 0)
        let replicas = [root] + (1..<replicaCount).map { root.fork(as: ReplicaID(UInt64($0) + 1)) }
        var inFlight: [(to: Int, delta: [UInt8])] = []
        var sentVersions = Array(repeating: root.version, count: replicaCount)
        for _ in 0..<150 {
            let actor = Int(random.next() % UInt64(replicaCount))
            switch random.next() % 10 {
            case 0..<6:
                try randomEdit(replicas[actor], using: &random)
            case 6..<8:
                // Send what changed since the last send to a random peer, sometimes twice.
                let peer = Int(random.next() % UInt64(replicaCount))
                let delta = replicas[actor].encodedOperations(since: sentVersions[actor])
                if random.next() % 4 != 0 { sentVersions[actor] = replicas[actor].version }  // else: resent later
                inFlight.append((peer, delta))
                if random.next() % 5 == 0 { inFlight.append((peer, delta)) }
            default:
                // Deliver a random message (out of order); some are dropped.
                guard !inFlight.isEmpty else { continue }
                let message = inFlight.remove(at: Int(random.next() % UInt64(inFlight.count)))
                if random.next() % 6 != 0 { try replicas[message.to].applyEncoded(message.delta) }
            }
        }
        // Full exchange, in a random order, through the encoded form.
        for _ in 0..<2 {
            for receiver in replicas.shuffled(using: &random) {
                for sender in replicas where sender !== receiver {
                    try receiver.applyEncoded(sender.encodedOperations(since: receiver.version))
                }
            }
        }
        #expect(convergenceFailures(replicas) == [], "seed \(seed)")
        #expect(replicas.allSatisfy { $0.pendingCount == 0 })
    }

    @Test("the convergence checker reports replicas that differ")
    func checkerFails() throws {
        let a = ReplicatedText(replica: ReplicaID(1))
        try a.insert("same", at: 0)
        let b = a.fork(as: ReplicaID(2))
        #expect(convergenceFailures([a, b]).isEmpty)
        try b.insert("!", at: 4)
        #expect(!convergenceFailures([a, b]).isEmpty)
        // A replica that holds the same text but has seen a different history differs too.
        let c = a.fork(as: ReplicaID(3))
        try c.insert("x", at: 0)
        try c.delete(0..<1)
        #expect(c.string == a.string)
        #expect(!convergenceFailures([a, c]).isEmpty)
    }

    @Test("a state round-trips: same text and version, and editing and merging carry on")
    func stateRoundTrip() throws {
        var random = SeededRandom(seed: 42)
        let a = ReplicatedText(replica: ReplicaID(1))
        let b = ReplicatedText(replica: ReplicaID(2))
        for _ in 0..<200 {
            try randomEdit(random.next() % 2 == 0 ? a : b, using: &random)
            if random.next() % 10 == 0 { a.merge(b) }
        }
        let loaded = try ReplicatedText(replica: ReplicaID(1), state: a.encodedState())
        #expect(loaded.string == a.string)
        #expect(loaded.version == a.version)
        #expect(loaded.encodedState() == a.encodedState())
        try a.insert("tail", at: a.count)
        try loaded.insert("tail", at: loaded.count)
        #expect(loaded.operations(since: VersionVector()) == a.operations(since: VersionVector()))
        loaded.merge(b)
        a.merge(b)
        #expect(loaded.string == a.string)
    }

    @Test("encoded operations round-trip exactly, and a keystroke is a few dozen bytes at most")
    func operationEncoding() throws {
        let a = ReplicatedText(replica: ReplicaID(0xDEAD_BEEF))
        try a.insert("Hello, 世界 😀", at: 0)
        try a.delete(2..<4)
        let operations = a.operations(since: VersionVector())
        #expect(try TextOperationCoding.decode(TextOperationCoding.encode(operations)) == operations)
        let before = a.version
        try a.insert("x", at: 5)
        #expect(a.encodedOperations(since: before).count <= 24)
    }

    @Test("truncated or corrupted operations are refused and change nothing")
    func malformedOperations() throws {
        let a = ReplicatedText(replica: ReplicaID(1))
        try a.insert("abc😀", at: 0)
        try a.delete(1..<2)
        let bytes = a.encodedOperations(since: VersionVector())
        for cut in 0..<bytes.count {
            let b = ReplicatedText(replica: ReplicaID(2))
            #expect(throws: TextError.self) { try b.applyEncoded(Array(bytes[..<cut])) }
            #expect(b.version == VersionVector() && b.string.isEmpty)
        }
        var random = SeededRandom(seed: 7)
        for _ in 0..<300 {
            var corrupted = bytes
            corrupted[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            let b = ReplicatedText(replica: ReplicaID(2))
            // Either refused, or (if the flip kept it well formed) applied without crashing.
            _ = try? b.applyEncoded(corrupted)
        }
        let state = a.encodedState()
        for cut in 0..<state.count {
            #expect(throws: TextError.self) { _ = try ReplicatedText(replica: ReplicaID(3), state: Array(state[..<cut])) }
        }
        for _ in 0..<300 {
            var corrupted = state
            corrupted[Int(random.next() % UInt64(state.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            if let loaded = try? ReplicatedText(replica: ReplicaID(3), state: corrupted) {
                _ = loaded.string  // a state that still validates must be usable
                try? loaded.insert("x", at: 0)
            }
        }
    }

    /// Found by the `text-decoding` fuzz target: a state naming one replica twice crashed
    /// the loader with an index out of range.
    @Test("a state that names one replica twice is refused (fuzz regression)")
    func duplicateReplicaState() {
        let state: [UInt8] = [1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 13, 18, 72, 101, 108, 108, 111, 44, 32, 228, 184, 150, 231, 149, 140, 32, 240, 159, 152, 128, 2, 0, 0, 11, 0, 18, 1, 0, 2, 0, 10, 1, 0, 0, 0, 0, 0, 0, 0, 2, 2, 120, 121, 1, 20, 0, 2, 0, 0, 0, 1, 0, 2, 5, 0, 0, 0, 1, 0, 20, 1, 0, 2, 0, 0, 10, 0, 51, 2, 0, 1, 1, 1, 2, 3, 0, 2, 2, 2, 2, 2, 0, 4, 7, 4, 2]
        #expect(throws: TextError.self) { _ = try ReplicatedText(replica: ReplicaID(9), state: state) }
    }
}
