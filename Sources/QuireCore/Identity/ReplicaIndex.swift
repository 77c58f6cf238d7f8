/// The positions of the replicas in a replica table: how an encoding refers to a replica
/// by a small number instead of its 8-byte ID.
///
/// The tables a change, a delta unit or a keystroke's operations carry hold one to a few
/// replicas, where a linear search beats building and hashing a dictionary for every
/// encoding, as a keystroke's commit did before. A long table (a text's whole history
/// from thousands of replicas) is hashed once, so a lookup stays O(1).
public struct ReplicaIndex: Sendable {
    /// The most replicas a table is searched through; longer ones are hashed.
    public static let linearSearchLimit = 16

    /// The table, each replica at its position.
    public let table: [ReplicaID]
    /// The positions of a table longer than ``linearSearchLimit``; `nil` for a short one.
    @usableFromInline let positions: [ReplicaID: Int]?

    /// Indexes `table`; a replica listed twice is found at its first position.
    public init(_ table: [ReplicaID]) {
        self.table = table
        if table.count > Self.linearSearchLimit {
            var positions: [ReplicaID: Int] = [:]
            positions.reserveCapacity(table.count)
            for (position, replica) in table.enumerated() where positions[replica] == nil {
                positions[replica] = position
            }
            self.positions = positions
        } else {
            positions = nil
        }
    }

    /// The position of `replica` in the table, or `nil` when it is not listed.
    @inlinable
    public subscript(replica: ReplicaID) -> Int? {
        if let positions { return positions[replica] }
        return table.firstIndex(of: replica)
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
