/// The identity of one operation: the replica that made it and that replica's counter,
/// which runs 0, 1, 2, … without gaps.
///
/// A run of consecutive operations of one replica (a typed word) is identified by its
/// first ID and a length. IDs order by `(replica, counter)`: the tie-break FugueMax uses
/// among concurrent siblings.
public struct OperationID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The replica that made the operation.
    public var replica: ReplicaID
    /// Its position in that replica's history, from 0.
    public var counter: UInt64

    /// Creates an ID.
    public init(replica: ReplicaID, counter: UInt64) {
        self.replica = replica
        self.counter = counter
    }

    /// Orders by replica, then counter.
    public static func < (lhs: OperationID, rhs: OperationID) -> Bool {
        (lhs.replica, lhs.counter) < (rhs.replica, rhs.counter)
    }

    /// The ID `offset` operations later in the same replica's history.
    public func advanced(by offset: UInt64) -> OperationID {
        OperationID(replica: replica, counter: counter + offset)
    }

    /// `replica@counter`.
    public var description: String { "\(replica)@\(counter)" }
}
