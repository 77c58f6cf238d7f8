import Foundation
import LMDB
import QuireCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store's two ways into its state: every write (local writes, merges, imports)
/// goes through ``Store/commitTransaction(origin:call:_:)``, every read through
/// ``Store/withCurrentState(call:_:)``. Both first catch up with what other processes
/// committed (``StoreState/refresh(in:snapshot:)``), then publish what they saw — under
/// the store's lock, so observers see commits in order and miss none.
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
    /// - Throws: ``StoreError/closed``, ``StoreError/nestedTransaction(_:)`` (naming
    ///   `call`) inside a transaction body of this store, what `body` throws, or an error
    ///   of the commit; the store is then exactly as before.
    func commitTransaction<R>(
        origin: StoreEvent.Origin, call: String = "the store",
        _ body: (StoreState) throws -> (result: R, applied: ChangeIDs)
    ) throws -> R {
        // Outside the lock's closure: a result handed out of `withLock` must be `sending`,
        // and one made inside `environment.write` cannot be proven so.
        var result: R?
        try withStateLock(call) { state in
            guard !state.isClosed else { throw StoreError.closed }
            let (replica, layout) = (state.replica, state.layout)
            // Two values, not a tuple: a tuple of an optional is destroyed through the
            // runtime's generic witnesses, a few hundred instructions per keystroke.
            var prepared: PreparedCommit?
            var transaction = 0
            do {
                transaction = try environment.write { tx in
                    // A body run again after the map grew starts from the committed state.
                    state.rollbackSession()
                    let committed = tx.transactionID - 1
                    try state.refresh(in: tx, snapshot: committed)
                    state.beginSession()
                    _ = state.records.takeFailure()  // a read outside this session's
                    let value: R, applied: ChangeIDs
                    do {
                        defer { state.records.endReading() }
                        (value, applied) = try body(state)
                    } catch {
                        // A record LMDB could not give (read as absent) explains what failed.
                        throw state.records.takeFailure() ?? error
                    }
                    // The body may have read a record LMDB could not give: no commit of it.
                    if let failure = state.records.takeFailure() { throw failure }
                    result = value
                    prepared = try state.prepareCommit(origin: origin, applied: applied)
                    guard let commit = prepared else { return committed }
                    try commit.perform(in: tx, layout: layout, replica: replica)
                    return tx.transactionID
                }
            } catch {
                state.rollbackSession()
                throw error
            }
            // Published under the lock: an observer registered under it (``events(since:)``,
            // ``observe(_:)``) sees every commit after its start and none before, and all
            // see commits in commit order.
            if let event = state.takeOtherProcessEvent() { publish(event, state: state) }
            if let commit = prepared.take() {
                publish(state.finish(commit, transaction: transaction), state: state)
            } else {
                state.endEmptySession()
            }
        }
        return result!
    }

    /// Runs `body` on the state as of LMDB's latest commit, under the store's lock.
    ///
    /// - Throws: ``StoreError/closed``, ``StoreError/nestedTransaction(_:)`` (naming
    ///   `call`), an error reading the state again, or what `body` throws.
    func withCurrentState<R>(call: String = "the store", _ body: (StoreState) throws -> R) throws -> R {
        var result: R?  // outside, as in `commitTransaction`
        try withStateLock(call) { state in
            guard !state.isClosed else { throw StoreError.closed }
            // The body reads what the state does not hold (records, texts) in the very
            // transaction the state was caught up in, so all it sees is one commit.
            let tx = try environment.beginRead()
            try state.refresh(in: tx, snapshot: tx.transactionID)
            state.records.install(tx)
            // Before the body, under the lock (as in `commitTransaction`): an observer the
            // body registers starts after what was caught up here.
            if let event = state.takeOtherProcessEvent() { publish(event, state: state) }
            _ = state.records.takeFailure()
            result = try body(state)
            if let failure = state.records.takeFailure() { throw failure }
        }
        return result!
    }

    /// Publishes what other processes committed, if the last transaction noticed any.
    func publishOtherProcessEvent() {
        try? withStateLock("the store") { state in
            if let event = state.takeOtherProcessEvent() { publish(event, state: state) }
        }
    }

    /// Runs `body` under the store's lock — the one way to take it.
    ///
    /// A call from inside a transaction body of this store (the thread holds the lock
    /// already) throws ``StoreError/nestedTransaction(_:)`` instead of locking again,
    /// which `Mutex` answers with a fatal error ("Recursive call to lock Mutex").
    ///
    /// The check is per thread, and exact: transaction bodies are synchronous, so the
    /// thread that holds the lock is the one running the body; the holder's ID is stored
    /// after locking and cleared before unlocking, and no other thread ever stores this
    /// thread's ID.
    ///
    /// - Parameter call: The public call, for the error (`"store.write"`).
    /// - Throws: ``StoreError/nestedTransaction(_:)``, or what `body` throws.
    func withStateLock<R>(_ call: String, _ body: (StoreState) throws -> R) throws -> R {
        let thread = currentThreadID()
        guard lockHolder.load(ordering: .relaxed) != thread, !isReadingOnThisThread() else {
            throw StoreError.nestedTransaction(call)
        }
        var result: R?  // outside, as in `commitTransaction`
        try state.withLock { state in
            lockHolder.store(thread, ordering: .relaxed)
            defer {
                state.records.endReading()  // whatever the body read records for
                lockHolder.store(0, ordering: .relaxed)
            }
            result = try body(state)
        }
        return result!
    }

    /// Whether the calling thread runs a read body of this store.
    private func isReadingOnThisThread() -> Bool {
        ThreadReads.current.openSnapshot(of: self) != nil
    }

    /// The snapshot of the read body the calling thread runs, if it runs one.
    var snapshotReadByThisThread: StoreSnapshot? {
        ThreadReads.current.openSnapshot(of: self)
    }

    /// The state, when the calling thread holds the store's lock (it runs a transaction
    /// body of this store); `nil` otherwise. Lets the properties that cannot throw
    /// (``version``, ``storeID``) answer inside a body from the state already held.
    var stateHeldByThisThread: StoreState? {
        lockHolder.load(ordering: .relaxed) == currentThreadID() ? lockedState : nil
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
        lockedState.reportsOtherProcessChanges.store(watching, ordering: .relaxed)  // no lock: may run inside a body
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

/// The calling thread's ID, for ``Store/withStateLock(_:_:)``.
func currentThreadID() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}
