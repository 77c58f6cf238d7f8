import Foundation
import LMDB
import QuireCore

/// Sizes and counts of a store, for status displays and benchmarks.
public struct StoreStatistics: Hashable, Sendable {
    /// Changes in the change log.
    public var changeCount = 0
    /// Entries in the change log: a change, or a run of a text's keystroke changes.
    public var changeLogEntries = 0
    /// The bytes of all change-log entries (values only, without LMDB's keys and pages).
    public var changeLogBytes = 0
    /// Changes from other replicas waiting for their dependencies.
    public var pendingCount = 0
    /// Records, deleted ones included.
    public var recordCount = 0
    /// Texts stored.
    public var textCount = 0
    /// The size of the store's data file.
    public var fileBytes = 0
}

extension Store {
    /// Counts and measures the store.
    ///
    /// - Complexity: O(*c*) for *c* changes: the change log is scanned.
    public func statistics() throws -> StoreStatistics {
        try withCurrentState { state in
            var statistics = StoreStatistics()
            let layout = state.layout
            try environment.read { tx in
                try tx.scan(layout.changes) { key, value in
                    statistics.changeCount += key.count == 16 ? ChangeUnit.changeCount(ofLogEntry: value) : 1
                    statistics.changeLogEntries += 1
                    statistics.changeLogBytes += value.count
                    return .continue
                }
                statistics.pendingCount = try tx.count(in: layout.pending)
                statistics.recordCount = try tx.count(in: layout.records)
                try tx.scan(layout.texts) { key, _ in
                    if TextSnapshotStorage.isFirstChunk(key) { statistics.textCount += 1 }
                    return .continue
                }
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/data.mdb")
            statistics.fileBytes = (attributes?[.size] as? NSNumber)?.intValue ?? 0
            return statistics
        }
    }
}
