import Foundation
@_spi(Benchmarks) import LMDB

/// Measures the storage layer against bare `mdb_*` calls doing the same work, in the same
/// run, on the same disk: durable tiny commits, point reads, a bulk load and a full scan.
///
/// Layer and baseline alternate run by run, so drift in the machine's state hits both.
/// Every figure is a median over ``runs`` runs.
struct LMDBBenchmark {
    /// Tiny commits per run (each one put of a 8-byte key and 32-byte value, then commit).
    var commits = 200
    /// Point reads per run (each its own read transaction).
    var reads = 20_000
    /// Entries in the bulk load and the scan.
    var entries = 100_000
    /// Runs of each measurement; the medians are reported.
    var runs = 5
    /// The durability of both environments.
    var durability: Environment.Durability = .full
    /// Where the environments are created (a fresh subdirectory per run).
    var directory: String

    /// The result, one field per figure. Times in milliseconds, except where the name says
    /// microseconds (`_us`) or nanoseconds (`_ns`).
    struct Result: Encodable {
        var benchmark = "lmdb"
        var durability: String
        var runs: Int
        var commit_us: Double
        var raw_commit_us: Double
        var commit_ratio: Double
        var read_ns: Double
        var raw_read_ns: Double
        var read_ratio: Double
        var bulk_put_ms: Double
        var raw_bulk_put_ms: Double
        var bulk_put_ratio: Double
        var scan_ms: Double
        var raw_scan_ms: Double
        var scan_ratio: Double
        var entries: Int
        var data_bytes: Int
    }

    func run() throws -> Result {
        var layer = Samples()
        var raw = Samples()
        var dataBytes = 0
        for run in 0..<runs {
            let layerPath = try makeDirectory("layer-\(run)")
            let rawPath = try makeDirectory("raw-\(run)")
            defer {
                try? FileManager.default.removeItem(atPath: layerPath)
                try? FileManager.default.removeItem(atPath: rawPath)
            }
            // Alternate which side goes first.
            if run % 2 == 0 {
                try measureLayer(at: layerPath, into: &layer)
                try measureRaw(at: rawPath, into: &raw)
            } else {
                try measureRaw(at: rawPath, into: &raw)
                try measureLayer(at: layerPath, into: &layer)
            }
            dataBytes = (try? FileManager.default.attributesOfItem(atPath: layerPath + "/data.mdb")[.size] as? Int) ?? 0
        }
        let commit = Timing.median(layer.commitMicroseconds)
        let rawCommit = Timing.median(raw.commitMicroseconds)
        let read = Timing.median(layer.readNanoseconds)
        let rawRead = Timing.median(raw.readNanoseconds)
        let bulk = Timing.median(layer.bulkMilliseconds)
        let rawBulk = Timing.median(raw.bulkMilliseconds)
        let scan = Timing.median(layer.scanMilliseconds)
        let rawScan = Timing.median(raw.scanMilliseconds)
        return Result(
            durability: "\(durability)", runs: runs,
            commit_us: commit, raw_commit_us: rawCommit, commit_ratio: commit / rawCommit,
            read_ns: read, raw_read_ns: rawRead, read_ratio: read / rawRead,
            bulk_put_ms: bulk, raw_bulk_put_ms: rawBulk, bulk_put_ratio: bulk / rawBulk,
            scan_ms: scan, raw_scan_ms: rawScan, scan_ratio: scan / rawScan,
            entries: entries, data_bytes: dataBytes)
    }

    private struct Samples {
        var commitMicroseconds: [Double] = []
        var readNanoseconds: [Double] = []
        var bulkMilliseconds: [Double] = []
        var scanMilliseconds: [Double] = []
    }

    private static let value = [UInt8](repeating: 0x42, count: 32)

    private func makeDirectory(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func measureLayer(at path: String, into samples: inout Samples) throws {
        var configuration = Environment.Configuration()
        configuration.mapSize = 256 << 20
        configuration.durability = durability
        let env = try Environment(path: path, configuration: configuration)
        let db = try env.openDatabase(named: "bench")
        let value = Self.value

        var commitTimes: [Double] = []
        for index in 0..<commits {
            let key = Key(UInt64(index))
            commitTimes.append(try Timing.milliseconds { try env.write { tx in try tx.put(value, forKey: key, in: db) } } * 1_000)
        }
        samples.commitMicroseconds.append(Timing.median(commitTimes))

        let batch = (0..<entries).map { Key(UInt64($0)) }
        let bulk = try Timing.milliseconds {
            try env.write { tx in
                for key in batch { try tx.put(value, forKey: key, in: db) }
            }
        }
        samples.bulkMilliseconds.append(bulk)

        let keys = (0..<reads).map { Key(UInt64(($0 &* 7_919) % entries)) }
        var found = 0
        let readTime = try Timing.milliseconds {
            for key in keys {
                found += try env.read { tx in try tx.withValue(forKey: key, in: db) { $0?.count ?? -1 } }
            }
        }
        samples.readNanoseconds.append(readTime * 1e6 / Double(reads))

        var scanned = 0
        samples.scanMilliseconds.append(try Timing.milliseconds {
            try env.read { tx in
                try tx.scan(db) { key, value in
                    scanned += key.count + value.count
                    return .continue
                }
            }
        })
        guard found == reads * value.count, scanned == entries * (8 + value.count) else {
            throw BenchmarkFailure("the layer read back \(found) and scanned \(scanned) bytes; expected otherwise")
        }
        try env.close()
    }

    private func measureRaw(at path: String, into samples: inout Samples) throws {
        let baseline = try RawLMDBBaseline(path: path, mapSize: 256 << 20, durability: durability)
        let value = Self.value

        var commitTimes: [Double] = []
        for index in 0..<commits {
            let entry = (key: Key(UInt64(index)).bytes, value: value)
            commitTimes.append(try Timing.milliseconds { try baseline.commit([entry]) } * 1_000)
        }
        samples.commitMicroseconds.append(Timing.median(commitTimes))

        let batch = (0..<entries).map { (key: Key(UInt64($0)).bytes, value: value) }
        samples.bulkMilliseconds.append(try Timing.milliseconds { try baseline.commit(batch) })

        let keys = (0..<reads).map { Key(UInt64(($0 &* 7_919) % entries)).bytes }
        var found = 0
        let readTime = try Timing.milliseconds {
            for key in keys { found += try baseline.readLength(ofValueFor: key) }
        }
        samples.readNanoseconds.append(readTime * 1e6 / Double(reads))

        var scanned = 0
        samples.scanMilliseconds.append(try Timing.milliseconds { scanned = try baseline.scanAll() })
        guard found == reads * value.count, scanned == entries * (8 + value.count) else {
            throw BenchmarkFailure("the baseline read back \(found) and scanned \(scanned) bytes; expected otherwise")
        }
    }
}

/// A benchmark whose own consistency check failed.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
