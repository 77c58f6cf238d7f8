@testable import QuireCore
import Testing

/// A loaded state checks its replicas' logs in full but keeps them encoded until
/// something uses them; these pin down that nobody can tell the difference.
@Suite("Text state: logs decoded on first use")
struct TextStateLogTests {
    /// The merged two-replica document of ``TextStateTests``, its state, and a fresh load
    /// of it as `replica`.
    static func loaded(as replica: ReplicaID) throws -> (original: ReplicatedText, state: [UInt8], loaded: ReplicatedText) {
        let original = try TextStateTests.mergedDocument()
        let state = original.encodedState()
        return (original, state, try ReplicatedText(replica: replica, state: state))
    }

    @Test("reading a loaded text leaves its logs encoded; using the history decodes them")
    func readingKeepsLogsEncoded() throws {
        let (original, _, loaded) = try Self.loaded(as: ReplicaID(3))
        #expect(loaded.logsAreEncoded)
        #expect(loaded.string == original.string)
        #expect(loaded.count(in: .utf16) == original.count(in: .utf16))
        #expect(try loaded.string(in: 1..<5) == original.string(in: 1..<5))
        #expect(loaded.version == original.version)
        #expect(loaded.wordCount == original.wordCount)
        let encodedFootprint = loaded.memoryFootprint
        #expect(loaded.logsAreEncoded)
        _ = loaded.operations(since: VersionVector())
        #expect(!loaded.logsAreEncoded)
        #expect(loaded.memoryFootprint > encodedFootprint, "decoded logs are counted")
    }

    @Test("operations from decoded-on-demand logs are the original's, from any version")
    func operationsMatch() throws {
        let (original, _, _) = try Self.loaded(as: ReplicaID(3))
        let full = original.version
        var versions = [VersionVector(), full]
        for fraction in [4, 2] {
            var counters: [ReplicaID: UInt64] = [:]
            for replica in [ReplicaID(1), ReplicaID(2)] { counters[replica] = full[replica] / UInt64(fraction) }
            versions.append(VersionVector(counters))
        }
        for version in versions {
            let (_, _, fresh) = try Self.loaded(as: ReplicaID(3))
            #expect(fresh.operations(since: version) == original.operations(since: version))
            #expect(fresh.operations(since: VersionVector(), upTo: version) == original.operations(since: VersionVector(), upTo: version))
        }
        // Loaded as a replica the state already holds: its own operations as well.
        let own = try ReplicatedText(replica: ReplicaID(1), state: original.encodedState())
        #expect(own.localOperations(since: full[ReplicaID(1)] / 2) == original.localOperations(since: full[ReplicaID(1)] / 2))
    }

    @Test("a loaded state re-encodes byte for byte, before and after its logs are decoded")
    func reencodesIdentically() throws {
        // As a replica the state holds, so no empty agent is added.
        let original = try TextStateTests.mergedDocument()
        let state = original.encodedState()
        let loaded = try ReplicatedText(replica: ReplicaID(2), state: state)
        #expect(loaded.encodedState() == state)
        #expect(!loaded.logsAreEncoded)
        #expect(loaded.encodedState() == state)
        let reloaded = try ReplicatedText(replica: ReplicaID(1), state: loaded.encodedState())
        _ = reloaded.operations(since: VersionVector())
        #expect(reloaded.encodedState() == state)
    }

    @Test("edits, merges and forks after a load behave as on the original")
    func editingAfterLoad() throws {
        // Replica 1 continues its own log (its next insertion may extend the last entry);
        // replica 3 is new to the state.
        for replica in [ReplicaID(1), ReplicaID(3)] {
            let original = try TextStateTests.mergedDocument()
            let copy = original.fork(as: replica)
            let loaded = try ReplicatedText(replica: replica, state: original.encodedState())
            var random = SeededRandom(seed: 5)
            var again = random
            for _ in 0..<40 {
                try randomEdit(copy, using: &random)
                try randomEdit(loaded, using: &again)
            }
            #expect(loaded.string == copy.string)
            #expect(loaded.operations(since: original.version) == copy.operations(since: original.version))
            original.merge(loaded)
            #expect(original.string == loaded.string)
            let fork = try ReplicatedText(replica: ReplicaID(1), state: original.encodedState()).fork(as: ReplicaID(4))
            #expect(convergenceFailures([fork, original]).isEmpty)
        }
    }

    @Test("a remote operation applied right after a load decodes the logs first")
    func applyAfterLoad() throws {
        let (original, state, _) = try Self.loaded(as: ReplicaID(3))
        let remote = original.fork(as: ReplicaID(5))
        try remote.insert("remote", at: 0)
        let loaded = try ReplicatedText(replica: ReplicaID(3), state: state)
        try loaded.apply(remote.operations(since: original.version))
        #expect(loaded.string == remote.string)
        #expect(loaded.operations(since: VersionVector()) == remote.operations(since: VersionVector()))
    }

    // MARK: Malformed logs

    /// A state written by hand: per agent its ID, next counter, content and log entries,
    /// then the runs.
    static func state(agents: [(id: UInt64, counter: UInt64, content: String, log: [[UInt8]])], runs: [[UInt8]]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(byte: 1)
        writer.write(varint: UInt64(agents.count))
        for agent in agents {
            writer.write(raw: withUnsafeBytes(of: agent.id.littleEndian) { Array($0) })
            writer.write(varint: agent.counter)
            writer.write(lengthPrefixed: Array(agent.content.utf8))
            writer.write(varint: UInt64(agent.log.count))
            for entry in agent.log { writer.write(raw: entry) }
        }
        writer.write(varint: UInt64(runs.count))
        for run in runs { writer.write(raw: run) }
        return writer.bytes
    }

    /// Agent 0 inserts "a" after agent 1's character `counter`; agent 1 inserted "b".
    static func laterAgentReference(counter: UInt8) -> [UInt8] {
        state(
            agents: [
                // flags: insertion, left origin of another agent (2 << 1) · gap · length ·
                // origin agent · origin counter · content offset · UTF-8 length
                (1, 1, "a", [[4, 0, 1, 1, counter, 0, 1]]),
                (2, 1, "b", [[0, 0, 1, 0, 1]]),
            ],
            // flags · agent · counter · length · content offset · references
            runs: [[0, 1, 0, 1, 0], [4, 0, 0, 1, 0, 1, 0]])
    }

    @Test("a log reference to a later agent's character is checked once that agent's log is read")
    func laterAgentReferences() throws {
        #expect(try ReplicatedText(replica: ReplicaID(9), state: Self.laterAgentReference(counter: 0)).string == "ba")
        #expect(throws: TextError.self) {
            _ = try ReplicatedText(replica: ReplicaID(9), state: Self.laterAgentReference(counter: 1))
        }
    }

    @Test("a log reference to a later entry of the same log must name one of its insertions")
    func laterEntryReferences() throws {
        // "a" whose right parent is "b", inserted by the next entry (counter 1; distance
        // back −1, zigzag 1); "b" follows "a" (distance back 1, zigzag 2).
        let valid = Self.state(
            agents: [(1, 2, "ab", [[1 << 3, 0, 1, 1, 0, 1], [1 << 1, 0, 1, 2, 1, 1]])],
            runs: [[1 << 3, 0, 0, 1, 0, 1], [1 << 1, 0, 1, 1, 1, 2]])
        let text = try ReplicatedText(replica: ReplicaID(9), state: valid)
        #expect(text.string == "ab")
        #expect(text.operations(since: VersionVector()).count == 2)
        // The same, but counter 1 is a deletion (of "a"): not a character.
        let invalid = Self.state(
            agents: [(1, 2, "a", [[1 << 3, 0, 1, 1, 0, 1], [1, 0, 1, 0, 0]])],
            runs: [[1, 0, 0, 1, 0]])
        #expect(throws: TextError.self) { _ = try ReplicatedText(replica: ReplicaID(9), state: invalid) }
    }

    @Test("whatever loads after any one-byte change decodes its logs and survives a save and load")
    func everyByteChange() throws {
        let a = ReplicatedText(replica: ReplicaID(1))
        try a.insert("héllo wörld 😀", at: 0)
        let b = a.fork(as: ReplicaID(2))
        try b.delete(2..<5)
        try b.insert("zz", at: 1)
        try a.insert("abc", at: 3)
        a.merge(b)
        try a.delete(0..<2)
        let state = a.encodedState()
        var loadedChanged = 0
        for position in state.indices {
            for value: UInt8 in [0, 1, 2, 3, 4, 0x7F, 0x80, 0xFF, state[position] &+ 1, state[position] &- 1] where value != state[position] {
                var changed = state
                changed[position] = value
                guard let loaded = try? ReplicatedText(replica: ReplicaID(3), state: changed) else { continue }
                loadedChanged += 1
                let operations = loaded.operations(since: VersionVector())
                #expect(operations.reduce(0) { $0 + $1.length } == loaded.version.counters.values.reduce(0) { $0 + Int($1) })
                let again = try ReplicatedText(replica: ReplicaID(3), state: loaded.encodedState())
                #expect(again.string == loaded.string)
                #expect(again.operations(since: VersionVector()) == operations)
            }
        }
        #expect(loadedChanged < state.count * 4, "\(loadedChanged) changed states loaded")
    }
}
