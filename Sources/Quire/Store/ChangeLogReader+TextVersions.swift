import LMDB
import QuireCore

/// From a store version to a text version.
///
/// A store version counts each replica's *changes*; a text's versions count that text's
/// own *operations* (see `docs/text.md` § Versions). A replica's text counter at a store
/// version is where its last operation on the text among its changes below the version
/// ends — found in the change log, read backwards from the version, so a recent version
/// costs a few entries and an old one at most the replica's log below it.
extension ChangeLogReader {
    /// The version of `text` (in its own operation counters) that the store had at
    /// `version`.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - version: A store version (replica → next change counter) within this store's.
    ///   - current: The text as it is now, `nil` when it was never written.
    /// - Throws: ``StoreError/versionBeyondStore(replica:counter:known:)`` for a version
    ///   this store has not reached, ``StoreError/versionPruned(replica:counter:keptFrom:)``
    ///   for one in pruned history, ``StoreError/corrupt(database:problem:)`` for a log
    ///   entry that does not decode.
    /// - Complexity: Per replica, the log entries from the version back to its last change
    ///   to the text (each decoded).
    func textVersion(of text: TextID, at version: VersionVector, current: ReplicatedText?) throws -> VersionVector {
        let replicas = try replicasReached(by: version)
        let layout = layout
        return try withLogTransaction { tx in
            let pruned = try layout.prunedHistory(in: tx)
            var counters: [ReplicaID: UInt64] = [:]
            for (replica, counter) in replicas {
                if counter < pruned[replica] {
                    throw StoreError.versionPruned(replica: replica, counter: counter, keptFrom: pruned[replica])
                }
                let below = KeyRange(
                    from: StoreLayout.changeKey(ChangeID(replica: replica, counter: 0)),
                    to: StoreLayout.changeKey(ChangeID(replica: replica, counter: counter)))
                if let end = try lastEntry(in: below, reverse: true, of: tx, clampedBelow: counter, map: { Self.end(of: text, in: $0) }) {
                    counters[replica] = end
                } else if pruned[replica] > 0 {
                    // The replica's operations on the text before the pruned point are gone
                    // from the log, but its counters on one text are contiguous: it had up
                    // to where its next operation on the text starts, or all it has now.
                    let above = KeyRange(
                        from: StoreLayout.changeKey(ChangeID(replica: replica, counter: counter)),
                        to: StoreLayout.changeKey(ChangeID(replica: replica, counter: UInt64.max)))
                    let start = try lastEntry(in: above, reverse: false, of: tx, clampedBelow: UInt64.max) { Self.start(of: text, in: $0) }
                    counters[replica] = start ?? current?.nextCounter(of: replica) ?? 0
                }
            }
            return VersionVector(counters.filter { $0.value > 0 })
        }
    }

    /// The first value `map` gives for the log entries of `range` (read backwards when
    /// `reverse`), each clamped to the counters below `limit`.
    private func lastEntry<T: ReadableTransaction & ~Copyable>(
        in range: KeyRange, reverse: Bool, of tx: borrowing T, clampedBelow limit: UInt64, map: (ChangeUnit) -> UInt64?
    ) throws -> UInt64? {
        var found: UInt64?
        var failure: StoreError?
        try tx.scan(layout.changes, range: range, reverse: reverse) { key, value in
            do throws(StoreError) {
                // A run reaching past the version keeps only its changes below it.
                guard let unit = try decodeLogEntry(key: key, value: value).clamped(to: 0..<limit) else { return .continue }
                found = map(unit)
            } catch {
                failure = error
            }
            return found == nil && failure == nil ? .continue : .stop
        }
        if let failure { throw failure }
        return found
    }

    /// The text counter after `unit`'s last operation on `text`, if it has any.
    private static func end(of text: TextID, in unit: ChangeUnit) -> UInt64? {
        operations(on: text, in: unit).last.map { $0.id.counter + UInt64($0.length) }
    }

    /// The text counter of `unit`'s first operation on `text`, if it has any.
    private static func start(of text: TextID, in unit: ChangeUnit) -> UInt64? {
        operations(on: text, in: unit).first?.id.counter
    }

    /// `unit`'s operations on `text`, in order.
    private static func operations(on text: TextID, in unit: ChangeUnit) -> [TextOperation] {
        switch unit {
        case .run(let run):
            return run.text == text ? run.operations : []
        case .change(let change):
            var operations: [TextOperation] = []
            for case .text(let edited, let edits) in change.operations where edited == text { operations += edits }
            return operations
        }
    }
}
