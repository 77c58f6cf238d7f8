/// A Lamport timestamp with the replica as tie-break: the total order that last-writer-
/// wins registers and tree moves use.
///
/// A replica's next Lamport time is one more than the largest it has seen from anyone,
/// so an operation is always later than everything its replica knew when making it.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The Lamport clock value.
    public var lamport: UInt64
    /// The replica that made the operation; breaks ties between equal clock values.
    public var replica: ReplicaID

    /// Creates a timestamp.
    public init(lamport: UInt64, replica: ReplicaID) {
        self.lamport = lamport
        self.replica = replica
    }

    /// Orders by Lamport time, then replica.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.lamport, lhs.replica) < (rhs.lamport, rhs.replica)
    }

    /// `lamport.replica`.
    public var description: String { "\(lamport).\(replica)" }
}
