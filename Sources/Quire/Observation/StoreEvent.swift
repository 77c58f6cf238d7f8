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

    /// Local, remote or another process's.
    public var origin: Origin
    /// The changes committed: one for a local write (the writer can compare it with
    /// ``StoreWriter/changeID``), those applied for a merge.
    public var changes = ChangeIDs()
    /// Records whose fields changed.
    public var records: Set<RecordID> = []
    /// Texts that changed.
    public var texts: Set<TextID> = []
    /// Hierarchy nodes that were created, moved, reordered or deleted.
    public var nodes: Set<RecordID> = []
    /// Where each node of ``nodes`` was before the change and is after it: a move says
    /// where the node came from, a creation has no ``Move/from``, a deletion goes to
    /// ``Place/trash``, a reorder stays under the same parent.
    ///
    /// Filled for every commit seen as it happens (local, remote and other processes'
    /// commits); empty in the history ``Store/events(since:)`` replays from the change
    /// log, which keeps where nodes went, not where they were.
    public var moves: [RecordID: Move] = [:]

    /// A node's place in the hierarchy.
    public enum Place: Hashable, Sendable, CustomStringConvertible {
        /// At the top level.
        case topLevel
        /// In the trash (deleted).
        case trash
        /// Under a record.
        case under(RecordID)

        init(_ parent: NodeID) {
            switch parent {
            case .root: self = .topLevel
            case .deletedRoot: self = .trash
            default: self = .under(RecordID(parent))
            }
        }

        /// The parent record, `nil` at the top level and in the trash.
        public var parent: RecordID? {
            if case .under(let parent) = self { return parent }
            return nil
        }

        /// `top level`, `trash` or `under replica@counter`.
        public var description: String {
            switch self {
            case .topLevel: "top level"
            case .trash: "trash"
            case .under(let parent): "under \(parent)"
            }
        }
    }

    /// Where a node was and is.
    ///
    /// ```swift
    /// for (node, move) in event.moves where move.from?.parent == folder {
    ///     sidebar.remove(node, from: folder)      // moved out, or deleted
    /// }
    /// ```
    public struct Move: Hashable, Sendable, CustomStringConvertible {
        /// Where the node was; `nil` when it was not in the hierarchy (created by the change).
        public var from: Place?
        /// Where the node is; `nil` only for a node no longer in the hierarchy, which no
        /// change makes (a deletion moves the node to ``Place/trash``).
        public var to: Place?

        /// Creates a move (for comparisons in tests and previews).
        ///
        /// - Parameters:
        ///   - from: Where the node was; `nil` for a creation.
        ///   - to: Where the node is.
        public init(from: Place?, to: Place?) {
            self.from = from
            self.to = to
        }

        /// `from → to`, `new` for a creation.
        public var description: String { "\(from.map(\.description) ?? "new") → \(to.map(\.description) ?? "gone")" }
    }

    init(origin: Origin) { self.origin = origin }

    /// Adds what `change` touched (as read from the change log: no ``moves``).
    mutating func note(_ change: Change) {
        changes.append(change.id)
        for operation in change.operations {
            switch operation {
            case .fields(let record, _, _): records.insert(record)
            case .text(let text, _): texts.insert(text)
            case .tree(let move): nodes.insert(RecordID(move.node))
            }
        }
    }

    /// Whether the change touched `record`: its fields, its place or one of its texts.
    public func touches(_ record: RecordID) -> Bool {
        records.contains(record) || nodes.contains(record) || texts.contains { $0.record == record }
    }
}

/// The continuations of the store's observers.
struct Observers {
    /// Decides whether an observer gets an event; runs under the store's lock with the
    /// state as of the commit, so it may look at the hierarchy (``Store/events(under:)``).
    typealias Filter = @Sendable (StoreEvent, StoreState) -> Bool

    private var next = 0
    private var continuations: [Int: (filter: Filter, continuation: AsyncStream<StoreEvent>.Continuation)] = [:]

    mutating func add(_ continuation: AsyncStream<StoreEvent>.Continuation, filter: @escaping Filter) -> Int {
        next += 1
        continuations[next] = (filter, continuation)
        return next
    }

    mutating func remove(_ key: Int) { continuations[key] = nil }

    /// Whether no one observes.
    var isEmpty: Bool { continuations.isEmpty }

    func send(_ event: StoreEvent, state: StoreState) {
        for (filter, continuation) in continuations.values where filter(event, state) { continuation.yield(event) }
    }

    /// Removes every observer and returns their continuations, to finish outside the
    /// lock: finishing runs a stream's termination handler, which takes the lock.
    mutating func removeAll() -> [AsyncStream<StoreEvent>.Continuation] {
        defer { continuations = [:] }
        return continuations.values.map(\.continuation)
    }
}

extension Store {
    /// Every change committed after this call returns, local or merged, in commit order.
    ///
    /// ```swift
    /// let events = store.events()            // subscribe first, here, …
    /// Task {
    ///     for await event in events where event.origin != .local {
    ///         reloadSidebar(event.nodes)     // … then consume, in a task
    ///     }
    /// }
    /// ```
    ///
    /// Subscribe *before* starting the task that consumes: `Task { for await e in
    /// store.events() … }` subscribes when the task first runs, after writes made
    /// meanwhile, and misses them. To start from a known point, use
    /// ``events(since:)``; to follow a value, ``observe(_:)``, which cannot miss.
    ///
    /// The sequence ends when the store closes or the consuming task is cancelled.
    /// Events are buffered without limit; consume them promptly. Commits of other
    /// processes on this store arrive with origin ``StoreEvent/Origin/otherProcess``, at
    /// this store's next transaction or within about 100 ms.
    ///
    /// - Returns: The events, one per commit.
    public func events() -> AsyncStream<StoreEvent> {
        events { _, _ in true }
    }

    /// The changes that touch `record` (its fields, its place in the hierarchy, its texts),
    /// from now on; see ``events()`` for when the sequence starts and ends. Changes inside
    /// a folder are not changes of the folder: ``events(under:)`` follows a subtree.
    ///
    /// - Parameter record: The record to follow.
    /// - Returns: The events that touch it.
    public func events(for record: RecordID) -> AsyncStream<StoreEvent> {
        events { event, _ in event.touches(record) }
    }

    /// The changes that touch the text `text`, from now on; see ``events()``.
    ///
    /// - Parameter text: The text to follow.
    /// - Returns: The events that touch it.
    public func events(for text: TextID) -> AsyncStream<StoreEvent> {
        events { event, _ in event.texts.contains(text) }
    }

    /// The changes that touch `folder` or anything below it, from now on: a record added,
    /// moved in or out, deleted or restored, a field or a text of any record in the
    /// subtree edited.
    ///
    /// ```swift
    /// for await event in store.events(under: notebook) {
    ///     for (note, move) in event.moves where move.from?.parent == notebook && move.to?.parent != notebook {
    ///         list.remove(note)                   // moved out or deleted: where it came from
    ///     }
    /// }
    /// ```
    ///
    /// Membership is decided with the hierarchy as of each commit: a record counts when it
    /// is in the subtree after the change, or was before it (``StoreEvent/moves`` says
    /// where it came from). When `folder` itself is deleted, its subtree stays below it in
    /// the trash, so changes there keep arriving. See ``events()`` for when the sequence
    /// starts and ends.
    ///
    /// - Parameter folder: The root of the subtree, itself included.
    /// - Returns: The events that touch the subtree.
    public func events(under folder: RecordID) -> AsyncStream<StoreEvent> {
        events { event, state in event.touches(subtreeOf: folder, in: state) }
    }

    /// Every change after `version`, then every change committed from now on: a stream
    /// that starts at a known point, so nothing between that point and the subscription
    /// is missed.
    ///
    /// ```swift
    /// let seen = store.version                    // say, kept with the app's UI state
    /// // … later, even after writes and merges in between:
    /// for await event in try store.events(since: seen) { apply(event) }
    /// ```
    ///
    /// The changes already made come first, one event per change in causal order
    /// (Lamport time), read from the change log: origin ``StoreEvent/Origin/local`` for
    /// this replica's changes (including those another process on this store made),
    /// ``StoreEvent/Origin/remote`` for other replicas', and no ``StoreEvent/moves``.
    /// Then the live events follow, as ``events()`` delivers them, with nothing missed
    /// and nothing twice: the history is read and the subscription made under the
    /// store's lock, with no commit in between.
    ///
    /// - Parameter version: What the caller has seen; the empty version for the whole
    ///   history.
    /// - Returns: The events after `version`.
    /// - Throws: ``StoreError/closed``, ``PrunedHistoryError`` when `version` is older
    ///   than the history this store kept, ``StoreError/nestedTransaction(_:)`` inside a
    ///   transaction body.
    public func events(since version: VersionVector) throws -> AsyncStream<StoreEvent> {
        try subscribe(call: "store.events(since:)", filter: { _, _ in true }) { state, continuation in
            let history = try state.storedChanges(since: version).sorted { ($0.lamport, $0.id) < ($1.lamport, $1.id) }
            for change in history {
                var event = StoreEvent(origin: change.id.replica == state.replica ? .local : .remote)
                event.note(change)
                continuation.yield(event)
            }
        }.stream
    }

    private func events(_ filter: @escaping Observers.Filter) -> AsyncStream<StoreEvent> {
        let (stream, continuation) = AsyncStream<StoreEvent>.makeStream()
        register(continuation, filter: filter)
        return stream
    }

    /// Subscribes under the store's lock, after `start` ran on the current state: the
    /// stream gets what `start` yields, then the events of every later commit.
    ///
    /// - Parameters:
    ///   - bufferingNewest: Keep only this many unread events (observations need one).
    ///   - start: Runs first, under the lock; a throw leaves nothing subscribed.
    /// - Returns: The stream and what `start` returned.
    /// - Throws: What ``withCurrentState(call:_:)`` or `start` throws.
    func subscribe<T>(
        call: String, bufferingNewest: Int? = nil, filter: @escaping Observers.Filter,
        _ start: (StoreState, AsyncStream<StoreEvent>.Continuation) throws -> T
    ) throws -> (stream: AsyncStream<StoreEvent>, started: T) {
        let (stream, continuation) = AsyncStream<StoreEvent>.makeStream(
            bufferingPolicy: bufferingNewest.map { .bufferingNewest($0) } ?? .unbounded)
        do {
            let started = try withCurrentState(call: call) { state in
                let started = try start(state, continuation)
                register(continuation, filter: filter)
                return started
            }
            return (stream, started)
        } catch {
            continuation.finish()
            throw error
        }
    }

    private func register(_ continuation: AsyncStream<StoreEvent>.Continuation, filter: @escaping Observers.Filter) {
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
    }

    /// Hands `event` to the observers it concerns. Called under the store's lock, with
    /// the state as of the commit.
    func publish(_ event: StoreEvent, state: StoreState) {
        observers.withLock { $0.send(event, state: state) }
    }
}

extension StoreEvent {
    /// Whether the change touched `folder` or its subtree in `tree` (the hierarchy after
    /// the change), or moved a node out of it.
    func touches(subtreeOf folder: RecordID, in tree: some StoreView) -> Bool {
        func isInSubtree(_ record: RecordID) -> Bool {
            var node = record.node
            while true {
                if node == folder.node { return true }
                guard let parent = tree.parent(of: node), !parent.isFixed else { return false }
                node = parent
            }
        }
        return records.contains(where: isInSubtree) || nodes.contains(where: isInSubtree)
            || texts.contains { isInSubtree($0.record) }
            || moves.values.contains { move in
                [move.from, move.to].contains { $0?.parent.map(isInSubtree) ?? false }
            }
    }
}
