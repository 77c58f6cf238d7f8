/// Appends the compact binary encoding the replication core uses: LEB128 variable-length
/// integers (7 bits a byte, low bits first), zigzag for signed values, and
/// length-prefixed byte strings.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// Creates an empty writer.
    public init() {}

    /// Appends one byte.
    public mutating func write(byte: UInt8) { bytes.append(byte) }

    /// Appends raw bytes as they are.
    public mutating func write(raw: some Sequence<UInt8>) { bytes.append(contentsOf: raw) }

    /// Appends an unsigned integer in 1–10 bytes (values below 128 take one).
    public mutating func write(varint value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Appends a signed integer, zigzag-encoded so small magnitudes stay small.
    public mutating func write(signedVarint value: Int64) {
        write(varint: UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Appends a length-prefixed byte string.
    public mutating func write(lengthPrefixed data: some Collection<UInt8>) {
        write(varint: UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    /// Appends a length-prefixed UTF-8 string.
    public mutating func write(string: String) {
        write(lengthPrefixed: Array(string.utf8))
    }
}
