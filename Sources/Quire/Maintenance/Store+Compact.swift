import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LMDB
import QuireCore

/// What ``Store/pruneHistory(acknowledged:)`` removed, or why it removed nothing.
public struct PruneReport: Hashable, Sendable, CustomStringConvertible {
    /// Change-log entries removed.
    public var prunedChanges = 0
    /// Their bytes (values only).
    public var prunedBytes = 0
    /// Per replica, the first counter the log keeps now (absent: the whole history).
    public var keptFrom = VersionVector()
    /// Per replica, the counter every known replica has acknowledged (and the checkpoint
    /// covers): the most that could be pruned.
    public var acknowledgedByAll = VersionVector()
    /// Known replicas without an acknowledgement; while there are any, nothing is pruned.
    public var unacknowledged: [ReplicaID] = []

    /// One sentence: what was pruned, or what blocks pruning.
    public var description: String {
        if !unacknowledged.isEmpty {
            let names = unacknowledged.map(\.description).joined(separator: ", ")
            return "pruned nothing: no acknowledgement from replica\(unacknowledged.count == 1 ? "" : "s") \(names), which may lack changes; sync with them first (their ack files) or pass their versions"
        }
        guard prunedChanges > 0 else { return "pruned nothing: no change has been acknowledged by every known replica beyond what was pruned before" }
        return "pruned \(prunedChanges) change\(prunedChanges == 1 ? "" : "s") (\(prunedBytes) bytes) every known replica has acknowledged"
    }
}

/// What a compaction did.
public struct CompactionReport: Hashable, Sendable {
    /// The data file's size before.
    public var bytesBefore = 0
    /// The compacted data file's size.
    public var bytesAfter = 0
    /// The pruning done first, when acknowledgements were given.
    public var pruning: PruneReport?
}

/// Why an in-place compaction did not replace the store's file.
public struct CompactionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The store directory.
    public var directory: String
    /// What went wrong and what to do.
    public var problem: String

    public var description: String { "cannot compact \(directory): \(problem)" }
}

extension Store {
    /// Removes from the change log the changes every known replica has acknowledged.
    ///
    /// ```swift
    /// let acknowledgements = try HistoryAcknowledgements(syncFolder: syncFolder)
    /// let report = try store.pruneHistory(acknowledged: acknowledgements)
    /// ```
    ///
    /// Known replicas are this one, every replica the store has changes of or has heard
    /// of (in dependencies and what other replicas had seen), and every replica in
    /// `acknowledged`. A change is pruned only when **each** of them has acknowledged it,
    /// and only whole changes from the start of a replica's history; a known replica
    /// without an acknowledgement blocks all pruning. A checkpoint is written first, so
    /// text snapshots hold every pruned edit.
    ///
    /// What remains works as before: reading, writing, merging, ``verify()``, and
    /// exporting what a peer lacks. What pruning costs: this store can no longer give the
    /// pruned history to anyone — ``exportDelta(since:)`` or ``changes(since:)`` for a
    /// version below what is kept throw ``PrunedHistoryError`` (a new replica needs a
    /// full export from a replica that kept its history), and a known change arriving
    /// again is accepted as known without comparing its content.
    ///
    /// - Parameter acknowledged: What the other replicas have (sync folder `ack` files,
    ///   version files).
    /// - Returns: What was pruned, or which replicas block it.
    /// - Throws: ``StoreError/closed``, an `LMDBError` from the write.
    @discardableResult
    public func pruneHistory(acknowledged: HistoryAcknowledgements) throws -> PruneReport {
        try withStateLock("store.pruneHistory") { state in
            guard !state.isClosed else { throw StoreError.closed }
            try state.writeCheckpoint()
            return try state.pruneHistory(acknowledged: acknowledged)
        }
    }

    /// Writes a compacted copy of the store into `destination`: free pages left out, the
    /// rest renumbered, after a checkpoint. The store stays open and usable meanwhile; the
    /// copy is a complete store (the same replica — see the warning below).
    ///
    /// ```swift
    /// try store.compact(to: backupDirectory)
    /// ```
    ///
    /// - Warning: The copy carries this replica's ID. Use it as a backup or to replace
    ///   this store's file, never as a second replica that writes.
    /// - Parameter destination: An empty or missing directory.
    /// - Returns: The data file's size before and the copy's size.
    /// - Throws: ``StoreError/closed``, an `LMDBError` naming the destination.
    @discardableResult
    public func compact(to destination: String) throws -> CompactionReport {
        try withStateLock("store.compact") { state in
            guard !state.isClosed else { throw StoreError.closed }
            try state.writeCheckpoint()
        }
        var report = CompactionReport()
        report.bytesBefore = Self.dataFileSize(directory)
        try environment.copy(to: destination, compacting: true)
        report.bytesAfter = Self.dataFileSize(destination)
        return report
    }

    /// Compacts the store in `directory` in place: prunes acknowledged history (when
    /// `acknowledged` is given), writes a compacted copy, checks it with
    /// ``verify(directory:)`` and puts it in place of the store's data file.
    ///
    /// ```swift
    /// let report = try Store.compact(directory: path, acknowledged: try HistoryAcknowledgements(syncFolder: folder))
    /// ```
    ///
    /// The store must not be open anywhere: not in this process, and not in another one
    /// (checked with LMDB's own lock; the file is then left as it was).
    ///
    /// - Parameters:
    ///   - directory: The store directory.
    ///   - acknowledged: What the other replicas have; `nil` to prune nothing.
    /// - Returns: Sizes before and after, and the pruning report.
    /// - Throws: ``CompactionError`` when another process has the store open or the copy
    ///   does not verify; ``StoreError``, `LMDBError` from opening or copying.
    @discardableResult
    public static func compact(directory: String, acknowledged: HistoryAcknowledgements? = nil) throws -> CompactionReport {
        guard FileManager.default.fileExists(atPath: directory + "/data.mdb") else {
            throw StoreError.corrupt(database: "data.mdb", problem: "\(directory) holds no store (no data.mdb)")
        }
        let copy = directory + "/.compacting-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let store = try Store(directory: directory)
        var report: CompactionReport
        do {
            let pruning = try acknowledged.map { try store.pruneHistory(acknowledged: $0) }
            report = try store.compact(to: copy)
            report.pruning = pruning
            try store.close()
        } catch {
            try? store.close()
            throw error
        }
        let check = try verify(directory: copy)
        guard check.isHealthy else {
            throw CompactionError(directory: directory, problem: "the compacted copy does not verify (\(check.problems[0])); the store was left as it was — run 'quire verify'")
        }
        try replaceDataFile(of: directory, with: copy + "/data.mdb")
        return report
    }

    /// Renames `replacement` over the store's `data.mdb` while holding LMDB's exclusive
    /// lock, which no other process can get while it has the store open.
    private static func replaceDataFile(of directory: String, with replacement: String) throws {
        let lockPath = directory + "/lock.mdb"
        let descriptor = open(lockPath, O_RDWR)
        guard descriptor >= 0 else {
            throw CompactionError(directory: directory, problem: "cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        defer { Glibc.close(descriptor) }
        // LMDB holds a read lock on the lock file's first byte for as long as a process
        // has the environment open; a write lock there is granted only to a sole user.
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 1
        guard fcntl(descriptor, F_SETLK, &lock) == 0 else {
            throw CompactionError(directory: directory, problem: "another process has the store open; close it (the app, or another quire command) and compact again — nothing was changed")
        }
        guard rename(replacement, directory + "/data.mdb") == 0 else {
            throw CompactionError(directory: directory, problem: "cannot rename the compacted copy into place: \(String(cString: strerror(errno))); the store was left as it was")
        }
        let directoryDescriptor = open(directory, O_RDONLY)
        if directoryDescriptor >= 0 {
            _ = fsync(directoryDescriptor)
            Glibc.close(directoryDescriptor)
        }
    }

    static func dataFileSize(_ directory: String) -> Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/data.mdb")
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }
}

extension StoreState {
    /// Every replica this store knows to exist, itself excluded.
    var knownReplicas: Set<ReplicaID> {
        var known = Set(meta.version.counters.keys)
        known.formUnion(meta.lastDependencies.counters.keys)
        for (replica, seen) in meta.seen {
            known.insert(replica)
            known.formUnion(seen.counters.keys)
        }
        known.formUnion(pending.keys.map(\.replica))
        known.remove(replica)
        return known
    }

    /// Prunes the changes every known replica acknowledged, up to the checkpoint, in one
    /// write transaction (after catching up with other processes).
    func pruneHistory(acknowledged: HistoryAcknowledgements) throws -> PruneReport {
        let layout = layout
        let (report, transaction) = try environment.write { tx -> (PruneReport, Int?) in
            try refresh(in: tx, snapshot: tx.transactionID - 1)
            var acknowledgements = acknowledged
            acknowledgements.note(replica, has: meta.version)
            for other in knownReplicas { acknowledgements.noteExists(other) }
            var report = PruneReport()
            let kept = try layout.prunedHistory(in: tx)
            report.keptFrom = kept
            report.unacknowledged = acknowledgements.unacknowledged.sorted()
            guard report.unacknowledged.isEmpty else { return (report, nil) }

            for (replica, has) in meta.version.counters {
                var limit = min(has, meta.checkpoint[replica])
                for version in acknowledgements.versions.values { limit = min(limit, version[replica]) }
                report.acknowledgedByAll[replica] = limit
            }
            var removals: [Key] = []
            var replacements: [(Key, [UInt8])] = []
            var slotWrites = DiskWrites()  // stays empty: a logged run's text has its slot
            var newKept = kept
            for (replica, limit) in report.acknowledgedByAll.counters.sorted(by: { $0.key < $1.key }) where limit > kept[replica] {
                let start = StoreLayout.changeKey(ChangeID(replica: replica, counter: kept[replica]))
                let end = StoreLayout.changeKey(ChangeID(replica: replica, counter: UInt64.max))
                var failure: StoreError?
                try tx.scan(layout.changes, range: KeyRange(from: start, to: end)) { key, value in
                    let id = StoreLayout.changeID(fromKey: key)
                    var reader = ByteReader(Array(value.prefix(1024)))
                    guard let end = try? ChangeUnit.logEntryEnd(&reader, id: id).end, end > id.counter else {
                        failure = .corrupt(database: layout.changes.name, problem: "change \(id) does not decode; run 'quire verify'")
                        return .stop
                    }
                    guard id.counter == newKept[replica] else { return .stop }
                    guard end <= limit else {
                        // A run reaching past the limit loses its changes before it: its
                        // rest is logged anew under its first kept change. A change stays whole.
                        guard id.counter < limit, value.first == 0 else { return .stop }
                        do throws(StoreError) {
                            guard case .run(let run) = try decodeLogEntry(key: key, value: value) else { return .stop }
                            let rest = run.suffix(from: limit)
                            var unusedSlots: [TextID: UInt64] = [:]
                            replacements.append((StoreLayout.changeKey(rest.id), logEntry(rest, newSlots: &unusedSlots, writes: &slotWrites)))
                        } catch {
                            failure = error
                            return .stop
                        }
                        removals.append(StoreLayout.changeKey(id))
                        report.prunedChanges += Int(limit - id.counter)
                        newKept[replica] = limit
                        return .stop
                    }
                    removals.append(StoreLayout.changeKey(id))
                    report.prunedChanges += ChangeUnit.changeCount(ofLogEntry: value)
                    report.prunedBytes += value.count
                    newKept[replica] = end
                    return .continue
                }
                if let failure { throw failure }
            }
            report.keptFrom = newKept
            guard !removals.isEmpty else { return (report, nil) }
            var writes = DiskWrites()
            for key in removals { writes.remove(key, layout.changes) }
            for (key, value) in replacements { writes.put(value, key, layout.changes) }
            writes.put(StoreLayout.encode(pruned: newKept), StoreLayout.prunedKey, layout.meta)
            // The stored meta record may lag behind this replica's last change, which opening
            // reads from the log (`catchUp`); that change may be pruned now.
            writes.put(meta.encoded(), StoreLayout.metaKey, layout.meta)
            try writes.perform(in: tx)
            return (report, tx.transactionID)
        }
        if let transaction { knownTransaction = transaction }
        return report
    }
}
