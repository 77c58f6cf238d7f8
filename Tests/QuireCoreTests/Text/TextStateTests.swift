import QuireCore
import Testing

@Suite("Text state: saving and loading")
struct TextStateTests {
    /// Two replicas' concurrent edits merged, so the state holds several agents, deletions
    /// of each other's characters and non-ASCII text.
    static func mergedDocument() throws -> ReplicatedText {
        let a = ReplicatedText(replica: ReplicaID(1))
        let b = ReplicatedText(replica: ReplicaID(2))
        var random = SeededRandom(seed: 31)
        for round in 0..<300 {
            try randomEdit(a, using: &random)
            try randomEdit(b, using: &random)
            if round % 25 == 0 {
                a.merge(b)
                b.merge(a)
            }
        }
        a.merge(b)
        return a
    }

    @Test("a loaded state reads, versions and re-encodes exactly as the original")
    func roundTrip() throws {
        let a = try Self.mergedDocument()
        let state = a.encodedState()
        let loaded = try ReplicatedText(replica: ReplicaID(3), state: state)
        #expect(loaded.string == a.string)
        #expect(loaded.version == a.version)
        #expect(loaded.encodedState().count >= state.count)  // plus the loading replica's empty slot
        #expect(loaded.operations(since: VersionVector()) == a.operations(since: VersionVector()))
        try loaded.insert("x", at: loaded.count / 2)
        a.merge(loaded)
        #expect(a.string == loaded.string)
    }

    @Test("every truncation of a state throws, and corrupted states never crash")
    func malformed() throws {
        let a = ReplicatedText(replica: ReplicaID(1))
        try a.insert("héllo wörld 😀", at: 0)
        let b = a.fork(as: ReplicaID(2))
        try b.delete(2..<5)
        try a.insert("abc", at: 3)
        a.merge(b)
        let state = a.encodedState()
        for cut in 0..<state.count {
            #expect(throws: TextError.self) { _ = try ReplicatedText(replica: ReplicaID(3), state: Array(state[..<cut])) }
        }
        var random = SeededRandom(seed: 17)
        var loadedCorrupt = 0
        for _ in 0..<2_000 {
            var corrupted = state
            for _ in 0..<1 + Int(random.next() % 3) {
                corrupted[Int(random.next() % UInt64(state.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            guard let loaded = try? ReplicatedText(replica: ReplicaID(3), state: corrupted) else { continue }
            // Whatever still validates is a usable text that survives a save and load.
            loadedCorrupt += 1
            try? loaded.insert("x", at: 0)
            let again = try ReplicatedText(replica: ReplicaID(3), state: loaded.encodedState())
            #expect(again.string == loaded.string)
        }
        #expect(loadedCorrupt < 1_000, "\(loadedCorrupt) of 2,000 corrupted states loaded")
    }

    /// Found by the `text-decoding` fuzz target: an insertion record claiming fewer UTF-8
    /// bytes than its characters take loaded, and the next insertion then made a state
    /// that did not load again. Insertions must now tile their agent's content exactly.
    @Test("an insertion record whose UTF-8 length is not its characters' is refused (fuzz regression)")
    func insertionContentMismatch() {
        let state: [UInt8] = [1, 2, 9, 0, 0, 0, 0, 0, 0, 0, 13, 18, 72, 101, 108, 108, 111, 44, 32, 228, 184, 150, 231, 149, 140, 32, 240, 159, 152, 128, 2, 0, 0, 11, 0, 16, 1, 0, 2, 0, 2, 97, 0, 0, 0, 0, 0, 0, 0, 2, 2, 120, 121, 1, 20, 0, 2, 0, 0, 0, 1, 0, 2, 5, 0, 0, 0, 1, 0, 20, 1, 0, 2, 0, 0, 0, 0, 1, 2, 0, 1, 1, 1, 0, 8, 0, 2, 2, 9, 2, 2, 0, 4, 7, 4, 2]
        #expect(throws: TextError.self) { _ = try ReplicatedText(replica: ReplicaID(9), state: state) }
    }
}
