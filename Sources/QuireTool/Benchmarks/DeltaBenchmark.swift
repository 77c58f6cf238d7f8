import Foundation
import LMDB
import Quire
import QuireCore

/// Measures delta files on an editing trace: the trace typed into one text of a store,
/// its whole history exported as one delta file, that file imported into empty stores,
/// and the files of single keystrokes.
///
/// The history is built as the trace's own transactions, one store change per
/// transaction (for the sequential traces, one per patch: every keystroke its own
/// change, as autosave makes them). The same patches are also written in batches of
/// ``batch`` per change — by default all of them in one change, the way the peer figures
/// (Loro, Yrs) were measured: the trace replayed in one transaction.
/// Setup writes use `noSync` durability; the measured imports use full durability.
struct DeltaBenchmark {
    var trace: EditingTrace
    var traceName: String
    /// Runs of the import; the figure is their median.
    var runs = 5
    /// Patches per change in the batched history; all of them by default.
    var batch = Int.max
    /// Told after each measured import (for a progress bar).
    var progress: ((_ done: Int, _ total: Int) -> Void)?
    /// One-character keystrokes whose delta files are measured.
    var keystrokes = 1_000
    /// Keystrokes typed after the whole history, each exported on its own.
    var lateKeystrokes = 100
    /// Where the stores are created (a fresh subdirectory per store).
    var directory: String

    /// One field per figure; times in milliseconds, sizes in bytes.
    struct Result: Encodable {
        var benchmark = "delta"
        var trace: String
        var ops: Int
        var runs: Int
        var changes: Int
        var delta_bytes: Int
        var delta_deflated_bytes: Int
        var export_ms: Double
        var import_ms: Double
        /// The per-keystroke history's store, closed: the size of its `data.mdb`.
        var store_bytes_after_typing: Int
        /// Opening that store and reading the text, median over runs.
        var open_and_read_ms: Double
        /// A new, empty store syncing from a folder that holds the whole per-keystroke
        /// history (`Store.sync(folder:)`) and reading the text, median over runs.
        var sync_catch_up_ms: Double
        var keystroke_file_bytes: Double
        /// `exportDelta(since:)` of one keystroke typed at the end of the whole
        /// per-keystroke history — what a sync engine exports after an autosave — in µs,
        /// median over ``lateKeystrokes``.
        var keystroke_export_us: Double
        var keystrokes: Int
        var batch: Int
        var batched_changes: Int
        var batched_delta_bytes: Int
        var batched_delta_deflated_bytes: Int
        var batched_import_ms: Double
        var end_chars: Int
        var correct: Bool
    }

    /// A store holding the typed trace, and what it exported.
    private struct History {
        var changes: Int
        var file: [UInt8]
        var text: TextID
        var exportTimes: [Double]
        var sourceText: String
        /// Set when the history was asked to measure its store (``measureStore``).
        var storeBytes = 0
        var openTimes: [Double] = []
        var syncTimes: [Double] = []
        var keystrokeExportTimes: [Double] = []
    }

    func run() throws -> Result {
        guard !trace.isConcurrent else {
            throw BenchmarkFailure("the delta benchmark needs a sequential trace")
        }
        let perTransaction = try history(
            groups: TraceTyping.perTransaction(trace), name: "history", measuringStore: true)
        let patches = trace.transactions.flatMap(\.patches)
        let batches = stride(from: 0, to: patches.count, by: batch).map { patches[$0..<min($0 + batch, patches.count)] }
        let batched = try history(groups: batches, name: "batched")

        var correct = perTransaction.sourceText == trace.endContent && batched.sourceText == trace.endContent
        let (importTime, importCorrect) = try importTimes(of: perTransaction)
        let (batchedImportTime, batchedCorrect) = try importTimes(of: batched)
        correct = correct && importCorrect && batchedCorrect
        let (keystrokeBytes, keystrokeCount) = try keystrokeFileBytes()
        return Result(
            trace: traceName, ops: trace.patchCount, runs: runs, changes: perTransaction.changes,
            delta_bytes: perTransaction.file.count, delta_deflated_bytes: Self.deflatedSize(of: perTransaction.file),
            export_ms: Timing.median(perTransaction.exportTimes), import_ms: importTime,
            store_bytes_after_typing: perTransaction.storeBytes, open_and_read_ms: Timing.median(perTransaction.openTimes),
            sync_catch_up_ms: Timing.median(perTransaction.syncTimes),
            keystroke_file_bytes: keystrokeBytes, keystroke_export_us: Timing.median(perTransaction.keystrokeExportTimes),
            keystrokes: keystrokeCount, batch: min(batch, patches.count),
            batched_changes: batched.changes, batched_delta_bytes: batched.file.count,
            batched_delta_deflated_bytes: Self.deflatedSize(of: batched.file), batched_import_ms: batchedImportTime,
            end_chars: trace.endContent.unicodeScalars.count, correct: correct)
    }

    /// The size of `file` deflated: as it is when the format deflated its payload already
    /// (flag 1 in the low bits of its third byte), otherwise deflated whole with zlib.
    static func deflatedSize(of file: [UInt8]) -> Int {
        guard file.count >= 3, file[2] & 1 == 0 else { return file.count }
        return Gzip.deflate(file).count
    }

    // MARK: Building a history

    /// Types the trace into a fresh store, one change per group of patches, and exports
    /// the whole history (`runs` times, for the export time). When `measuringStore`, also
    /// measures the closed store's size, opening it and reading the text, and a new store
    /// catching up through a sync folder that holds the whole history.
    private func history(groups: [ArraySlice<EditingTrace.Patch>], name: String, measuringStore: Bool = false) throws -> History {
        let path = try makeDirectory(name)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let folder = path + "-sync"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var history = try TraceTyping.withTypedStore(trace, named: traceName, groups: groups, at: path) { store, text in
            let sourceText = try store.read { tx in try tx.string(of: text) }
            var file: [UInt8] = []
            let exportTimes = try (0..<runs).map { _ in
                try Timing.milliseconds {
                    guard let delta = try store.exportDelta() else { throw BenchmarkFailure("the store exported nothing") }
                    file = delta
                }
            }
            let changes = try store.statistics().changeCount
            if measuringStore { try store.sync(folder: folder) }
            return History(changes: changes, file: file, text: text, exportTimes: exportTimes, sourceText: sourceText)
        }
        if measuringStore { try measure(storeAt: path, syncFolder: folder, into: &history) }
        return history
    }

    /// The closed store's size; opening it and reading the text; a new store syncing
    /// everything from `folder` and reading the text, each timed `runs` times; then
    /// ``lateKeystrokes`` keystrokes typed at the end of the text, each exported alone.
    private func measure(storeAt path: String, syncFolder folder: String, into history: inout History) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")
        history.storeBytes = (attributes[.size] as? NSNumber)?.intValue ?? 0
        for run in 0..<runs {
            var opened: Store?
            var text = ""
            history.openTimes.append(try Timing.milliseconds {
                let store = try Store(directory: path)
                opened = store
                text = try store.read { tx in try tx.string(of: history.text) }
            })
            try opened?.close()
            guard text == history.sourceText else { throw BenchmarkFailure("the reopened store reads another text") }

            let newcomer = try makeDirectory("newcomer-\(run)")
            defer { try? FileManager.default.removeItem(atPath: newcomer) }
            let store = try Store(directory: newcomer)
            do {
                history.syncTimes.append(try Timing.milliseconds {
                    try store.sync(folder: folder)
                    text = try store.read { tx in try tx.string(of: history.text) }
                })
                try store.close()
            } catch {
                try? store.close()
                throw error
            }
            guard text == history.sourceText else { throw BenchmarkFailure("the store that caught up reads another text") }
        }
        try measureLateKeystrokes(storeAt: path, into: &history)
    }

    /// Types ``lateKeystrokes`` characters at the end of the text of the store at `path`
    /// (the whole history typed), timing `exportDelta(since:)` of each.
    private func measureLateKeystrokes(storeAt path: String, into history: inout History) throws {
        var options = Store.Options()
        options.durability = .noSync
        let store = try Store(directory: path, options: options)
        defer { try? store.close() }
        var length = try store.read { tx in try tx.string(of: history.text) }.unicodeScalars.count
        for _ in 0..<lateKeystrokes {
            let before = store.version
            try store.write { tx in try tx.insert("x", at: length, in: history.text) }
            length += 1
            var file: [UInt8]?
            history.keystrokeExportTimes.append(try Timing.milliseconds { file = try store.exportDelta(since: before) } * 1_000)
            guard file != nil else { throw BenchmarkFailure("a keystroke at the end exported no delta file") }
        }
    }

    // MARK: Importing

    /// The median time to import `history.file` into an empty store (full durability,
    /// committed) and read the text back, and whether every run read `endContent`.
    private func importTimes(of history: History) throws -> (Double, Bool) {
        var times: [Double] = []
        var correct = true
        for run in 0..<runs {
            defer { progress?(run + 1, runs) }
            let path = try makeDirectory("import-\(run)")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let store = try Store(directory: path)
            do {
                var text = ""
                times.append(try Timing.milliseconds {
                    try store.importDelta(history.file)
                    text = try store.read { tx in try tx.string(of: history.text) }
                })
                correct = correct && text == trace.endContent
                try store.close()
            } catch {
                try? store.close()
                throw error
            }
        }
        return (Timing.median(times), correct)
    }

    // MARK: Keystrokes

    /// The mean size of a one-keystroke delta file (`exportDelta(since:)` the version
    /// before the keystroke) over the trace's first ``keystrokes`` one-character patches,
    /// each typed as its own change, and how many were measured.
    private func keystrokeFileBytes() throws -> (Double, Int) {
        let path = try makeDirectory("keystrokes")
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try TraceTyping.withTypedStore(trace, named: traceName, groups: [], at: path) { store, text in
            var total = 0, count = 0
            for patch in trace.transactions.lazy.flatMap(\.patches) where count < keystrokes {
                let before = store.version
                try store.write { tx in try TraceTyping.apply(patch, to: text, in: tx) }
                guard patch.deleteCount + patch.text.unicodeScalars.count == 1 else { continue }
                guard let file = try store.exportDelta(since: before) else {
                    throw BenchmarkFailure("a keystroke exported no delta file")
                }
                total += file.count
                count += 1
            }
            return (count == 0 ? 0 : Double(total) / Double(count), count)
        }
    }

    private func makeDirectory(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
