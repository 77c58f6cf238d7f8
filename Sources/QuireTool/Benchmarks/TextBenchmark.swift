import Foundation
import Quire
import QuireCore

/// Measures the text CRDT on one editing trace: local replay, encoding and merging the
/// whole history, saving and loading the state, reading an old version, memory, and
/// keystroke delta size; and, in a store, listing the history of the trace typed one
/// change per keystroke.
struct TextBenchmark {
    var trace: EditingTrace
    var traceName: String
    var runs = 5
    /// Where the store for the history figures is made (a fresh subdirectory); `nil`: not
    /// measured.
    var directory: String?

    /// One field per figure; times in milliseconds, sizes in bytes.
    struct Result: Encodable {
        var benchmark = "text"
        var trace: String
        var ops: Int
        var runs: Int
        var local_replay_ms: Double
        var encode_ms: Double
        var history_bytes: Int
        var history_deflated_bytes: Int
        var merge_ms: Double
        var state_bytes: Int
        var load_ms: Double
        var checkout_ms: Double
        var checkout_replay_ms: Double
        var rss_mb: Double
        var keystroke_delta_bytes: Double
        /// Listing the store history of the trace typed one change per keystroke
        /// (sequential traces only; absent for concurrent ones).
        var history_ms: Double?
        /// The entries that history lists: one per change.
        var history_entries: Int?
        var end_chars: Int
        var correct: Bool
    }

    /// Told after each measured replay (for a progress bar).
    var progress: ((_ done: Int, _ total: Int) -> Void)?

    func run() throws -> Result {
        var replayTimes: [Double] = []
        var replica = try trace.replay()
        for run in 0..<runs {
            var fresh: ReplicatedText?
            replayTimes.append(try Timing.milliseconds { fresh = try trace.replay() })
            if let fresh { replica = fresh }
            progress?(run + 1, runs)
        }
        let text = replica.string
        let correct = text == trace.endContent

        var history: [UInt8] = []
        let encodeTimes = (0..<runs).map { _ in
            Timing.milliseconds { history = replica.encodedOperations(since: VersionVector()) }
        }
        var mergedText = ""
        let mergeTimes = try (0..<runs).map { _ in
            try Timing.milliseconds {
                let merged = ReplicatedText(replica: ReplicaID(UInt64.max))
                try merged.applyEncoded(history)
                mergedText = merged.string
            }
        }
        let state = replica.encodedState()
        var loadedText = ""
        let loadTimes = try (0..<runs).map { _ in
            try Timing.milliseconds {
                let loaded = try ReplicatedText(replica: ReplicaID(UInt64.max), state: state)
                loadedText = loaded.string
            }
        }
        // Halfway through the history by operation count (for concurrent traces, the
        // causally closed version within every replica's half).
        let half = replica.causallyClosedVersion(
            within: VersionVector(replica.version.counters.mapValues { $0 / 2 }))
        var checkoutText = ""
        let checkoutTimes = try (0..<runs).map { _ in
            try Timing.milliseconds { checkoutText = try replica.string(at: half) }
        }
        var replayedText = ""
        let checkoutReplayTimes = try (0..<runs).map { _ in
            try Timing.milliseconds { replayedText = try replica.fork(at: half, as: ReplicaID(UInt64.max)).string }
        }
        let memory = try ReplicatedText(replica: ReplicaID(UInt64.max), state: state).memoryFootprint
        let storeHistory = try storeHistoryTimes()
        return Result(
            trace: traceName, ops: trace.patchCount, runs: runs,
            local_replay_ms: Timing.median(replayTimes), encode_ms: Timing.median(encodeTimes),
            history_bytes: history.count, history_deflated_bytes: Gzip.deflate(history).count, merge_ms: Timing.median(mergeTimes),
            state_bytes: state.count, load_ms: Timing.median(loadTimes),
            checkout_ms: Timing.median(checkoutTimes), checkout_replay_ms: Timing.median(checkoutReplayTimes),
            rss_mb: Double(memory) / 1_048_576, keystroke_delta_bytes: try keystrokeDeltaBytes(limit: 10_000),
            history_ms: storeHistory?.milliseconds, history_entries: storeHistory?.entries,
            end_chars: text.unicodeScalars.count,
            correct: correct && mergedText == trace.endContent && loadedText == trace.endContent
                && checkoutText == replayedText && storeHistory?.correct != false)
    }

    /// Types a sequential trace into a fresh store, one change per transaction (one per
    /// patch: every keystroke its own change, as autosave makes them), and times listing
    /// the text's history (`tx.history(of:)`, median over runs). Whether it is correct:
    /// one entry per change, whose counts add up to the final length.
    private func storeHistoryTimes() throws -> (milliseconds: Double, entries: Int, correct: Bool)? {
        guard let directory, !trace.isConcurrent else { return nil }
        let path = URL(fileURLWithPath: directory).appendingPathComponent("history").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let groups = TraceTyping.perTransaction(trace)
        let (times, history) = try TraceTyping.withTypedStore(trace, named: traceName, groups: groups, at: path) { store, text in
            var history: [TextHistoryEntry] = []
            let times = try (0..<runs).map { _ in
                try Timing.milliseconds { history = try store.read { tx in try tx.history(of: text) } }
            }
            return (times, history)
        }
        let changes = groups.filter { !$0.isEmpty }.count + (trace.startContent.isEmpty ? 0 : 1)
        let length = history.reduce(0) { $0 + $1.inserted - $1.deleted }
        return (Timing.median(times), history.count, history.count == changes && length == trace.endContent.unicodeScalars.count)
    }

    /// The mean size of one keystroke's encoded change over the first `limit` one-character
    /// patches (single insertions or deletions) of the trace's first agent.
    private func keystrokeDeltaBytes(limit: Int) throws -> Double {
        let replica = ReplicatedText(replica: EditingTrace.replica(ofAgent: 0))
        var total = 0
        var count = 0
        outer: for transaction in trace.transactions where transaction.agent == trace.transactions.first?.agent {
            for patch in transaction.patches {
                guard patch.position + patch.deleteCount <= replica.count else { break outer }
                let before = replica.version
                if patch.deleteCount > 0 { try replica.delete(patch.position..<patch.position + patch.deleteCount) }
                if !patch.text.isEmpty { try replica.insert(patch.text, at: patch.position) }
                if patch.deleteCount + patch.text.unicodeScalars.count == 1 {
                    total += replica.encodedOperations(since: before).count
                    count += 1
                    if count == limit { break outer }
                }
            }
            if trace.isConcurrent { break }  // later transactions need other agents' edits
        }
        return count == 0 ? 0 : Double(total) / Double(count)
    }
}
