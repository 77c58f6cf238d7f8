/// An unsigned integer as a key component in as few bytes as it needs, still in order:
/// one byte with the number of bytes that follow (0 … 8), then the value big-endian in
/// that many bytes, the first of them never zero. Small counters and clocks take 2 to 4
/// bytes instead of 8.
///
/// ```swift
/// let key = Key(parent.replica, CompactInteger(parent.counter))   // 8 + 1…9 bytes
/// var reader = KeyReader(key.bytes)
/// _ = try reader.read(UInt64.self)
/// let counter = try reader.read(CompactInteger.self).value
/// ```
public struct CompactInteger: KeyComponent, Hashable, Sendable {
    /// The integer.
    public var value: UInt64

    /// Wraps an integer.
    public init(_ value: UInt64) { self.value = value }

    /// A longer encoding is a larger number, so the length byte sorts first.
    public func appendKeyBytes(to bytes: inout [UInt8]) {
        let length = (64 - value.leadingZeroBitCount + 7) / 8
        bytes.append(UInt8(length))
        for index in stride(from: length - 1, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))))
        }
    }

    /// Reads an integer written by `appendKeyBytes(to:)`; refuses a length over 8 and a
    /// leading zero byte (another encoding of a shorter number, which would sort wrongly).
    public static func read(from reader: inout KeyReader) throws(KeyReader.DecodingError) -> CompactInteger {
        let start = reader.offset
        let length = Int(try reader.take(1, for: "compact integer length").first!)
        guard length <= 8 else {
            throw KeyReader.DecodingError(offset: start, problem: "compact integer of \(length) bytes, over 8")
        }
        let digits = try reader.take(length, for: "compact integer")
        guard digits.first != 0 else {
            throw KeyReader.DecodingError(offset: start, problem: "compact integer with a leading zero byte")
        }
        return CompactInteger(digits.reduce(0) { $0 << 8 | UInt64($1) })
    }
}
