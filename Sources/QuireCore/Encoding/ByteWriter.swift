/// Appends the compact binary encoding the replication core uses: LEB128 variable-length
/// integers (7 bits a byte, low bits first), zigzag for signed values, and
/// length-prefixed byte strings.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8] { storage }

    // Inlinable writes: encoders in other modules (a change's, a delta file's) call them
    // for every byte and varint, and can inline them only so.
    @usableFromInline var storage: [UInt8] = []

    /// Creates an empty writer.
    public init() {}

    /// Creates an empty writer with room for `capacity` bytes before it grows.
    public init(capacity: Int) { storage.reserveCapacity(capacity) }

    /// Appends one byte.
    @inlinable
    public mutating func write(byte: UInt8) { storage.append(byte) }

    /// Appends raw bytes as they are.
    @inlinable
    public mutating func write(raw: some Sequence<UInt8>) { storage.append(contentsOf: raw) }

    /// Appends an unsigned integer in 1–10 bytes (values below 128 take one).
    @inlinable @inline(__always)  // encoders write one per field: a call costs more than the write
    public mutating func write(varint value: UInt64) {
        var value = value
        while value >= 0x80 {
            storage.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        storage.append(UInt8(value))
    }

    /// Appends a signed integer, zigzag-encoded so small magnitudes stay small.
    @inlinable
    public mutating func write(signedVarint value: Int64) {
        write(varint: UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Appends a length-prefixed byte string.
    @inlinable
    public mutating func write(lengthPrefixed data: some Collection<UInt8>) {
        write(varint: UInt64(data.count))
        storage.append(contentsOf: data)
    }

    /// Appends what `body` writes, length-prefixed, without building it apart first: one
    /// byte is kept for the length and widened (moving what follows) when it is 128 or more.
    public mutating func writeLengthPrefixed(_ body: (inout ByteWriter) -> Void) {
        let start = storage.count
        storage.append(0)
        body(&self)
        let length = storage.count - start - 1
        if length < 0x80 {
            storage[start] = UInt8(length)
        } else {
            var prefix = ByteWriter()
            prefix.write(varint: UInt64(length))
            storage.replaceSubrange(start..<(start + 1), with: prefix.storage)
        }
    }

    /// Appends a length-prefixed UTF-8 string.
    public mutating func write(string: String) {
        write(lengthPrefixed: string.utf8)
    }
}
