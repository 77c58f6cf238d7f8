/// Where a node sits among its siblings: a byte string compared bytewise (a proper prefix
/// first), between any two of which a new key can be made.
///
/// A key made here is a sequence of integers, each written as one order-preserving
/// token (``PositionKey/components``), so bytewise order is the order of the integer
/// sequences. ``between(_:and:continuing:using:)`` picks the new key in three ways:
///
/// - **Continuing a run.** When the caller says a neighbour's key ends a run of its own
///   (``ReplicatedTree`` does for the key it made last, and at the open ends for any key
///   it made), the new key is that key with its last integer plus (or minus) one. So appending, inserting at
///   one spot again and again, or dragging item after item to one place grow a key by
///   one token at most, then only by the logarithm of the count: a million appends need
///   five bytes, a hundred thousand inserts at index 1 a dozen.
/// - **Starting a run** anywhere else: the first integer where the neighbours differ,
///   chosen at random in the gap when it is wide, or one level deeper with a random
///   integer below 2²⁴ when it is narrow. Two replicas inserting at one spot concurrently
///   start their runs far apart, so their items stay in two blocks instead of
///   interleaving one by one (unless one of them makes millions of items there).
/// - **Bytes that are not such integers**, from stores written before format 2 or from a
///   peer, get the bytewise midpoint with two random bytes, the earlier algorithm.
///
/// Equal keys (two replicas' runs meeting exactly) are allowed: siblings then sort by the
/// timestamp of their last move.
///
/// ```swift
/// var random = SystemRandomNumberGenerator()
/// let first = PositionKey.between(nil, and: nil, using: &random)
/// let later = PositionKey.between(first, and: nil, continuing: .lower, using: &random)
/// first < later   // true; `later` is `first` with its integer plus one
/// ```
public struct PositionKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The key's bytes.
    public var bytes: [UInt8]

    /// The longest key accepted, in bytes. Keeps the children index key within LMDB's
    /// 511-byte limit even when every byte needs escaping. Keys made here stay far below
    /// it; only neighbours' keys that are not integer sequences can approach it.
    public static let maximumLength = 200

    /// Wraps bytes as a key.
    public init(_ bytes: [UInt8] = []) { self.bytes = bytes }

    /// Which neighbours of a new key this replica made, so that the new key may continue
    /// their run.
    public struct Neighbours: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The key sorting just before the new one.
        public static let lower = Neighbours(rawValue: 1)
        /// The key sorting just after the new one.
        public static let upper = Neighbours(rawValue: 2)
    }

    /// Bytewise order; a proper prefix sorts first.
    ///
    /// - Complexity: O(*k*) for the length *k* of the shorter key.
    public static func < (lhs: PositionKey, rhs: PositionKey) -> Bool {
        compare(lhs.bytes, rhs.bytes) < 0
    }

    /// A negative number, zero or a positive number as `a` sorts before, equal to or
    /// after `b`.
    @inlinable
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                let common = Swift.min(pa.count, pb.count)
                var index = 0
                while index < common {
                    let x = pa[index], y = pb[index]
                    if x != y { return Int(x) - Int(y) }
                    index += 1
                }
                return pa.count - pb.count
            }
        }
    }

    /// A new key strictly between `lower` and `upper`.
    ///
    /// - Parameters:
    ///   - lower: The key to sort after, or `nil` for the start.
    ///   - upper: The key to sort before, or `nil` for the end. Ignored unless it sorts
    ///     after `lower`.
    ///   - continuing: The neighbours whose run the new key may continue (this replica
    ///     made their keys): it is then that key with its last integer one further, when
    ///     that still lies between the bounds.
    ///   - random: Supplies where a new run starts.
    /// - Returns: A key `k` with `lower < k < upper`.
    /// - Complexity: O(*k*) for the length *k* of the bounds.
    public static func between(
        _ lower: PositionKey?, and upper: PositionKey?, continuing: Neighbours = [],
        using random: inout some RandomNumberGenerator
    ) -> PositionKey {
        var upper = upper
        if let bound = upper, let lower, !(lower < bound) { upper = nil }
        // Bounds as integer sequences; `nil` for no bound.
        var low: [Int64]?, high: [Int64]?
        if let lower {
            guard let parsed = components(of: lower.bytes) else { return bytewiseBetween(lower, and: upper, using: &random) }
            low = parsed
        }
        if let upper {
            guard let parsed = components(of: upper.bytes) else { return bytewiseBetween(lower, and: upper, using: &random) }
            high = parsed
        }
        // Continue this replica's run: a neighbour's last integer, one further.
        if continuing.contains(.lower), let next = low?.withLast(adding: 1) {
            let key = PositionKey(encoding: next)
            if upper.map({ key < $0 }) ?? true { return key }
        }
        if continuing.contains(.upper), let previous = high?.withLast(adding: -1) {
            let key = PositionKey(encoding: previous)
            if lower.map({ $0 < key }) ?? true { return key }
        }
        guard let run = newRun(after: low, before: high, using: &random) else {
            return bytewiseBetween(lower, and: upper, using: &random)
        }
        return PositionKey(encoding: run)
    }

    /// The bytes in hexadecimal.
    public var description: String {
        bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
