import Foundation
import LMDB
import QuireCore

/// The store's two ways into its state: every write (local writes, merges, imports)
/// goes through ``Store/commitTransaction(origin:_:)``, every read through
/// ``Store/withCurrentState(_:)``. Both first catch up with what other processes
/// committed (``StoreState/refresh(in:snapshot:)``), then publish what they saw.
extension Store {
    /// Runs `body` as one write session inside one LMDB write transaction and commits
    /// it: begin, catch up, body, commit or roll back, publish — written once, here.
    ///
    /// LMDB's writer lock is held from before the state is checked until the commit, so
    /// no other process can write in between: counters, clocks and every value the body
    /// reads are the latest on disk.
    ///
    /// - Parameters:
    ///   - origin: `.local` for a write of this replica, `.remote` for a merge.
    ///   - body: Changes the state; returns its result and, for merges, the changes
    ///     applied in order. It may run more than once (after the map grew).
    /// - Returns: The body's result.
    /// - Throws: ``StoreError/closed``, what `body` throws, or an error of the commit;
    ///   the store is then exactly as before.
    func commitTransaction<R>(
        origin: StoreEvent.Origin, _ body: (StoreState) throws -> (result: R, applied: [ChangeID])
    ) throws -> R {
        // Outside the lock's closure: a result handed out of `withLock` must be `sending`,
        // and one made inside `environment.write` cannot be proven so.
        var result: R?
        let events = try state.withLock { state -> [StoreEvent] in
            guard !state.isClosed else { throw StoreError.closed }
            let (replica, layout) = (state.replica, state.layout)
            let written: (commit: PreparedCommit?, transaction: Int)
            do {
                written = try environment.write { tx in
                    // A body run again after the map grew starts from the committed state.
                    state.rollbackSession()
                    let committed = tx.transactionID - 1
                    try state.refresh(in: tx, snapshot: committed)
                    state.beginSession()
                    let (value, applied) = try body(state)
                    result = value
                    guard let commit = try state.prepareCommit(origin: origin, applied: applied) else {
                        return (nil, committed)
                    }
                    try commit.perform(in: tx, layout: layout, replica: replica)
                    return (commit, tx.transactionID)
                }
            } catch {
                state.rollbackSession()
                throw error
            }
            var events = state.takeOtherProcessEvent().map { [$0] } ?? []
            if let commit = written.commit {
                events.append(state.finish(commit, transaction: written.transaction))
            } else {
                state.endEmptySession()
            }
            return events
        }
        for event in events { publish(event) }
        return result!
    }

    /// Runs `body` on the state as of LMDB's latest commit, under the store's lock.
    ///
    /// - Throws: ``StoreError/closed``, an error reading the state again, or what `body`
    ///   throws.
    func withCurrentState<R>(_ body: (StoreState) throws -> R) throws -> R {
        var result: R?  // outside, as in `commitTransaction`
        let event = try state.withLock { state -> StoreEvent? in
            guard !state.isClosed else { throw StoreError.closed }
            try environment.read { tx in try state.refresh(in: tx, snapshot: tx.transactionID) }
            result = try body(state)
            return state.takeOtherProcessEvent()
        }
        if let event { publish(event) }
        return result!
    }

    /// Publishes what other processes committed, if the last transaction noticed any.
    func publishOtherProcessEvent() {
        if let event = state.withLock({ $0.takeOtherProcessEvent() }) { publish(event) }
    }

    /// Catches up with other processes now: their commits reach ``events()`` without
    /// waiting for this store's next transaction.
    func pollOtherProcesses() {
        _ = try? withCurrentState { _ in }
    }

    /// Starts or stops polling for other processes' commits, as observers come and go.
    ///
    /// LMDB has no change notification across processes; a check is one read
    /// transaction, so polling every 50 ms costs nothing noticeable.
    func watchOtherProcesses(_ watching: Bool) {
        state.withLock { $0.reportsOtherProcessChanges = watching }
        otherProcessWatch.withLock { timer in
            guard watching != (timer != nil) else { return }
            guard watching else {
                timer?.cancel()
                timer = nil
                return
            }
            let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "quire.store.other-processes"))
            source.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50), leeway: .milliseconds(10))
            source.setEventHandler { [weak self] in self?.pollOtherProcesses() }
            source.resume()
            timer = source
        }
    }
}

extension StoreState {
    /// Hands out what other processes committed, once.
    func takeOtherProcessEvent() -> StoreEvent? {
        defer { otherProcessEvent = nil }
        return otherProcessEvent
    }
}
