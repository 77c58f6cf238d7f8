import LMDB

/// The read bodies the calling thread is running, one per store at most: how a store
/// tells a call from inside one of its read bodies (``StoreError/nestedTransaction(_:)``)
/// and finds the snapshot the body reads (``Store/version`` inside a body).
///
/// Thread-local, so registering a read takes no lock: a read touches only its own
/// thread's list, where a list shared by the store's threads cost a mutex and its
/// cache line on every ``Store/read(_:)``. Read bodies are synchronous, so the thread
/// that registers a read is the one that runs it and ends it.
final class ThreadReads {
    // Unchecked exclusivity: only its own thread touches these, so the dynamic checks
    // (a thread-local lookup each in the runtime) would only cost time. A thread mostly
    // reads one store at a time: that read is kept in plain fields, any others in a list.
    @exclusivity(unchecked) private var firstStore: ObjectIdentifier?
    @exclusivity(unchecked) private var firstSnapshot: StoreSnapshot?
    @exclusivity(unchecked) private var others: [(store: ObjectIdentifier, snapshot: StoreSnapshot)] = []

    /// The calling thread's list, made on the thread's first read.
    static var current: ThreadReads { lists.value(orMake: ThreadReads.init) }

    private static let lists = ThreadLocal<ThreadReads>()

    /// The snapshot of `store`'s read body on this thread, if it runs one.
    func snapshot(of store: Store) -> StoreSnapshot? {
        let id = ObjectIdentifier(store)
        if firstStore == id { return firstSnapshot }
        if others.isEmpty { return nil }
        return others.first { $0.store == id }?.snapshot
    }

    /// Notes that this thread runs a read body of `store` on `snapshot`; the caller has
    /// checked that it runs none of `store` already.
    func enter(_ store: Store, snapshot: StoreSnapshot) {
        if firstStore == nil {
            firstStore = ObjectIdentifier(store)
            firstSnapshot = snapshot
        } else {
            others.append((ObjectIdentifier(store), snapshot))
        }
    }

    /// Notes that the read body of `store` on this thread has ended.
    func leave(_ store: Store) {
        let id = ObjectIdentifier(store)
        if firstStore == id {
            firstStore = nil
            firstSnapshot = nil
        } else if let index = others.lastIndex(where: { $0.store == id }) {
            others.remove(at: index)
        }
    }
}
