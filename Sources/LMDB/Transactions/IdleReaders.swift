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
/// Handles are kept as addresses, so the table is plain `Sendable` data.
final class IdleReaders: Sendable {
    let capacity: Int
    private let addresses = Mutex<[UInt]>([])

    init(capacity: Int) { self.capacity = capacity }

    /// A kept transaction, renewed onto the latest commit; `nil` when none is kept or the
    /// renew failed (the handle is then aborted, and the caller begins a new one, which
    /// meets and reports the same condition, such as a map another process grew).
    func renewed(calls: LMDBCalls) -> OpaquePointer? {
        guard let address = addresses.withLock({ $0.popLast() }),
            let handle = OpaquePointer(bitPattern: address)
        else { return nil }
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
        let kept = addresses.withLock { addresses -> Bool in
            guard addresses.count < capacity else { return false }
            addresses.append(UInt(bitPattern: Int(bitPattern: handle)))
            return true
        }
        if !kept { calls.txnAbort(handle) }
    }

    /// Aborts every kept transaction; called while no transaction is open, before the
    /// environment closes.
    func abortAll(calls: LMDBCalls) {
        for address in addresses.withLock({ addresses in defer { addresses = [] }; return addresses }) {
            if let handle = OpaquePointer(bitPattern: address) { calls.txnAbort(handle) }
        }
    }
}
