@_spi(LMDBInternals) import LMDB

/// The calling thread's snapshots, one per store it reads: how a store tells a call from
/// inside one of its read bodies (``StoreError/nestedTransaction(_:)``), finds the
/// snapshot the body reads (``Store/version`` inside a body), and reuses one snapshot
/// object from read to read.
///
/// Thread-local, so a read takes no lock and allocates nothing here: it touches only its
/// own thread's list, where a list shared by the store's threads cost a mutex and its
/// cache line on every ``Store/read(_:)``. Read bodies are synchronous, so the thread
/// that opens a snapshot is the one that runs the body and closes it.
///
/// A snapshot is kept after its store is gone (it holds no LMDB resource between reads,
/// and it does not keep the store alive); entries are told apart by ``Store/serial``, so
/// a store made at a freed store's address never gets its snapshot, and the list keeps
/// at most ``capacity`` closed snapshots.
final class ThreadReads {
    private struct Entry {
        let serial: UInt64
        let snapshot: StoreSnapshot
    }

    /// Closed snapshots kept beyond those of the reads running now.
    static let capacity = 8

    // Unchecked exclusivity: only its own thread touches these, so the dynamic checks
    // (a thread-local lookup each in the runtime) would only cost time. A thread mostly
    // reads one store: its snapshot is kept in a plain field, others in a list.
    @exclusivity(unchecked) private var first: Entry?
    @exclusivity(unchecked) private var others: [Entry] = []

    /// The calling thread's list, made on the thread's first read.
    static var current: ThreadReads { lists.value(orMake: ThreadReads.init) }

    /// This thread's snapshot of `store` (see ``snapshot(of:)``), found without retaining
    /// the thread's list: what every ``Store/read(_:)`` asks first.
    static func currentSnapshot(of store: Store) -> Unmanaged<StoreSnapshot> {
        lists.withValue(orMake: ThreadReads.init) { $0.snapshot(of: store) }
    }

    private static let lists = ThreadLocal<ThreadReads>()

    /// The snapshot of `store`'s read body on this thread, if it runs one.
    func openSnapshot(of store: Store) -> StoreSnapshot? {
        guard let snapshot = existingSnapshot(of: store), snapshot.isOpen else { return nil }
        return snapshot
    }

    /// This thread's snapshot of `store`, open or closed; made (and kept) if it has none.
    /// Unretained: this list keeps it while it is open (only closed ones are let go), and
    /// a read retaining it cost two atomic operations.
    func snapshot(of store: Store) -> Unmanaged<StoreSnapshot> {
        let serial = store.serial
        if let first, first.serial == serial { return Unmanaged.passUnretained(first.snapshot) }
        if let existing = existingSnapshot(of: store) { return Unmanaged.passUnretained(existing) }
        let made = StoreSnapshot(store: store)
        // The newest in the plain field: the store read before is likely closed now.
        if let previous = first {
            if others.count >= Self.capacity, let stale = others.firstIndex(where: { !$0.snapshot.isOpen }) {
                others.remove(at: stale)
            }
            others.append(previous)
        }
        first = Entry(serial: store.serial, snapshot: made)
        return Unmanaged.passUnretained(made)
    }

    private func existingSnapshot(of store: Store) -> StoreSnapshot? {
        let serial = store.serial
        if let first, first.serial == serial { return first.snapshot }
        if others.isEmpty { return nil }
        return others.first { $0.serial == serial }?.snapshot
    }
}
