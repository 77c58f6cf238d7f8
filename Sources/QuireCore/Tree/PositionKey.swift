/// Where a node sits among its siblings: a variable-length byte string, compared
/// bytewise (a proper prefix first), between which a new key can always be found.
///
/// Keys are fractions in base 256: `[0x80]` is ½, `[0x40]` is ¼. No generated key ends
/// in `0x00`, so bytewise order equals numeric order and there is always room between
/// two different keys. ``between(_:and:using:)`` picks a short key in the gap and
/// appends two random bytes, so two replicas inserting at the same place concurrently
/// almost never produce the same key (when they do, siblings tie-break by the timestamp
/// of their last move).
///
/// ```swift
/// var random = SystemRandomNumberGenerator()
/// let first = PositionKey.between(nil, and: nil, using: &random)
/// let later = PositionKey.between(first, and: nil, using: &random)
/// first < later   // true
/// ```
public struct PositionKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The key's bytes.
    public var bytes: [UInt8]

    /// The longest key accepted, in bytes. Keeps the children index key within LMDB's
    /// 511-byte limit even when every byte needs escaping.
    public static let maximumLength = 200

    /// Wraps bytes as a key.
    public init(_ bytes: [UInt8] = []) { self.bytes = bytes }

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
    ///   - random: Supplies the two-byte random suffix.
    /// - Returns: A key `k` with `lower < k < upper`, never ending in `0x00`.
    /// - Complexity: O(*k*) for the length *k* of the bounds.
    public static func between(
        _ lower: PositionKey?, and upper: PositionKey?, using random: inout some RandomNumberGenerator
    ) -> PositionKey {
        let low = lower?.bytes ?? []
        var high = upper?.bytes
        if let bound = high, compare(low, bound) >= 0 { high = nil }
        var result: [UInt8] = []
        result.reserveCapacity(low.count + 3)
        var lowTight = true
        var highTight = high != nil
        var index = 0
        while true {
            let l = lowTight && index < low.count ? Int(low[index]) : 0
            var h = 256
            if highTight, let high {
                if index < high.count {
                    h = Int(high[index])
                } else {
                    // Only a peer's key ending in 0x00 gets here: nothing lies strictly
                    // between, so the new key goes after `upper` instead.
                    highTight = false
                }
            }
            if h - l >= 2 {
                // Room for a digit strictly inside. Appending at the end steps up by one
                // and prepending at the start steps down by one, so a folder filled from
                // either end grows its keys by a byte only every ~128 insertions; between
                // two keys, the midpoint.
                let digit: Int
                if high == nil {
                    digit = l + 1
                } else if lower == nil && highTight {
                    digit = h - 1
                } else {
                    digit = l + (h - l) / 2
                }
                result.append(UInt8(digit))
                break
            }
            result.append(UInt8(l))
            if l < h { highTight = false }
            if !(lowTight && index < low.count) { lowTight = false }
            index += 1
        }
        // Anything appended keeps the key inside the gap: the last digit is already
        // strictly between the bounds' digits there.
        result.append(UInt8.random(in: 0...255, using: &random))
        result.append(UInt8.random(in: 1...255, using: &random))
        return PositionKey(result)
    }

    /// The bytes in hexadecimal.
    public var description: String {
        bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
