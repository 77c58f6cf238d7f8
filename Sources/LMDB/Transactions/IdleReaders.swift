import CLMDB
import Synchronization

/// Read transactions that ended, kept so the next read reuses one instead of beginning a
/// new one.
///
/// With `MDB_NOTLS` every `mdb_txn_begin` of a reader allocates a handle, locks the reader
/// table and claims a slot in it, and every `mdb_txn_abort` gives both back: more than
/// the `mdb_get` of a point read costs. A kept transaction keeps its handle and its slot.
///
/// A transaction is kept **open** when its read ends: while nothing has been committed
/// since, its snapshot is the latest commit, and the next read uses it as it is: no
/// `mdb_txn_renew`, no `mdb_txn_reset`, and its databases are already looked up in the
/// main database: a store's point read fell from 6,508 to 5,669 instructions. The next read
/// compares the snapshot's transaction ID with the latest commit's (`mdb_env_info`); when
/// something was committed since, it resets and renews the transaction onto the latest
/// commit, as a begin would.
///
/// An open transaction pins its snapshot: pages that later commits free cannot be reused
/// while it holds them. So it never stays open for long after a write:
/// - a write transaction of this process resets every kept one when it begins
///   (``resetOpen(calls:)``), so this process's own writes reuse pages as before (a read
///   still running then keeps its transaction until the next write or the task below);
/// - the environment resets them about `Configuration.idleReaderLifetime` (10 ms) after
///   a read kept one, in a task on a global dispatch queue, so commits by other
///   processes are pinned for about that long (longer only if that queue is starved);
/// - map growth resets them first, and closing aborts them;
/// - a database opened by a read-only transaction, or a failed read, resets them
///   (``invalidations``).
/// A reset transaction's slot says it reads nothing: it pins no pages.
///
/// At most ``capacity`` are kept, since each holds one of the environment's reader slots
/// (``Environment/Configuration/maxReaders``); past that, an ending transaction is
/// aborted.
///
/// Handles are kept as addresses in a few atomic slots (0: empty), the lowest bit set
/// for an open one (handles are aligned), so keeping and taking one takes no lock: a
/// read takes the first kept handle with a compare-and-swap to 0, and gives it back into
/// the first empty slot the same way. A handle in a slot is idle whichever thread put it
/// there, so taking the same address twice over is never wrong.
final class IdleReaders: @unchecked Sendable {
    let capacity: Int
    /// Whether a reset of the kept open transactions is scheduled.
    let resetScheduled = Atomic<Bool>(false)
    /// `capacity` slots, each 0 or the address of a kept transaction (| ``openBit``).
    private let slots: UnsafeMutablePointer<Atomic<UInt>>
    /// Set on a kept address whose transaction is open (not reset).
    private static let openBit: UInt = 1

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        slots = .allocate(capacity: self.capacity)
        for index in 0..<self.capacity { (slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// A kept transaction on the latest commit of `env`: an open one as it is when
    /// nothing was committed since its snapshot, otherwise reset and renewed. `nil` when
    /// none is kept or the renew failed (the handle is then aborted, and the caller
    /// begins a new one, which meets and reports the same condition, such as a map
    /// another process grew).
    func latest(in env: OpaquePointer, calls: LMDBCalls) -> OpaquePointer? {
        guard let (handle, isOpen) = take() else { return nil }
        if isOpen {
            var info = MDB_envinfo()
            if calls.envInfo(env, &info) == 0 && info.me_last_txnid == calls.txnID(handle) { return handle }
            calls.txnReset(handle)
        }
        guard calls.txnRenew(handle) == 0 else {
            calls.txnAbort(handle)
            return nil
        }
        return handle
    }

    /// Counts what makes kept open transactions unfit to use as they are, in any
    /// environment of the process: a database opened by a read-only transaction (a kept
    /// one knows only the databases open when it began or was renewed) and a failed call
    /// in a read transaction (LMDB then refuses every later call in it). A read notes the
    /// count as it begins, and one that ends after it moved resets the kept open ones.
    /// Both are rare, so one count for all environments does.
    private static let invalidationCount = Atomic<Int>(0)

    static var invalidations: Int { invalidationCount.load(ordering: .sequentiallyConsistent) }

    /// Counts an event of ``invalidations``; the caller then resets the kept open ones.
    static func invalidateOpen() {
        invalidationCount.add(1, ordering: .sequentiallyConsistent)
    }

    /// Keeps the ended read transaction `handle` open while there is room, otherwise
    /// aborts it. Returns whether it was kept.
    func end(_ handle: OpaquePointer, calls: LMDBCalls) -> Bool {
        if put(handle, isOpen: true) { return true }
        calls.txnAbort(handle)
        return false
    }

    /// Resets every kept transaction that is open, so that none pins a snapshot. Called
    /// by a write of this process as it begins, by map growth, and after
    /// `Configuration.idleReaderLifetime`.
    func resetOpen(calls: LMDBCalls) {
        // Sequentially consistent with `put`: a transaction kept while this runs is seen
        // here, or its reader sees the count or the schedule that this reset follows.
        for index in 0..<capacity {
            let address = slots[index].load(ordering: .sequentiallyConsistent)
            guard address & Self.openBit != 0,
                  slots[index].compareExchange(expected: address, desired: 0, ordering: .acquiring).exchanged
            else { continue }
            let handle = OpaquePointer(bitPattern: address & ~Self.openBit)!
            calls.txnReset(handle)
            if !put(handle, isOpen: false) { calls.txnAbort(handle) }
        }
    }

    /// Aborts every kept transaction, open or reset; called while no transaction is
    /// open, before the environment closes.
    func abortAll(calls: LMDBCalls) {
        while let (handle, _) = take() { calls.txnAbort(handle) }
    }

    /// Puts `handle` into the first empty slot; `false` when every slot is taken.
    private func put(_ handle: OpaquePointer, isOpen: Bool) -> Bool {
        let address = UInt(bitPattern: Int(bitPattern: handle)) | (isOpen ? Self.openBit : 0)
        for index in 0..<capacity
        where slots[index].compareExchange(expected: 0, desired: address, ordering: .sequentiallyConsistent).exchanged {
            return true
        }
        return false
    }

    /// Takes a kept handle out of its slot, if any is kept.
    private func take() -> (OpaquePointer, isOpen: Bool)? {
        for index in 0..<capacity {
            let address = slots[index].load(ordering: .relaxed)
            guard address != 0 else { continue }
            if slots[index].compareExchange(expected: address, desired: 0, ordering: .acquiring).exchanged {
                return (OpaquePointer(bitPattern: address & ~Self.openBit)!, address & Self.openBit != 0)
            }
        }
        return nil
    }
}
