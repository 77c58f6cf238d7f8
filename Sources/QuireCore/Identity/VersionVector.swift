/// What a replica has seen: for each replica, the number of its operations seen, which is
/// also the next counter expected from it (counters are contiguous from 0).
///
/// ```swift
/// var version = VersionVector()
/// version.record(OperationID(replica: a, counter: 0))
/// version.contains(OperationID(replica: a, counter: 0))   // true
/// version[a]                                                // 1
/// ```
public struct VersionVector: Hashable, Sendable, CustomStringConvertible {
    /// Replica → next expected counter. Replicas never seen are absent (0).
    public private(set) var counters: [ReplicaID: UInt64]

    /// The empty version: nothing seen.
    public init() { counters = [:] }

    /// A version from explicit counters; zero entries are dropped.
    public init(_ counters: [ReplicaID: UInt64]) {
        self.counters = counters.filter { $0.value > 0 }
    }

    /// The next counter expected from `replica` (the number of its operations seen).
    public subscript(replica: ReplicaID) -> UInt64 {
        get { counters[replica] ?? 0 }
        set { counters[replica] = newValue == 0 ? nil : newValue }
    }

    /// Whether the operation `id` has been seen.
    public func contains(_ id: OperationID) -> Bool { id.counter < self[id.replica] }

    /// Records `id` and every earlier operation of its replica as seen.
    public mutating func record(_ id: OperationID) {
        if id.counter >= self[id.replica] { self[id.replica] = id.counter + 1 }
    }

    /// Records the run of `count` operations starting at `first`.
    public mutating func record(_ first: OperationID, count: UInt64) {
        guard count > 0 else { return }
        record(first.advanced(by: count - 1))
    }

    /// The pointwise maximum of both versions.
    public func union(_ other: VersionVector) -> VersionVector {
        var result = self
        result.formUnion(other)
        return result
    }

    /// Replaces `self` with the pointwise maximum of both versions.
    public mutating func formUnion(_ other: VersionVector) {
        for (replica, counter) in other.counters where counter > self[replica] { self[replica] = counter }
    }

    /// Whether every operation `other` has seen, `self` has seen too.
    public func includes(_ other: VersionVector) -> Bool {
        other.counters.allSatisfy { self[$0.key] >= $0.value }
    }

    /// The total number of operations seen.
    public var operationCount: UInt64 { counters.values.reduce(0, +) }

    /// `{replica: counter, …}`, sorted by replica.
    public var description: String {
        "{" + counters.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }
}
