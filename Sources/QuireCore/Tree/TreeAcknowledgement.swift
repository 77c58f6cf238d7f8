/// What another replica has told us it had seen: its version and its Lamport clock.
/// Log truncation needs one from every known replica.
///
/// A replica's later operations all have a Lamport value above ``clock``, so once every
/// replica has acknowledged a clock at or past a log entry (and has that entry), no
/// operation can ever arrive that sorts before it: it will never be undone again.
public struct TreeAcknowledgement: Hashable, Sendable {
    /// The replica acknowledging.
    public var replica: ReplicaID
    /// The operations it had seen, its own included.
    public var version: VersionVector
    /// Its Lamport clock when it acknowledged: the largest value it had seen or used.
    public var clock: UInt64

    /// Creates an acknowledgement.
    public init(replica: ReplicaID, version: VersionVector, clock: UInt64) {
        self.replica = replica
        self.version = version
        self.clock = clock
    }
}

extension ReplicatedTree {
    /// The number of oldest log entries that ``truncateLog(acknowledgements:received:)``
    /// would drop.
    ///
    /// An entry can go when, for every acknowledging replica, its clock is at or past the
    /// entry's Lamport value and its version contains the entry — provided we hold every
    /// operation each replica had made itself when it acknowledged (`received`);
    /// otherwise one of those could still arrive and sort anywhere, and nothing is
    /// dropped. Only a prefix of the log is dropped.
    ///
    /// - Complexity: O(*k* · *r*) for *k* droppable entries and *r* acknowledgements.
    public func truncatableCount(acknowledgements: [TreeAcknowledgement], received: VersionVector) -> Int {
        for acknowledgement in acknowledgements
        where received[acknowledgement.replica] < acknowledgement.version[acknowledgement.replica] {
            return 0
        }
        var count = 0
        while count < log.count {
            let operation = log[count].operation
            let stable = acknowledgements.allSatisfy {
                operation.lamport <= $0.clock && $0.version.contains(operation.id)
            }
            guard stable else { break }
            count += 1
        }
        return count
    }

    /// Drops the log entries that no future operation can sort before, so they will
    /// never be undone. The tree itself does not change.
    ///
    /// ```swift
    /// let dropped = tree.truncateLog(
    ///     acknowledgements: [TreeAcknowledgement(replica: phone, version: phoneVersion, clock: phoneClock)],
    ///     received: myVersion)
    /// ```
    ///
    /// Afterwards, an operation at or before ``truncatedThrough`` is taken as a
    /// duplicate: the acknowledgements proved every such operation already arrived.
    ///
    /// - Parameters:
    ///   - acknowledgements: One per other replica known to exist (this replica's own
    ///     future operations always sort last and need none).
    ///   - received: The operations this replica holds, per replica.
    /// - Returns: The number of entries dropped (0 inside a persisted tree's
    ///   `perform` body, where truncation waits for the next call outside it).
    /// - Complexity: O(*n*) for *n* log entries.
    @discardableResult
    public mutating func truncateLog(acknowledgements: [TreeAcknowledgement], received: VersionVector) -> Int {
        guard session == nil else { return 0 }
        let count = truncatableCount(acknowledgements: acknowledgements, received: received)
        dropLogPrefix(count)
        return count
    }

    /// Drops the `count` oldest log entries.
    package mutating func dropLogPrefix(_ count: Int) {
        // Inside a change session the log indices it recorded must stay valid.
        guard count > 0, session == nil else { return }
        truncatedThrough = log[count - 1].timestamp
        log.removeFirst(count)
    }
}
