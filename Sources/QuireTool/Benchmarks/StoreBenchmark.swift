import Foundation
@_spi(Benchmarks) import LMDB
import Quire
import QuireApps
import QuireCore
import Synchronization

/// Measures the object store as the writing app uses it (issue 12 item 7): opening a store
/// of ``records`` small files in ``records`` / 1,000 folders in a fresh process, its
/// memory after open, point reads against raw LMDB reads of values of the same size, the
/// first page of a large folder, how long a reader waits while a big delta is imported,
/// the bytes a record costs on disk, and two processes writing into one store at once.
///
/// The child processes are the running `quire` binary itself, in the hidden modes of
/// ``StoreBenchmarkChild``. Setup writes run without syncing; the measured writes (the
/// two processes) are durable. Every time is a median over ``runs`` runs.
struct StoreBenchmark {
    /// File records in the main store.
    var records = 100_000
    /// Runs of each measurement; the medians are reported.
    var runs = 3
    /// Children of the large folder of `children_page_ms`.
    var folderChildren = 20_000
    /// Records in the imported delta of `reader_max_wait_ms` (at most ``records``).
    var deltaRecords = 100_000
    /// Durable writes made by each of the two writer processes.
    var writesPerProcess = 1_000
    /// Timed point reads per run, for each side.
    var reads = 10_000
    /// The `quire` executable that the child processes run.
    var executable: String
    /// Where the stores are created (a fresh subdirectory each).
    var directory: String

    /// One field per figure; times in milliseconds unless the name ends in `_us`
    /// (microseconds), sizes in MiB where the name ends in `_mb`.
    struct Result: Encodable {
        var benchmark = "store"
        var records: Int
        var folders: Int
        var runs: Int
        var build_ms: Double
        var open_ms: Double
        var rss_before_open_mb: Double
        var rss_after_open_mb: Double
        var first_write_ms: Double
        var rss_after_first_write_mb: Double
        var first_keystroke_ms: Double
        var rss_after_first_keystroke_mb: Double
        var first_create_ms: Double
        var rss_after_first_create_mb: Double
        var get_us: Double
        var raw_get_us: Double
        var get_ratio: Double
        var raw_renew_get_us: Double
        var record_value_bytes: Int
        var children: Int
        var children_page_ms: Double
        var children_all_ms: Double
        var delta_records: Int
        var delta_bytes: Int
        var import_ms: Double
        var reader_max_wait_ms: Double
        var reader_reads: Int
        var data_bytes: Int
        var bytes_per_record: Double
        var two_process_writes_per_process: Int
        var two_process_writes: Int
        var two_process_lost: Int
        var two_process_duplicate_ids: Int
        var two_process_ms: Double
    }

    /// Told what the benchmark is doing now (for a progress line).
    var progress: ((_ stage: String) -> Void)?

    func run() throws -> Result {
        let folders = max(1, records / 1_000)
        let mainPath = try makeDirectory("main")

        progress?("building \(records) records in \(folders) folders")
        var ids: [RecordID] = []
        let build = try Timing.milliseconds { ids = try Self.build(at: mainPath, records: records, folders: folders) }
        let dataBytes = Self.fileSize(mainPath + "/data.mdb")
        let valueBytes = try Self.medianRecordValueBytes(at: mainPath)

        progress?("opening in child processes")
        var opens: [StoreBenchmarkChild.OpenReport] = []
        for _ in 0..<runs {
            let output = try SpawnedProcess.run(executable, ["bench", "store", "--open-child", mainPath])
            guard let line = output.split(separator: "\n").last,
                  let report = try? JSONDecoder().decode(StoreBenchmarkChild.OpenReport.self, from: Data(line.utf8))
            else { throw BenchmarkFailure("the open child printed no report: '\(output)'") }
            opens.append(report)
        }

        progress?("point reads")
        let (get, rawGet, rawRenewGet) = try measureReads(storePath: mainPath, ids: ids, valueBytes: valueBytes)

        progress?("a folder of \(folderChildren) children")
        let page = try measureChildrenPage()

        progress?("a reader while \(min(deltaRecords, records)) records are imported")
        let importing = try measureReaderDuringImport(mainPath: mainPath)

        progress?("two writer processes")
        let twoProcesses = try measureTwoProcesses()

        return Result(
            records: records, folders: folders, runs: runs, build_ms: build,
            open_ms: Timing.median(opens.map(\.open_ms)),
            rss_before_open_mb: Timing.median(opens.map(\.rss_before_open_mb)),
            rss_after_open_mb: Timing.median(opens.map(\.rss_after_open_mb)),
            first_write_ms: Timing.median(opens.map(\.first_write_ms)),
            rss_after_first_write_mb: Timing.median(opens.map(\.rss_after_first_write_mb)),
            first_keystroke_ms: Timing.median(opens.map(\.first_keystroke_ms)),
            rss_after_first_keystroke_mb: Timing.median(opens.map(\.rss_after_first_keystroke_mb)),
            first_create_ms: Timing.median(opens.map(\.first_create_ms)),
            rss_after_first_create_mb: Timing.median(opens.map(\.rss_after_first_create_mb)),
            get_us: get, raw_get_us: rawGet, get_ratio: get / rawGet, raw_renew_get_us: rawRenewGet, record_value_bytes: valueBytes,
            children: folderChildren, children_page_ms: page.page, children_all_ms: page.all,
            delta_records: importing.records, delta_bytes: importing.deltaBytes,
            import_ms: importing.importMilliseconds, reader_max_wait_ms: importing.maximumWait,
            reader_reads: importing.reads,
            data_bytes: dataBytes, bytes_per_record: Double(dataBytes) / Double(records),
            two_process_writes_per_process: writesPerProcess, two_process_writes: twoProcesses.writes, two_process_lost: twoProcesses.lost,
            two_process_duplicate_ids: twoProcesses.duplicates, two_process_ms: twoProcesses.milliseconds)
    }

    // MARK: Building

    /// Options for setup writes: nothing measured depends on their durability.
    private static var setupOptions: Store.Options {
        var options = Store.Options()
        options.durability = .noSync
        return options
    }

    /// Creates a store of `records` files spread evenly over `folders` top-level folders,
    /// one write transaction per folder, closes it (which writes a checkpoint) and flushes
    /// its file to disk: the setup writes do not sync, and without the flush the first
    /// durable commit measured after it would write back the whole file (about 0.13 s at
    /// 1,000,000 records) — a cost an app's long-written store does not have.
    ///
    /// - Returns: The files' IDs.
    static func build(at path: String, records: Int, folders: Int) throws -> [RecordID] {
        let store = try Store(directory: path, options: setupOptions)
        var ids: [RecordID] = []
        ids.reserveCapacity(records)
        do {
            for folder in 0..<folders {
                let range = (records * folder / folders)..<(records * (folder + 1) / folders)
                ids += try store.write { tx in
                    let parent = try tx.insert(Folder(name: "folder \(folder)"))
                    return try range.map { try tx.insert(File(name: "file \($0)"), under: parent) }
                }
            }
            try store.close()
        } catch {
            try? store.close()
            throw error
        }
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path + "/data.mdb"))
        defer { try? file.close() }
        try file.synchronize()
        return ids
    }

    // MARK: Point reads

    /// The median of single timed `get`s of random records, and of raw LMDB reads of
    /// values of the same size by 16-byte keys (the store's record keys are 16 bytes).
    private func measureReads(storePath: String, ids: [RecordID], valueBytes: Int) throws -> (Double, Double, Double) {
        let rawPath = try makeDirectory("raw")
        let baseline = try RawLMDBBaseline(path: rawPath, mapSize: max(64 << 20, records * 256), durability: .noSync)
        let value = [UInt8](repeating: 0x42, count: valueBytes)
        var next = 0
        while next < records {
            let batch = (next..<min(next + 10_000, records)).map { (key: Self.rawKey($0), value: value) }
            try baseline.commit(batch)
            next += batch.count
        }
        let store = try Store(directory: storePath)
        defer { try? store.close() }

        var random = BenchmarkRandom(seed: 12)
        var storeSamples: [Double] = [], rawSamples: [Double] = [], rawRenewSamples: [Double] = []
        for run in 0..<runs {
            let picks = (0..<reads).map { _ in random.below(records) }
            let measureStore = {
                var times: [Double] = []
                times.reserveCapacity(picks.count)
                for pick in picks {
                    let id = ids[pick]
                    var file: File?
                    times.append(try Timing.milliseconds { file = try store.read { tx in try tx.get(File.self, id) } } * 1_000)
                    guard file?.name == "file \(pick)" else { throw BenchmarkFailure("record \(id) read back as \(String(describing: file))") }
                }
                storeSamples.append(Timing.median(times))
            }
            /// The baseline's reads, each beginning a transaction or renewing a kept one.
            let measureRaw = { (renewing: Bool) in
                var times: [Double] = []
                times.reserveCapacity(picks.count)
                for pick in picks {
                    let key = Self.rawKey(pick)
                    var bytes: [UInt8]?
                    times.append(try Timing.milliseconds {
                        bytes = try renewing ? baseline.copyValueRenewing(for: key) : baseline.copyValue(for: key)
                    } * 1_000)
                    guard bytes?.count == valueBytes else { throw BenchmarkFailure("raw key \(pick) read back \(bytes?.count ?? -1) bytes") }
                }
                if renewing { rawRenewSamples.append(Timing.median(times)) } else { rawSamples.append(Timing.median(times)) }
            }
            // Alternate which side goes first.
            if run % 2 == 0 {
                try measureStore(); try measureRaw(false); try measureRaw(true)
            } else {
                try measureRaw(false); try measureRaw(true); try measureStore()
            }
        }
        return (Timing.median(storeSamples), Timing.median(rawSamples), Timing.median(rawRenewSamples))
    }

    /// A 16-byte key: a fixed replica, then the index, big-endian.
    private static func rawKey(_ index: Int) -> [UInt8] {
        Key(UInt64(0x5155_4952_4500_0001)).bytes + Key(UInt64(index)).bytes
    }

    // MARK: A large folder

    /// The median time of one read that takes a folder's children IDs and decodes the
    /// first 100 of them, in a store whose folder has ``folderChildren`` files (built
    /// through the public API, 1,000 inserts per write, then closed and opened again).
    /// The first page of the large folder, and the whole list of its children, in ms.
    private func measureChildrenPage() throws -> (page: Double, all: Double) {
        let path = try makeDirectory("folder")
        let store = try Store(directory: path, options: Self.setupOptions)
        let folder: RecordID
        do {
            folder = try store.write { tx in try tx.insert(Folder(name: "Everything")) }
            var next = 0
            while next < folderChildren {
                let range = next..<min(next + 1_000, folderChildren)
                try store.write { tx in
                    for index in range { try tx.insert(File(name: "file \(index)"), under: folder) }
                }
                next = range.upperBound
            }
            try store.close()
        } catch {
            try? store.close()
            throw error
        }
        let reopened = try Store(directory: path)
        defer { try? reopened.close() }
        let pageSize = min(100, folderChildren)
        var samples: [Double] = []
        for _ in 0..<max(runs, 5) {
            var page: [File] = []
            samples.append(try Timing.milliseconds {
                page = try reopened.read { tx in
                    try tx.children(of: folder, limit: pageSize).compactMap { try tx.get(File.self, $0) }
                }
            })
            guard page.count == pageSize, page.first?.name == "file 0" else {
                throw BenchmarkFailure("the folder's first page has \(page.count) files, first \(page.first?.name ?? "none")")
            }
        }
        var allSamples: [Double] = []
        for _ in 0..<max(runs, 5) {
            var count = 0
            allSamples.append(try Timing.milliseconds { count = try reopened.read { tx in tx.children(of: folder).count } })
            guard count == folderChildren else { throw BenchmarkFailure("the folder lists \(count) children") }
        }
        return (Timing.median(samples), Timing.median(allSamples))
    }

    // MARK: A reader during an import

    private struct Importing {
        var records: Int
        var deltaBytes: Int
        var importMilliseconds: Double
        var maximumWait: Double
        var reads: Int
    }

    /// Imports a delta of up to ``deltaRecords`` records into a fresh store per run while
    /// a reader thread reads one record every millisecond; the longest single read.
    ///
    /// The delta is the main store's whole history when it has no more records than that,
    /// otherwise that of a second store built the same way.
    private func measureReaderDuringImport(mainPath: String) throws -> Importing {
        let count = min(deltaRecords, records)
        var sourcePath = mainPath
        var probe: RecordID?
        if count < records {
            sourcePath = try makeDirectory("delta-source")
            probe = try Self.build(at: sourcePath, records: count, folders: max(1, count / 1_000)).last
        }
        let source = try Store(directory: sourcePath)
        let delta: [UInt8]
        do {
            guard let bytes = try source.exportDelta() else { throw BenchmarkFailure("the delta's source store is empty") }
            delta = bytes
            if probe == nil { probe = try source.read { tx in tx.children(of: tx.children(of: nil).last).last } }
            try source.close()
        } catch {
            try? source.close()
            throw error
        }
        guard let probe else { throw BenchmarkFailure("the delta's source store has no file") }

        var waits: [Double] = [], imports: [Double] = []
        var reads = 0
        for run in 0..<runs {
            let path = try makeDirectory("import-\(run)")
            let store = try Store(directory: path)
            let reader = ReaderThread(store: store, probe: probe)
            reader.start()
            do {
                imports.append(try Timing.milliseconds { try store.importDelta(delta) })
                let outcome = try reader.stop()
                waits.append(outcome.maximumMilliseconds)
                reads += outcome.reads
                guard try store.read({ tx in try tx.get(File.self, probe) }) != nil else {
                    throw BenchmarkFailure("the imported store lacks record \(probe)")
                }
                try store.close()
            } catch {
                _ = try? reader.stop()
                try? store.close()
                throw error
            }
            try? FileManager.default.removeItem(atPath: path)
        }
        return Importing(
            records: count, deltaBytes: delta.count, importMilliseconds: Timing.median(imports),
            maximumWait: Timing.median(waits), reads: reads / runs)
    }

    // MARK: Two processes

    private struct TwoProcesses {
        var writes: Int
        var lost: Int
        var duplicates: Int
        var milliseconds: Double
    }

    /// Two child processes insert ``writesPerProcess`` files each, durably, into one
    /// store at the same time; then every acknowledged record is looked up.
    private func measureTwoProcesses() throws -> TwoProcesses {
        let path = try makeDirectory("two-processes")
        try Store(directory: path).close()  // created here, so the children only open it
        let tags = ["a", "b"]
        var outputs: [String] = []
        let time = try Timing.milliseconds {
            let children = try tags.map {
                try SpawnedProcess(executable, ["bench", "store", "--writer-child", path, $0, "\(writesPerProcess)"])
            }
            outputs = try children.map { try $0.finish() }
        }
        var acknowledged: [(id: RecordID, name: String)] = []
        for (tag, output) in zip(tags, outputs) {
            for line in output.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard words.count == 3, let replica = UInt64(words[0]), let counter = UInt64(words[1]) else {
                    throw BenchmarkFailure("a writer child printed '\(line)', not 'REPLICA COUNTER INDEX'")
                }
                acknowledged.append((RecordID(replica: ReplicaID(replica), counter: counter), "\(tag) \(words[2])"))
            }
        }
        let store = try Store(directory: path)
        defer { try? store.close() }
        let lost = try store.read { tx in
            try acknowledged.count(where: { try tx.get(File.self, $0.id)?.name != $0.name })
        }
        return TwoProcesses(
            writes: acknowledged.count, lost: lost,
            duplicates: acknowledged.count - Set(acknowledged.map(\.id)).count, milliseconds: time)
    }

    // MARK: Helpers

    private func makeDirectory(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// The median size of the values in the store's `records` database (the store must
    /// be closed): what one record's type and fields take.
    private static func medianRecordValueBytes(at path: String) throws -> Int {
        let environment = try Environment(path: path)
        defer { try? environment.close() }
        let database = try environment.openDatabase(named: "records", options: [])
        var sizes: [Double] = []
        try environment.read { tx in
            try tx.scan(database) { _, value in
                sizes.append(Double(value.count))
                return .continue
            }
        }
        return Int(Timing.median(sizes))
    }
}

/// A thread that reads one record through `store.read` every millisecond until stopped,
/// and keeps the longest single read.
private final class ReaderThread: Sendable {
    struct Outcome {
        var maximumMilliseconds = 0.0
        var reads = 0
        var failure: (any Error)?
        var stopping = false
    }

    private let store: Store
    private let probe: RecordID
    private let outcome = Mutex(Outcome())
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(store: Store, probe: RecordID) {
        self.store = store
        self.probe = probe
    }

    /// Starts reading; returns after the first read.
    func start() {
        Thread.detachNewThread { [self] in
            let clock = ContinuousClock()
            var first = true
            while !outcome.withLock({ $0.stopping }) {
                let start = clock.now
                do {
                    _ = try store.read { tx in try tx.get(File.self, probe) }
                } catch {
                    outcome.withLock { $0.failure = error }
                    break
                }
                let elapsed = (clock.now - start).milliseconds
                outcome.withLock {
                    $0.maximumMilliseconds = max($0.maximumMilliseconds, elapsed)
                    $0.reads += 1
                }
                if first { started.signal(); first = false }
                let pause = 1 - (clock.now - start).milliseconds
                if pause > 0 { Thread.sleep(forTimeInterval: pause / 1_000) }
            }
            if first { started.signal() }
            finished.signal()
        }
        started.wait()
    }

    /// Stops the thread after its current read; the longest read and the number of reads.
    ///
    /// - Throws: The error a read threw.
    func stop() throws -> (maximumMilliseconds: Double, reads: Int) {
        let alreadyStopped = outcome.withLock { state in
            defer { state.stopping = true }
            return state.stopping
        }
        if !alreadyStopped { finished.wait() }
        let result = outcome.withLock { ($0.maximumMilliseconds, $0.reads, $0.failure) }
        if let failure = result.2 { throw failure }
        return (result.0, result.1)
    }
}
