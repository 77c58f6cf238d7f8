/// The positions of the replicas in a short replica table: how an encoding refers to a
/// replica by a small number instead of its 8-byte ID.
///
/// The tables a change, a delta unit or an operation run carries hold one to a few
/// replicas (a keystroke's holds one), so a linear search beats building and hashing a
/// dictionary for every encoding, as a keystroke's commit did before.
public struct ReplicaIndex: Sendable {
    /// The table, each replica at its position.
    public let table: [ReplicaID]

    /// Indexes `table`; a replica listed twice is found at its first position.
    @inlinable
    public init(_ table: [ReplicaID]) { self.table = table }

    /// The position of `replica` in the table, or `nil` when it is not listed.
    @inlinable
    public subscript(replica: ReplicaID) -> Int? {
        table.firstIndex(of: replica)
    }
}

extension ReplicaIndex {
    /// Appends `replica` to `table` unless the table lists it already: how the tables are
    /// built, in order of first appearance.
    @inlinable
    public static func add(_ replica: ReplicaID, to table: inout [ReplicaID]) {
        if !table.contains(replica) { table.append(replica) }
    }
}
