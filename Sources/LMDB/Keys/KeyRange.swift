/// A range of keys for scans: from an inclusive lower bound to an exclusive upper bound,
/// either of which may be open.
///
/// ```swift
/// tx.entries(in: children, range: .prefix(Key(parentID)))
/// tx.entries(in: log, range: KeyRange(from: Key(UInt64(10)), to: Key(UInt64(20))))
/// ```
public struct KeyRange: Sendable, Hashable {
    /// The smallest key in the range, or `nil` for no lower bound.
    public var lowerBound: [UInt8]?
    /// The first key past the range, or `nil` for no upper bound.
    public var upperBound: [UInt8]?

    /// Creates the range `lower ..< upper`. For one open side use ``atLeast(_:)`` or
    /// ``below(_:)``.
    public init(from lower: some RawBytes, to upper: some RawBytes) {
        lowerBound = lower.withUnsafeBytes { Array($0) }
        upperBound = upper.withUnsafeBytes { Array($0) }
    }

    private init(lowerBound: [UInt8]?, upperBound: [UInt8]?) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    /// Every key.
    public static let all = KeyRange(lowerBound: nil, upperBound: nil)

    /// Every key starting with `prefix`.
    public static func prefix(_ prefix: some RawBytes) -> KeyRange {
        let bytes = prefix.withUnsafeBytes { Array($0) }
        return KeyRange(lowerBound: bytes, upperBound: successor(ofPrefix: bytes))
    }

    /// Every key greater than or equal to `lower`.
    public static func atLeast(_ lower: some RawBytes) -> KeyRange {
        KeyRange(lowerBound: lower.withUnsafeBytes { Array($0) }, upperBound: nil)
    }

    /// Every key less than `upper`.
    public static func below(_ upper: some RawBytes) -> KeyRange {
        KeyRange(lowerBound: nil, upperBound: upper.withUnsafeBytes { Array($0) })
    }

    /// Whether `key` lies below the upper bound.
    func isBelowUpperBound(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let upperBound else { return true }
        return upperBound.withUnsafeBytes { compareBytes(key, $0) < 0 }
    }

    /// Whether `key` lies at or above the lower bound.
    func isAtOrAboveLowerBound(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let lowerBound else { return true }
        return lowerBound.withUnsafeBytes { compareBytes(key, $0) >= 0 }
    }

    /// The smallest byte string greater than every string starting with `prefix`, or
    /// `nil` when there is none (empty or all `0xFF`).
    static func successor(ofPrefix prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }
}
