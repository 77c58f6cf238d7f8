import LMDB
import QuireCore

/// A replica asked this store for changes it no longer keeps: ``Store/compact(to:pruning:)``
/// (or ``Store/pruneHistory(acknowledged:)``) removed them from the change log after every
/// known replica had acknowledged them.
///
/// ```swift
/// do {
///     let file = try store.exportDelta(since: newcomer.version)
/// } catch let error as PrunedHistoryError {
///     print(error)   // … export a full delta from a replica that kept its history …
/// }
/// ```
public struct PrunedHistoryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The replica whose early changes were pruned.
    public var replica: ReplicaID
    /// The first counter of `replica` this store still has: counters below it are gone.
    public var keptFrom: UInt64
    /// The counter of `replica` the asker has (it needs the changes from there on).
    public var requestedFrom: UInt64

    /// What was asked, what is gone and what to do instead.
    public var description: String {
        "this store pruned the changes of replica \(replica) before counter \(keptFrom) when it was compacted, "
            + "and a replica at counter \(requestedFrom) needs them: import a full delta exported by a replica that "
            + "kept its whole history ('quire export' there, without --since), or start the new replica from a copy "
            + "of a store that has everything, made with 'quire compact --output DIR' (a copy must never go on "
            + "writing under the original's replica ID)"
    }
}

/// Where the pruned history is recorded: the `meta` database's `"pruned"` entry holds,
/// per replica, the first counter the change log still has (absent: nothing pruned).
extension StoreLayout {
    static let prunedKey = Key("pruned")

    static func encode(pruned: VersionVector) -> [UInt8] {
        var writer = ByteWriter()
        let counters = pruned.counters.sorted { $0.key < $1.key }
        writer.write(varint: UInt64(counters.count))
        for (replica, counter) in counters {
            writer.write(replica: replica)
            writer.write(varint: counter)
        }
        return writer.bytes
    }

    static func decodePruned(_ bytes: [UInt8]) throws(DecodingError) -> VersionVector {
        var reader = ByteReader(bytes)
        let count = try reader.readCount("pruned entries", limit: Change.maximumCount, minimumElementSize: 9)
        var counters: [ReplicaID: UInt64] = [:]
        for _ in 0..<count {
            counters[try reader.readReplica("pruned replica")] = try reader.readVarint("pruned counter")
        }
        guard reader.isAtEnd else { throw .malformed("\(reader.remaining) trailing bytes", at: reader.offset) }
        return VersionVector(counters)
    }

    /// Per replica, the first counter the change log still has.
    func prunedHistory<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws -> VersionVector {
        guard let bytes = try tx.value(forKey: Self.prunedKey, in: meta) else { return VersionVector() }
        do throws(DecodingError) {
            return try Self.decodePruned(bytes)
        } catch {
            throw StoreError.corrupt(database: meta.name, problem: "the \"pruned\" entry: \(error.description)")
        }
    }
}

extension StoreState {
    /// Whether the change `id` lies in history compaction pruned (so it is known, but its
    /// content can no longer be compared).
    func isPruned(_ id: ChangeID, count: UInt64) throws(StoreError) -> Bool {
        let layout = layout
        do {
            let pruned = try environment.read { tx in try layout.prunedHistory(in: tx) }
            return id.counter + count <= pruned[id.replica]
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupt(database: layout.meta.name, problem: "\(error)")
        }
    }
}
