import Foundation
@_spi(Benchmarks) import LMDB
import Quire
import QuireCore

/// Measures typing with autosave: the first keystrokes of an editing trace typed into a
/// file record through a durable ``TextEditingSession`` — one commit per keystroke — with
/// a raw-LMDB baseline of one tiny durable commit per keystroke in the same run, the same
/// pair without syncing, what each keystroke adds to the change log and the file, and how
/// long opening a store with the whole document and reading its text takes.
///
/// Store and baseline alternate run by run. Commit times are pooled over all runs; the
/// other figures are medians.
struct AutosaveBenchmark {
    var trace: EditingTrace
    var traceName: String
    /// Single-character keystrokes typed (the trace's first ones).
    var keystrokes = 10_000
    /// Runs of each measurement.
    var runs = 1
    /// Where the stores are created (a fresh subdirectory per store).
    var directory: String

    /// One field per figure; times in milliseconds, sizes in bytes.
    struct Result: Encodable {
        var benchmark = "autosave"
        var trace: String
        var keystrokes: Int
        var edits: Int
        var runs: Int
        var commit_p50_ms: Double
        var commit_p99_ms: Double
        var raw_commit_p50_ms: Double
        var commit_ratio: Double
        var nosync_commit_p50_ms: Double
        var raw_nosync_commit_p50_ms: Double
        var nosync_commit_ratio: Double
        var log_bytes_per_keystroke: Double
        var file_growth_bytes: Int
        var open_and_read_ms: Double
        var document_chars: Int
        var correct: Bool
    }

    /// One trace patch, typed as one session call.
    private struct Edit {
        var position: Int
        var deleteCount: Int
        var text: String

        /// Whether the patch is one keystroke: one character typed or deleted.
        var isKeystroke: Bool { deleteCount + text.unicodeScalars.count == 1 }
    }

    /// Told after each run (for a progress bar).
    var progress: ((_ done: Int, _ total: Int) -> Void)?

    func run() throws -> Result {
        let edits = try typedEdits()
        let expected = try expectedText(after: edits)
        var durable: [Double] = [], rawDurable: [Double] = []
        var noSync: [Double] = [], rawNoSync: [Double] = []
        var logBytes: [Double] = [], growth: [Double] = []
        var correct = true
        for run in 0..<runs {
            defer { progress?(run + 1, runs) }
            let storeFirst = run % 2 == 0
            for durability in [Environment.Durability.full, .noSync] {
                var typing: Typing?
                var raw: [Double] = []
                if storeFirst { typing = try type(edits, durability: durability, run: run) }
                raw = try rawCommits(edits.count, durability: durability, run: run)
                if !storeFirst { typing = try type(edits, durability: durability, run: run) }
                guard let typing else { continue }
                correct = correct && typing.text == expected
                if durability == .full {
                    durable += typing.commitTimes
                    rawDurable += raw
                    logBytes.append(Double(typing.logBytes) / Double(edits.count))
                    growth.append(Double(typing.fileGrowth))
                } else {
                    noSync += typing.commitTimes
                    rawNoSync += raw
                }
            }
        }
        let (openTime, document) = try openAndRead()
        correct = correct && document == trace.endContent
        let commit = Timing.median(durable), rawCommit = Timing.median(rawDurable)
        let noSyncCommit = Timing.median(noSync), rawNoSyncCommit = Timing.median(rawNoSync)
        return Result(
            trace: traceName, keystrokes: edits.filter(\.isKeystroke).count, edits: edits.count, runs: runs,
            commit_p50_ms: commit, commit_p99_ms: Self.percentile(99, of: durable),
            raw_commit_p50_ms: rawCommit, commit_ratio: commit / rawCommit,
            nosync_commit_p50_ms: noSyncCommit, raw_nosync_commit_p50_ms: rawNoSyncCommit,
            nosync_commit_ratio: noSyncCommit / rawNoSyncCommit,
            log_bytes_per_keystroke: Timing.median(logBytes), file_growth_bytes: Int(Timing.median(growth)),
            open_and_read_ms: openTime, document_chars: document.unicodeScalars.count, correct: correct)
    }

    // MARK: Typing

    private struct Typing {
        var commitTimes: [Double]
        var text: String
        var logBytes: Int
        var fileGrowth: Int
    }

    /// Types `edits` into a fresh store, one durable session call each.
    private func type(_ edits: [Edit], durability: Environment.Durability, run: Int) throws -> Typing {
        let path = try makeDirectory("store-\(durability)-\(run)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = Store.Options()
        options.durability = durability
        let file = try Store.withStore(at: path, options: options) { store in
            try store.write { tx in try tx.insert(TraceTyping.BenchFile(name: "paper")) }
        }
        let logBefore = try Self.changeLogBytes(at: path)
        let sizeBefore = Self.fileSize(path + "/data.mdb")

        var times: [Double] = []
        times.reserveCapacity(edits.count)
        let text = try Store.withStore(at: path, options: options) { store in
            let session = TextEditingSession(store: store, text: file.text("content"))
            for edit in edits {
                times.append(try Timing.milliseconds {
                    switch (edit.deleteCount, edit.text.isEmpty) {
                    case (0, _): try session.insert(edit.text, at: edit.position)
                    case (_, true): try session.delete(edit.position..<edit.position + edit.deleteCount)
                    case (_, false): try session.replace(edit.position..<edit.position + edit.deleteCount, with: edit.text)
                    }
                })
            }
            let text = try session.string
            try session.close()
            return text
        }
        let logAfter = try Self.changeLogBytes(at: path)
        guard logAfter.entries - logBefore.entries == edits.count else {
            throw BenchmarkFailure("\(edits.count) keystrokes made \(logAfter.entries - logBefore.entries) changes")
        }
        return Typing(
            commitTimes: times, text: text, logBytes: logAfter.bytes - logBefore.bytes,
            fileGrowth: Self.fileSize(path + "/data.mdb") - sizeBefore)
    }

    /// The raw-LMDB baseline: `count` commits of one 8-byte key and 32-byte value each.
    private func rawCommits(_ count: Int, durability: Environment.Durability, run: Int) throws -> [Double] {
        let path = try makeDirectory("raw-\(durability)-\(run)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let baseline = try RawLMDBBaseline(path: path, mapSize: 64 << 20, durability: durability)
        let value = [UInt8](repeating: 0x42, count: 32)
        return try (0..<count).map { index in
            let entry = (key: Key(UInt64(index)).bytes, value: value)
            return try Timing.milliseconds { try baseline.commit([entry]) }
        }
    }

    // MARK: Opening a whole document

    /// The median time to open a store holding the whole trace's document and read its
    /// text. The store is typed as autosave types: one write per patch of the trace.
    private func openAndRead() throws -> (Double, String) {
        let path = try makeDirectory("document")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = Store.Options()
        options.durability = .noSync  // setup only; the measured part reads
        let content = try Store.withStore(at: path, options: options) { store in
            let file = try store.write { tx in try tx.insert(TraceTyping.BenchFile(name: "paper")) }
            let content = file.text("content")
            for patch in trace.transactions.lazy.flatMap(\.patches) {
                try store.write { tx in
                    if patch.deleteCount > 0 {
                        try tx.delete(patch.position..<patch.position + patch.deleteCount, in: content)
                    }
                    if !patch.text.isEmpty { try tx.insert(patch.text, at: patch.position, in: content) }
                }
            }
            return content
        }
        var text = ""
        var times: [Double] = []
        for _ in 0..<max(runs, 5) {
            var store: Store?
            times.append(try Timing.milliseconds {
                let opened = try Store(directory: path)
                text = try opened.read { tx in try tx.string(of: content) }
                store = opened
            })
            try store?.close()
        }
        return (Timing.median(times), text)
    }

    // MARK: Helpers

    /// The trace's patches up to and including its `keystrokes`-th one-character one.
    private func typedEdits() throws -> [Edit] {
        guard !trace.isConcurrent else {
            throw BenchmarkFailure("the autosave benchmark needs a sequential trace")
        }
        var edits: [Edit] = []
        var counted = 0
        for patch in trace.transactions.lazy.flatMap(\.patches) where counted < keystrokes {
            let edit = Edit(position: patch.position, deleteCount: patch.deleteCount, text: patch.text)
            edits.append(edit)
            if edit.isKeystroke { counted += 1 }
        }
        guard counted == keystrokes else {
            throw BenchmarkFailure("the trace has \(counted) one-character edits, fewer than --keystrokes \(keystrokes)")
        }
        return edits
    }

    /// The text after `edits`, computed without the store.
    private func expectedText(after edits: [Edit]) throws -> String {
        let replica = ReplicatedText(replica: ReplicaID(1))
        if !trace.startContent.isEmpty { try replica.insert(trace.startContent, at: 0) }
        for edit in edits {
            if edit.deleteCount > 0 { try replica.delete(edit.position..<edit.position + edit.deleteCount) }
            if !edit.text.isEmpty { try replica.insert(edit.text, at: edit.position) }
        }
        return replica.string
    }

    private func makeDirectory(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// The total size of the store's change log (its entries' values: single changes, and
    /// runs a checkpoint folded keystrokes into) and the number of changes it holds.
    private static func changeLogBytes(at path: String) throws -> (bytes: Int, entries: Int) {
        let statistics = try Store.withStore(at: path, options: Store.Options()) { store in try store.statistics() }
        return (statistics.changeLogBytes, statistics.changeCount)
    }

    /// The `p`th percentile (nearest rank) of `values`.
    static func percentile(_ p: Double, of values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
