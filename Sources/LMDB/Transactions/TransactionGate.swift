#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Tracks the transactions open in this process, so the map is only resized (and the
/// environment only closed) while none is open — LMDB requires it and does not check.
///
/// Transactions enter shared; growing the map or closing enters exclusive, which waits
/// for every open transaction in the process to end and holds new ones back meanwhile.
/// The gate also knows which thread holds what, which lets the layer refuse the two
/// cases LMDB would deadlock on: a write begun on a thread that already writes, and a
/// map resize requested by a thread that still holds a transaction.
///
/// Entering and leaving take no lock: an atomic count of the open transactions, checked
/// against an atomic "exclusive" flag (each side writes its own word, then reads the
/// other's, in one sequentially consistent order, so they cannot both miss each other),
/// and what each thread holds in that thread's own storage (``ThreadTransactions``).
/// Only a transaction that meets a pending resize or close, and the resize or close
/// itself, take the mutex and wait on the condition.
///
/// `@unchecked Sendable`: the atomics are safe to share, ``closedReason`` is written
/// under `mutex` before ``closed`` is set and read only after, and
/// `pthread_cond_wait` needs a `pthread_mutex_t`, which is why this is not a `Mutex`.
final class TransactionGate: @unchecked Sendable {
    /// The transactions open in the process, of every thread.
    private let active = Atomic<Int>(0)
    /// Set while a resize or close waits for the open transactions to end, or runs.
    private let exclusiveHeld = Atomic<Bool>(false)
    /// Set for good by closing, or when the environment became unusable.
    private let closed = Atomic<Bool>(false)
    /// Why later transactions are refused once closed.
    @exclusivity(unchecked) private var closedReason = LMDBError.Code.environmentClosed

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>

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
        try ThreadTransactions.withCurrent { mine throws(LMDBError) in try enter(writing: writing, operation: operation, mine) }
    }

    private func enter(writing: Bool, operation: LMDBError.Operation, _ mine: ThreadTransactions) throws(LMDBError) {
        var held = mine.held(in: self)
        if writing && held.writing { throw LMDBError(.nestedWrite, operation: operation) }
        active.wrappingAdd(1, ordering: .sequentiallyConsistent)
        // A thread that already holds a transaction is let in even while a resize is
        // pending: the resize cannot proceed before that thread finishes anyway.
        if exclusiveHeld.load(ordering: .sequentiallyConsistent) && held.transactions == 0 || closed.load(ordering: .acquiring) {
            leaveCount()
            try waitToEnter(operation: operation, holding: held.transactions > 0)
        }
        held.transactions += 1
        held.writing = held.writing || writing
        mine.set(held, in: self)
    }

    /// Waits (under the mutex) until no resize or close is pending, then counts the
    /// transaction in; throws when the gate closed meanwhile.
    private func waitToEnter(operation: LMDBError.Operation, holding: Bool) throws(LMDBError) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while exclusiveHeld.load(ordering: .sequentiallyConsistent) && !holding && !closed.load(ordering: .acquiring) {
            pthread_cond_wait(changed, mutex)
        }
        if closed.load(ordering: .acquiring) { throw LMDBError(closedReason, operation: operation) }
        active.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    /// Unregisters a transaction of the calling thread that has ended.
    func leave(writing: Bool) {
        ThreadTransactions.withCurrent { mine in
            var held = mine.held(in: self)
            if held.transactions > 0 {
                held.transactions -= 1
                if writing { held.writing = false }
                mine.set(held, in: self)
            }
        }
        leaveCount()
    }

    /// Counts one transaction out, waking a resize or close that waits for the last.
    private func leaveCount() {
        let remaining = active.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue
        if remaining == 0 && exclusiveHeld.load(ordering: .sequentiallyConsistent) {
            pthread_mutex_lock(mutex)
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }
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
        if callingThreadHoldsTransaction { throw LMDBError(.growthBlocked, operation: operation) }
        pthread_mutex_lock(mutex)
        while exclusiveHeld.load(ordering: .sequentiallyConsistent) { pthread_cond_wait(changed, mutex) }
        if closed.load(ordering: .acquiring) && !closing {
            let reason = closedReason
            pthread_mutex_unlock(mutex)
            throw LMDBError(reason, operation: operation)
        }
        exclusiveHeld.store(true, ordering: .sequentiallyConsistent)
        while active.load(ordering: .sequentiallyConsistent) > 0 { pthread_cond_wait(changed, mutex) }
        pthread_mutex_unlock(mutex)

        defer {
            pthread_mutex_lock(mutex)
            if closing { closed.store(true, ordering: .releasing) }
            exclusiveHeld.store(false, ordering: .sequentiallyConsistent)
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }
        return try body()
    }

    /// Closes the gate for good because the environment became unusable; called from
    /// inside ``exclusively(operation:closing:_:)``.
    func markFailed() {
        pthread_mutex_lock(mutex)
        closedReason = .environmentFailed
        closed.store(true, ordering: .releasing)
        pthread_mutex_unlock(mutex)
    }

    /// Whether the calling thread is inside a transaction body.
    var callingThreadHoldsTransaction: Bool {
        ThreadTransactions.withCurrent { $0.held(in: self).transactions > 0 }
    }

    /// Whether ``exclusively(operation:closing:_:)`` has closed the gate for good.
    var isClosed: Bool {
        closed.load(ordering: .acquiring)
    }
}

/// What the calling thread holds in each environment's gate: its open transactions and
/// whether one writes. Thread-local, so a transaction's bookkeeping touches nothing
/// another thread uses. A thread almost always holds transactions in one environment at
/// a time, so that one is kept in plain fields and any others in a list.
final class ThreadTransactions {
    struct Held {
        var transactions = 0
        var writing = false
    }

    // Unchecked exclusivity: only its own thread touches these, so the dynamic checks
    // (a thread-local lookup each in the runtime) would only cost time.
    @exclusivity(unchecked) private var firstGate: ObjectIdentifier?
    @exclusivity(unchecked) private var firstHeld = Held()
    @exclusivity(unchecked) private var others: [(gate: ObjectIdentifier, held: Held)] = []

    /// `body`'s answer for the calling thread's record (made on the thread's first
    /// transaction), lent without a retain.
    @inline(__always)
    static func withCurrent<R, E: Error>(_ body: (ThreadTransactions) throws(E) -> R) throws(E) -> R {
        // Thrown through the untyped `rethrows` and cast back: a `Result` here costs every
        // transaction's begin and end its wrapping and destruction.
        do {
            return try records.withValue(orMake: ThreadTransactions.init) { mine in try body(mine) }
        } catch {
            throw error as! E
        }
    }

    private static let records = ThreadLocal<ThreadTransactions>()

    // `held` and `set` run on every transaction's begin and end: the usual case (the
    // gate in the plain fields, or no gate anywhere) inline, the list out of line.

    /// What this thread holds in `gate`.
    @inline(__always)
    func held(in gate: TransactionGate) -> Held {
        let id = ObjectIdentifier(gate)
        if firstGate == id { return firstHeld }
        if others.isEmpty { return Held() }
        return heldInList(id)
    }

    @inline(never)
    private func heldInList(_ id: ObjectIdentifier) -> Held {
        others.first { $0.gate == id }?.held ?? Held()
    }

    /// Records what this thread holds in `gate`; holding nothing forgets the gate. A gate
    /// is in one place only: an entry in the list stays there until it holds nothing,
    /// even when the plain fields are free (transactions of two environments may end in
    /// any order).
    @inline(__always)
    func set(_ held: Held, in gate: TransactionGate) {
        let id = ObjectIdentifier(gate)
        if firstGate == id {
            firstGate = held.transactions > 0 ? id : nil
            firstHeld = held
        } else if firstGate == nil && others.isEmpty {
            if held.transactions > 0 {
                firstGate = id
                firstHeld = held
            }
        } else {
            setInList(held, id)
        }
    }

    @inline(never)
    private func setInList(_ held: Held, _ id: ObjectIdentifier) {
        if let index = others.firstIndex(where: { $0.gate == id }) {
            if held.transactions == 0 {
                others.swapAt(index, others.count - 1)
                others.removeLast()
            } else {
                others[index].held = held
            }
        } else if held.transactions > 0 {
            if firstGate == nil {
                firstGate = id
                firstHeld = held
            } else {
                others.append((id, held))
            }
        }
    }
}
