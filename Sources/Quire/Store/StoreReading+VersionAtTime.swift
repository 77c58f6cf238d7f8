import Foundation
import LMDB
import QuireCore

extension StoreReading where Self: ~Copyable {
    /// The store's version as of `date`: every change made at or before it, by the
    /// clocks of the replicas that made them (``Change/time``).
    ///
    /// ```swift
    /// let tuesday = try store.read { tx in try tx.version(at: tuesdayEvening) }
    /// let then = try store.read { tx in try tx.string(of: chapter, at: tuesday) }
    /// ```
    ///
    /// Changes made before stores kept times, and changes pruned from the log (before
    /// ``historyKeptFrom``; their times are gone), count as made before any date. The
    /// version is causally closed — a change is left out when one it was made after is,
    /// which happens only when the replicas' clocks disagree — so every
    /// ``string(of:at:)``, ``diff(of:from:to:)`` and ``StoreWriter/restore(_:to:)``
    /// accepts it.
    ///
    /// - Parameter date: A moment; whole seconds count (a change's time is its second).
    /// - Returns: A version within ``version``; for a date before the first change, empty
    ///   (or the pruned history).
    /// - Throws: ``StoreError/corrupt(database:problem:)`` for a log entry that does not
    ///   decode.
    /// - Complexity: Per replica, its log entries from the newest back to the date, then
    ///   the entries up to it once more for their dependencies.
    public func version(at date: Date) throws -> VersionVector {
        let seconds = date.timeIntervalSince1970
        guard seconds >= 1 else { return VersionVector() }
        return try _view.version(atTime: UInt64(min(seconds, Double(Change.maximumTime)).rounded(.down)))
    }
}

extension ChangeLogReader {
    /// See ``StoreReading/version(at:)``.
    func version(atTime time: UInt64) throws -> VersionVector {
        try withLogTransaction { tx in
            var cuts: [ReplicaID: UInt64] = [:]
            // Where each replica's changes wait for another's: (counter, dependencies).
            var constraints: [ReplicaID: [(counter: UInt64, dependencies: VersionVector)]] = [:]
            let pruned = try layout.prunedHistory(in: tx)
            for replica in meta.version.counters.keys.sorted() where meta.version[replica] > 0 {
                var cut: UInt64?
                var failure: StoreError?
                try tx.scan(layout.changes, range: .prefix(Key(replica.rawValue)), reverse: true) { key, value in
                    do throws(StoreError) {
                        let unit = try decodeLogEntry(key: key, value: value)
                        cut = Self.end(of: unit, madeBy: time)
                        return cut == nil ? .continue : .stop
                    } catch {
                        failure = error
                        return .stop
                    }
                }
                if let failure { throw failure }
                guard let cut else {
                    // Every logged change is after the date. Pruned ones, whose times are gone,
                    // count as before it, or a change depending on them would be left out too.
                    if pruned[replica] > 0 { cuts[replica] = pruned[replica] }
                    continue
                }
                cuts[replica] = cut
                let below = KeyRange(
                    from: StoreLayout.changeKey(ChangeID(replica: replica, counter: 0)),
                    to: StoreLayout.changeKey(ChangeID(replica: replica, counter: cut)))
                try tx.scan(layout.changes, range: below) { key, value in
                    do throws(StoreError) {
                        let unit = try decodeLogEntry(key: key, value: value)
                        let dependencies = unit.dependencies
                        if !dependencies.counters.isEmpty {
                            constraints[replica, default: []].append((unit.id.counter, dependencies))
                        }
                    } catch {
                        failure = error
                        return .stop
                    }
                    return .continue
                }
                if let failure { throw failure }
            }
            // Clocks can disagree: leave out what depends on a change left out, until
            // nothing does.
            var changed = true
            while changed {
                changed = false
                for (replica, waits) in constraints {
                    for wait in waits where wait.counter < cuts[replica, default: 0] {
                        if wait.dependencies.counters.contains(where: { cuts[$0.key, default: 0] < $0.value }) {
                            cuts[replica] = wait.counter
                            changed = true
                        }
                    }
                }
            }
            return VersionVector(cuts.filter { $0.value > 0 })
        }
    }

    /// The counter after the last change of `unit` made at or before `time` (a time of
    /// 0, unknown, counts as before), or `nil` when its first change came after.
    private static func end(of unit: ChangeUnit, madeBy time: UInt64) -> UInt64? {
        switch unit {
        case .change(let change):
            return change.time <= time ? change.endCounter : nil
        case .run(let run):
            guard run.time <= time else { return nil }
            var counter = run.id.counter + 1, at = run.time
            for step in run.timeSteps {
                // Each of `step.times` changes comes `step.value` seconds after the one before.
                guard step.value > 0 else {
                    counter += step.times
                    continue
                }
                let fitting = min(step.times, (time - at) / step.value)
                counter += fitting
                at += fitting * step.value
                if fitting < step.times { return counter }
            }
            return run.endCounter
        }
    }
}
