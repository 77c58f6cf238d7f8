/// ``ByteWriter``'s encoding written into memory sized up front, for encoders' hot
/// loops: no capacity or uniqueness check per byte, as `Array.append` pays.
///
/// The encoder works out an upper bound of what it writes (a varint of at most `m` takes
/// ``varintSize(_:)`` of `m` bytes) and writes inside ``bytes(atMost:_:)``, checking
/// the room left once per item it writes (``checkRoom(for:)``), not per byte:
///
/// ```swift
/// let itemBytes = UnsafeByteWriter.varintSize(largest)
/// let bytes = UnsafeByteWriter.bytes(atMost: 1 + values.count * itemBytes) { writer in
///     writer.write(byte: format)
///     for value in values {
///         writer.checkRoom(for: itemBytes)
///         writer.write(varint: value)
///     }
/// }
/// ```
///
/// A bound that is wrong traps at the check, before anything is written past it (and
/// debug builds check every write too).
struct UnsafeByteWriter {
    /// The bytes a varint of `value` takes: 1 to 10, 7 bits a byte.
    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int { max(1, (70 - value.leadingZeroBitCount) / 7) }

    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// The number of bytes written.
    private(set) var count = 0

    private init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.base = buffer.baseAddress.unsafelyUnwrapped
        self.capacity = buffer.count
    }

    /// The bytes `body` writes, which must be at most `maximumCount`.
    ///
    /// When the bound was far too generous (the bytes fill less than a quarter of it),
    /// they are copied into an array of their own size, so the slack is not kept.
    static func bytes(atMost maximumCount: Int, _ body: (inout UnsafeByteWriter) -> Void) -> [UInt8] {
        let bytes = [UInt8](unsafeUninitializedCapacity: maximumCount) { buffer, initialized in
            var writer = UnsafeByteWriter(buffer)
            body(&writer)
            precondition(writer.count <= buffer.count, "UnsafeByteWriter wrote past its bound")
            initialized = writer.count
        }
        guard bytes.count < maximumCount / 4 else { return bytes }
        // A copy of its own size (`Array(bytes)` would share the large buffer).
        return [UInt8](unsafeUninitializedCapacity: bytes.count) { copy, initialized in
            bytes.withUnsafeBufferPointer { source in
                copy.baseAddress.unsafelyUnwrapped.initialize(from: source.baseAddress.unsafelyUnwrapped, count: source.count)
            }
            initialized = bytes.count
        }
    }

    /// Traps unless `count` more bytes fit: what an encoder calls before each item it
    /// writes, with the most that item can take.
    @inline(__always)
    func checkRoom(for count: Int) {
        precondition(self.count + count <= capacity, "UnsafeByteWriter: the bound is too small")
    }

    /// Writes one byte.
    @inline(__always)
    mutating func write(byte: UInt8) {
        assert(count < capacity, "UnsafeByteWriter wrote past its bound")
        base[count] = byte
        count += 1
    }

    /// Writes an unsigned integer in 1–10 bytes, as ``ByteWriter/write(varint:)``.
    @inline(__always)
    mutating func write(varint value: UInt64) {
        assert(count + Self.varintSize(value) <= capacity, "UnsafeByteWriter wrote past its bound")
        var value = value
        while value >= 0x80 {
            base[count] = UInt8(truncatingIfNeeded: value) | 0x80
            count += 1
            value >>= 7
        }
        base[count] = UInt8(truncatingIfNeeded: value)
        count += 1
    }

    /// Writes a signed integer zigzag-encoded, as ``ByteWriter/write(signedVarint:)``.
    @inline(__always)
    mutating func write(signedVarint value: Int64) {
        write(varint: UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Writes `bytes` as they are.
    @inline(__always)
    mutating func write(raw bytes: UnsafeRawBufferPointer) {
        assert(count + bytes.count <= capacity, "UnsafeByteWriter wrote past its bound")
        guard let source = bytes.baseAddress else { return }
        (base + count).initialize(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    /// Writes `bytes` after their length, as ``ByteWriter/write(lengthPrefixed:)``.
    mutating func write(lengthPrefixed bytes: [UInt8]) {
        write(varint: UInt64(bytes.count))
        bytes.withUnsafeBytes { write(raw: $0) }
    }
}
