import QuireCore

/// A committed change, as observers see it: which records, texts and hierarchy nodes it
/// touched, and whether it was made here or merged from another replica.
public struct StoreEvent: Hashable, Sendable {
    /// Where a change came from.
    public enum Origin: Hashable, Sendable {
        /// A write transaction of this store.
        case local
        /// Changes merged from other replicas.
        case remote
        /// Changes another process committed to this store's directory (the `quire` tool,
        /// an app extension): local writes or merges made there, seen here at this
        /// store's next transaction or within about 100 ms while someone observes.
        case otherProcess
    }

    /// Local or remote.
    public var origin: Origin
    /// The changes committed: one for a local write (the writer can compare it with
    /// ``StoreWriter/changeID``), those applied for a merge.
    public var changes: [ChangeID] = []
    /// Records whose fields changed.
    public var records: Set<RecordID> = []
    /// Texts that changed.
    public var texts: Set<TextID> = []
    /// Hierarchy nodes that were created, moved, reordered or deleted.
    public var nodes: Set<RecordID> = []

    init(origin: Origin) { self.origin = origin }

    /// Whether the change touched `record`: its fields, its place or one of its texts.
    public func touches(_ record: RecordID) -> Bool {
        records.contains(record) || nodes.contains(record) || texts.contains { $0.record == record }
    }
}

/// The continuations of the store's observers.
struct Observers {
    private var next = 0
    private var continuations: [Int: (filter: @Sendable (StoreEvent) -> Bool, continuation: AsyncStream<StoreEvent>.Continuation)] = [:]

    mutating func add(_ continuation: AsyncStream<StoreEvent>.Continuation, filter: @escaping @Sendable (StoreEvent) -> Bool) -> Int {
        next += 1
        continuations[next] = (filter, continuation)
        return next
    }

    mutating func remove(_ key: Int) { continuations[key] = nil }

    /// Whether no one observes.
    var isEmpty: Bool { continuations.isEmpty }

    func send(_ event: StoreEvent) {
        for (filter, continuation) in continuations.values where filter(event) { continuation.yield(event) }
    }

    /// Removes every observer and returns their continuations, to finish outside the
    /// lock: finishing runs a stream's termination handler, which takes the lock.
    mutating func removeAll() -> [AsyncStream<StoreEvent>.Continuation] {
        defer { continuations = [:] }
        return continuations.values.map(\.continuation)
    }
}

extension Store {
    /// Every change committed from now on, local or merged, in commit order.
    ///
    /// ```swift
    /// for await event in store.events() where event.origin == .remote {
    ///     reloadSidebar(event.nodes)
    /// }
    /// ```
    ///
    /// The sequence ends when the store closes or the consuming task is cancelled.
    /// Events are buffered without limit; consume them promptly. Commits of other
    /// processes on this store arrive with origin ``StoreEvent/Origin/otherProcess``, at
    /// this store's next transaction or within about 100 ms.
    public func events() -> AsyncStream<StoreEvent> {
        events { _ in true }
    }

    /// The changes that touch `record` (its fields, its place in the hierarchy, its texts).
    public func events(for record: RecordID) -> AsyncStream<StoreEvent> {
        events { $0.touches(record) }
    }

    /// The changes that touch the text `text`.
    public func events(for text: TextID) -> AsyncStream<StoreEvent> {
        events { $0.texts.contains(text) }
    }

    private func events(_ filter: @escaping @Sendable (StoreEvent) -> Bool) -> AsyncStream<StoreEvent> {
        let (stream, continuation) = AsyncStream<StoreEvent>.makeStream()
        let key = observers.withLock { $0.add(continuation, filter: filter) }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let nobodyLeft = observers.withLock { observers in
                observers.remove(key)
                return observers.isEmpty
            }
            if nobodyLeft { watchOtherProcesses(false) }
        }
        watchOtherProcesses(true)
        return stream
    }

    func publish(_ event: StoreEvent) {
        observers.withLock { $0.send(event) }
    }
}
