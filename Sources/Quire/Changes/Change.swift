import Foundation
import QuireCore

/// The identity of a change: its replica and the first counter of its range.
public struct ChangeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The replica that made the change.
    public var replica: ReplicaID
    /// The first counter of the change's range.
    public var counter: UInt64

    /// Creates a change ID.
    public init(replica: ReplicaID, counter: UInt64) {
        self.replica = replica
        self.counter = counter
    }

    public static func < (lhs: ChangeID, rhs: ChangeID) -> Bool {
        (lhs.replica, lhs.counter) < (rhs.replica, rhs.counter)
    }

    public var description: String { "\(replica)@\(counter)" }
}

/// What one write transaction of one replica did: the unit of the change log and of
/// replication.
///
/// A change covers the counters `id.counter ..< id.counter + count` of its replica (one
/// per operation), carries the Lamport time of its field writes and the version of the
/// other replicas it was made on (its dependencies). A store applies a change only after
/// the replica's previous changes and its dependencies; otherwise it waits as pending.
public struct Change: Hashable, Sendable, CustomStringConvertible {
    /// The replica and first counter.
    public var id: ChangeID
    /// How many counters the change uses: one per operation.
    public var count: UInt64
    /// The Lamport time of the change; field writes are ordered by `(lamport, replica)`.
    public var lamport: UInt64
    /// The changes of other replicas this one was made after, beyond those its
    /// replica's previous change depends on: replica → next counter.
    public var dependencies: VersionVector
    /// What the change did.
    var operations: [StoreOperation]
    /// When the change was made: seconds since 1970-01-01 UTC by its replica's clock,
    /// never earlier than the replica's previous change; 0 when unknown (a change made
    /// before stores kept times). Shown in histories, never used to order a merge.
    public var time: UInt64 = 0

    /// ``time`` as a date, `nil` when unknown.
    public var date: Date? { time == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(time)) }

    /// The counter after the change's last one.
    public var endCounter: UInt64 { id.counter + count }

    /// The `(lamport, replica)` time of the change's field writes.
    var timestamp: Timestamp { Timestamp(lamport: lamport, replica: id.replica) }

    public var description: String { "change \(id) ×\(count) at \(lamport)" }

    /// Whether `other` is this change, its time aside: a copy that crossed a format
    /// without times, or whose time a receiver could not resolve, is the same change.
    func isSame(as other: Change) -> Bool {
        var other = other
        other.time = time
        return self == other
    }
}

/// One operation of a change.
enum StoreOperation: Hashable, Sendable {
    /// Writes fields of a record (creating it when new); each field is a last-writer-wins
    /// register stamped with the change's timestamp.
    case fields(record: RecordID, type: String, values: [String: [UInt8]])
    /// Edits a record's text value.
    case text(TextID, [TextOperation])
    /// Creates, moves, reorders or deletes a node of the hierarchy.
    case tree(TreeOperation)
}
