/// A value read from the store, then read again after every commit: observation that
/// cannot miss a change, because it starts with the current value.
///
/// ```swift
/// for try await notes in store.observe({ tx in try tx.all(Note.self) }).removingDuplicates() {
///     show(notes)          // now, then after each write, merge or other process's commit
/// }
/// ```
///
/// Guarantees:
/// - The first value is read when iteration starts (`makeAsyncIterator()`, which a
///   `for try await` loop calls when it begins), and the subscription to later commits is
///   made in the same step, under the store's lock: a commit is either in the first value
///   or followed by a later one. Starting the loop in a `Task` after a write is fine — the
///   first value includes the write.
/// - After every commit (local, merged, or another process's, see
///   ``StoreEvent/Origin/otherProcess``) a value that includes it follows. Commits made
///   while the consumer is busy are coalesced: the next value is read once, from the
///   latest state. Each value is read in one read transaction, so it is consistent.
/// - ``removingDuplicates()`` skips a value equal to the one before (a keystroke in
///   another record does not re-deliver an unchanged list).
///
/// The sequence ends (returns `nil`) when the store closes or the consuming task is
/// cancelled; it throws what the value closure throws, and then ends. Each iteration is
/// its own subscription. The value closure runs under the store's lock, so it must not
/// call the store (``StoreError/nestedTransaction(_:)``).
public struct StoreObservation<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value
    public typealias Failure = any Error

    let store: Store
    let value: @Sendable (borrowing StoreReader) throws -> Value
    let isDuplicate: (@Sendable (Value, Value) -> Bool)?

    /// The same observation, skipping values equal to the previous one.
    ///
    /// ```swift
    /// for try await count in store.observe({ tx in tx.children(of: inbox).count }).removingDuplicates() { … }
    /// ```
    ///
    /// - Returns: An observation that delivers a value only when it differs.
    public func removingDuplicates() -> StoreObservation where Value: Equatable {
        StoreObservation(store: store, value: value, isDuplicate: { $0 == $1 })
    }

    /// Reads the first value and subscribes to later commits, in one step.
    ///
    /// - Returns: An iterator whose first ``Iterator/next()`` returns the value read now.
    public func makeAsyncIterator() -> Iterator {
        let value = self.value
        do {
            let (stream, first) = try store.subscribe(
                call: "store.observe", bufferingNewest: 1, filter: { _, _ in true }
            ) { state, _ in
                let reader = StoreReader(view: state)  // bound first, as in `Store.read`
                return (try value(reader), state.meta.version)
            }
            return Iterator(observation: self, first: .success(first), events: stream.makeAsyncIterator())
        } catch {
            return Iterator(observation: self, first: .failure(error), events: nil)
        }
    }

    /// Delivers the observed values; see ``StoreObservation``.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = Value
        public typealias Failure = any Error

        let observation: StoreObservation
        var first: Result<(Value, VersionVector), any Error>?
        var events: AsyncStream<StoreEvent>.Iterator?
        /// The changes the last value includes.
        var seen = VersionVector()
        var last: Value?

        init(observation: StoreObservation, first: Result<(Value, VersionVector), any Error>,
             events: AsyncStream<StoreEvent>.Iterator?) {
            self.observation = observation
            self.first = first
            self.events = events
        }

        /// The first value, then the next value after a commit it does not include yet.
        ///
        /// - Returns: The value; `nil` once the store closed or the task was cancelled.
        /// - Throws: What the value closure throws (the sequence then ends), or an error
        ///   reading the store.
        public mutating func next() async throws -> Value? {
            if let first {
                self.first = nil
                do {
                    let (value, version) = try first.get()
                    (last, seen) = (value, version)
                    return value
                } catch {
                    events = nil
                    throw error
                }
            }
            while true {
                guard let event = await events?.next() else { return nil }
                let seen = self.seen
                if !event.changes.isEmpty,
                   event.changes.allSatisfy({ seen.contains(OperationID(replica: $0.replica, counter: $0.counter)) }) {
                    continue  // already in the last value
                }
                let value = observation.value
                let read: (Value, VersionVector)
                do {
                    read = try observation.store.read { tx in (try value(tx), tx.version) }
                } catch StoreError.closed {
                    events = nil
                    return nil
                } catch {
                    events = nil
                    throw error
                }
                self.seen = read.1
                if let isDuplicate = observation.isDuplicate, let last, isDuplicate(last, read.0) { continue }
                last = read.0
                return read.0
            }
        }
    }
}

extension Store {
    /// Follows a value of the store: the current value first, then a new one after every
    /// commit, so an app that shows it can never miss a change (GRDB's `ValueObservation`).
    ///
    /// ```swift
    /// let notes = store.observe { tx in try tx.all(Note.self) }
    /// Task {
    ///     for try await list in notes.removingDuplicates() { sidebar.show(list) }
    /// }
    /// try store.write { tx in _ = try tx.insert(Note(title: "New")) }   // in a value, always
    /// ```
    ///
    /// See ``StoreObservation`` for the guarantees. The value is read again after every
    /// commit, whatever it touched; keep the closure cheap, or filter with
    /// ``events(under:)`` and read yourself.
    ///
    /// - Parameter value: Reads the value; runs in a read transaction, must not call the
    ///   store.
    /// - Returns: The observation; iterate it to start.
    public func observe<Value: Sendable>(
        _ value: @escaping @Sendable (borrowing StoreReader) throws -> Value
    ) -> StoreObservation<Value> {
        StoreObservation(store: self, value: value, isDuplicate: nil)
    }
}
