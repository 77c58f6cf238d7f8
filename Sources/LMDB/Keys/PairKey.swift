/// The key of two unsigned 64-bit integers — the bytes `Key(first, second)` encodes —
/// held in place instead of in an array.
///
/// For the hottest lookups (a record by its replica and counter): building a ``Key``
/// allocates its array, which costs a point read a few hundred instructions more than
/// this. It is a ``RawBytes`` to look up with and a ``KeyComponent``, so `Key(pair)`
/// makes the same key as a ``Key``.
///
/// ```swift
/// let value = try tx.value(forKey: PairKey(replica, counter), in: records)
/// ```
public struct PairKey: Hashable, Sendable, RawBytes, KeyComponent {
    /// The more significant integer.
    public var first: UInt64
    /// The less significant integer.
    public var second: UInt64

    /// Creates the key of `first`, then `second`.
    @inlinable
    public init(_ first: UInt64, _ second: UInt64) {
        self.first = first
        self.second = second
    }

    /// Calls `body` with the 16 bytes: both integers big-endian, `first` first.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: (first.bigEndian, second.bigEndian), body)
    }

    /// Appends the 16 bytes, as ``Key`` appends two `UInt64` components.
    public func appendKeyBytes(to bytes: inout [UInt8]) {
        first.appendKeyBytes(to: &bytes)
        second.appendKeyBytes(to: &bytes)
    }

    /// Reads two `UInt64` components.
    public static func read(from reader: inout KeyReader) throws(KeyReader.DecodingError) -> PairKey {
        PairKey(try UInt64.read(from: &reader), try UInt64.read(from: &reader))
    }
}
