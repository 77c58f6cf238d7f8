/// The identity of one replica (one device's copy of a store): a random 64-bit number.
///
/// Every operation a replica makes is stamped with its ID, so IDs must not repeat across
/// replicas: create one with ``random()`` when a store is created, and never reuse a
/// store's ID on a copy of it.
public struct ReplicaID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 64-bit value.
    public var rawValue: UInt64

    /// Wraps a raw value.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Wraps a raw value.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// A new random ID, from the system's secure generator.
    public static func random() -> ReplicaID {
        var generator = SystemRandomNumberGenerator()
        return ReplicaID(rawValue: generator.next())
    }

    /// Orders by the raw value.
    public static func < (lhs: ReplicaID, rhs: ReplicaID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Hashes as the raw value does.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The raw value's hash, through the standard library's one-word path (the same
    /// seeded SipHash, without a `Hasher`): a keystroke's commit looks its replica up in
    /// half a dozen tables, and the general path costs about four times as much.
    public func _rawHashValue(seed: Int) -> Int { rawValue._rawHashValue(seed: seed) }

    /// Sixteen hexadecimal digits.
    public var description: String {
        let digits = String(rawValue, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
