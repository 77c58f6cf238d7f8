#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tracks the transactions open in this process, so the map is only resized (and the
/// environment only closed) while none is open — LMDB requires it and does not check.
///
/// Transactions enter shared; growing the map or closing enters exclusive, which waits
/// for every open transaction in the process to end and holds new ones back meanwhile.
/// The gate also knows which thread holds what, which lets the layer refuse the two
/// cases LMDB would deadlock on: a write begun on a thread that already writes, and a
/// map resize requested by a thread that still holds a transaction.
///
/// `@unchecked Sendable`: the only mutable state is behind `mutex`; `pthread_cond_wait`
/// needs a `pthread_mutex_t`, which is why this is not a `Mutex`.
final class TransactionGate: @unchecked Sendable {
    private struct ThreadState {
        var transactions = 0
        var writing = false
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    // Unchecked exclusivity: `mutex` serializes every access, so Swift's dynamic checks
    // (six calls into the runtime per transaction) only cost time.
    @exclusivity(unchecked) private var active = 0
    @exclusivity(unchecked) private var exclusiveHeld = false
    @exclusivity(unchecked) private var closed = false
    /// Why later transactions are refused once closed.
    @exclusivity(unchecked) private var closedReason = LMDBError.Code.environmentClosed
    /// The threads that hold transactions, with what they hold. Few at a time, so a
    /// linear scan beats hashing.
    @exclusivity(unchecked) private var threads: [(thread: UInt, state: ThreadState)] = []

    private func state(of thread: UInt) -> ThreadState? {
        threads.first { $0.thread == thread }?.state
    }

    private func setState(_ state: ThreadState, of thread: UInt) {
        if let index = threads.firstIndex(where: { $0.thread == thread }) {
            if state.transactions == 0 {
                threads.swapAt(index, threads.count - 1)
                threads.removeLast()
            } else {
                threads[index].state = state
            }
        } else if state.transactions > 0 {
            threads.append((thread, state))
        }
    }

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Registers a transaction about to begin on the calling thread.
    ///
    /// - Throws: ``LMDBError/Code/nestedWrite`` for a second write on one thread,
    ///   ``LMDBError/Code/environmentClosed`` after ``close()``.
    func enter(writing: Bool, operation: LMDBError.Operation) throws(LMDBError) {
        let thread = currentThreadID()
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        // A thread that already holds a transaction is let in even while a resize is
        // pending: the resize cannot proceed before that thread finishes anyway.
        while exclusiveHeld && state(of: thread) == nil && !closed {
            pthread_cond_wait(changed, mutex)
        }
        if closed { throw LMDBError(closedReason, operation: operation) }
        var held = state(of: thread) ?? ThreadState()
        if writing && held.writing { throw LMDBError(.nestedWrite, operation: operation) }
        held.transactions += 1
        held.writing = held.writing || writing
        setState(held, of: thread)
        active += 1
    }

    /// Unregisters a transaction of the calling thread that has ended.
    func leave(writing: Bool) {
        let thread = currentThreadID()
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if var held = state(of: thread) {
            held.transactions -= 1
            if writing { held.writing = false }
            setState(held, of: thread)
        }
        active -= 1
        if active == 0 { pthread_cond_broadcast(changed) }
    }

    /// Runs `body` while no transaction is open in the process.
    ///
    /// - Parameter closing: When true, the gate stays closed afterwards and every later
    ///   ``enter(writing:operation:)`` throws.
    /// - Throws: ``LMDBError/Code/growthBlocked`` when the calling thread itself holds a
    ///   transaction (waiting would never end), or what `body` throws.
    func exclusively<R>(
        operation: LMDBError.Operation, closing: Bool = false, _ body: () throws(LMDBError) -> R
    ) throws(LMDBError) -> R {
        let thread = currentThreadID()
        pthread_mutex_lock(mutex)
        if state(of: thread) != nil {
            pthread_mutex_unlock(mutex)
            throw LMDBError(.growthBlocked, operation: operation)
        }
        while exclusiveHeld { pthread_cond_wait(changed, mutex) }
        if closed && !closing {
            pthread_mutex_unlock(mutex)
            throw LMDBError(closedReason, operation: operation)
        }
        exclusiveHeld = true
        while active > 0 { pthread_cond_wait(changed, mutex) }
        pthread_mutex_unlock(mutex)

        defer {
            pthread_mutex_lock(mutex)
            exclusiveHeld = false
            if closing { closed = true }
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }
        return try body()
    }

    /// Closes the gate for good because the environment became unusable; called from
    /// inside ``exclusively(operation:closing:_:)``.
    func markFailed() {
        pthread_mutex_lock(mutex)
        closed = true
        closedReason = .environmentFailed
        pthread_mutex_unlock(mutex)
    }

    /// Whether the calling thread is inside a transaction body.
    var callingThreadHoldsTransaction: Bool {
        let thread = currentThreadID()
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return state(of: thread) != nil
    }

    /// Whether ``exclusively(operation:closing:_:)`` has closed the gate for good.
    var isClosed: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return closed
    }
}

/// An identifier of the calling thread, unique among live threads.
private func currentThreadID() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}
