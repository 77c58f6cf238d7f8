import Foundation
import QuireCore

/// Measures the text CRDT on one editing trace: local replay, encoding and merging the
/// whole history, saving and loading the state, reading an old version, memory, and
/// keystroke delta size.
struct TextBenchmark {
    var trace: EditingTrace
    var traceName: String
    var runs = 5

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
        return Result(
            trace: traceName, ops: trace.patchCount, runs: runs,
            local_replay_ms: Timing.median(replayTimes), encode_ms: Timing.median(encodeTimes),
            history_bytes: history.count, history_deflated_bytes: Gzip.deflate(history).count, merge_ms: Timing.median(mergeTimes),
            state_bytes: state.count, load_ms: Timing.median(loadTimes),
            checkout_ms: Timing.median(checkoutTimes), checkout_replay_ms: Timing.median(checkoutReplayTimes),
            rss_mb: Double(memory) / 1_048_576, keystroke_delta_bytes: try keystrokeDeltaBytes(limit: 10_000),
            end_chars: text.unicodeScalars.count,
            correct: correct && mergedText == trace.endContent && loadedText == trace.endContent
                && checkoutText == replayedText)
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
