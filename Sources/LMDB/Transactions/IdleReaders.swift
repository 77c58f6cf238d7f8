import Synchronization

/// Read transactions that ended with `mdb_txn_reset`, kept so the next read renews one
/// (`mdb_txn_renew`) instead of beginning a new one.
///
/// With `MDB_NOTLS` every `mdb_txn_begin` of a reader allocates a handle, locks the reader
/// table and claims a slot in it, and every `mdb_txn_abort` gives both back: more than
/// the `mdb_get` of a point read costs. A reset transaction keeps its handle and its slot,
/// but its slot says it reads nothing, so it pins no pages and holds back no writer; a
/// renew starts it on the latest commit, as a begin would. LMDB's documentation suggests
/// exactly this for processes that read often.
///
/// At most ``capacity`` are kept, since each holds one of the environment's reader slots
/// (``Environment/Configuration/maxReaders``); past that, an ending transaction is
/// aborted. They are aborted before the environment closes. A map resize leaves them
/// valid: a reset transaction holds no pointer into the map.
///
/// Handles are kept as addresses in a few atomic slots (0: empty), so keeping and
/// taking one takes no lock: a read takes the first kept handle with a compare-and-swap
/// to 0, and gives it back into the first empty slot the same way. A handle in a slot is
/// idle whichever thread put it there, so taking the same address twice over is never
/// wrong.
final class IdleReaders: @unchecked Sendable {
    let capacity: Int
    /// `capacity` slots, each 0 or the address of a reset transaction.
    private let slots: UnsafeMutablePointer<Atomic<UInt>>

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        slots = .allocate(capacity: self.capacity)
        for index in 0..<self.capacity { (slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// A kept transaction, renewed onto the latest commit; `nil` when none is kept or the
    /// renew failed (the handle is then aborted, and the caller begins a new one, which
    /// meets and reports the same condition, such as a map another process grew).
    func renewed(calls: LMDBCalls) -> OpaquePointer? {
        guard let handle = take() else { return nil }
        guard calls.txnRenew(handle) == 0 else {
            calls.txnAbort(handle)
            return nil
        }
        return handle
    }

    /// Ends the read transaction `handle`: resets and keeps it while there is room,
    /// otherwise aborts it.
    func end(_ handle: OpaquePointer, calls: LMDBCalls) {
        calls.txnReset(handle)
        let address = UInt(bitPattern: Int(bitPattern: handle))
        for index in 0..<capacity
        where slots[index].compareExchange(expected: 0, desired: address, ordering: .releasing).exchanged {
            return
        }
        calls.txnAbort(handle)
    }

    /// Aborts every kept transaction; called while no transaction is open, before the
    /// environment closes.
    func abortAll(calls: LMDBCalls) {
        while let handle = take() { calls.txnAbort(handle) }
    }

    /// Takes a kept handle out of its slot, if any is kept.
    private func take() -> OpaquePointer? {
        for index in 0..<capacity {
            let address = slots[index].load(ordering: .relaxed)
            guard address != 0 else { continue }
            if slots[index].compareExchange(expected: address, desired: 0, ordering: .acquiring).exchanged {
                return OpaquePointer(bitPattern: address)
            }
        }
        return nil
    }
}
