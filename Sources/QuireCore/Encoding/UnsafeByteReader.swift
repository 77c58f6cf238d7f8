/// ``ByteReader``'s checks over borrowed memory, for decoders' hot loops: every read is
/// bounded by the bytes that remain, but no array bounds or reference counting is paid
/// on top.
///
/// Lives only inside the closure that lends the bytes:
///
/// ```swift
/// try state.withUnsafeBufferPointer { bytes throws(DecodingError) in
///     var reader = UnsafeByteReader(bytes)
///     let count = try reader.readVarint("count")
/// }
/// ```
///
/// Offsets (and so error offsets) count from the start of the lent buffer.
///
/// Public and inlinable, so that a decoder in another module (the store's record reader)
/// runs its checks inline rather than a call per field: Swift inlines a `package`
/// declaration across modules only when the library is built for evolution.
@frozen
public struct UnsafeByteReader {
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    @inlinable @inline(__always) public var offset: Int { _offset }
    @usableFromInline var _offset: Int

    /// A reader over `bytes`, which must stay valid while it is used.
    @inlinable @inline(__always)
    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self._offset = 0
    }

    /// The number of bytes not yet read.
    @inlinable @inline(__always) public var remaining: Int { bytes.count - _offset }

    /// Whether every byte has been read.
    @inlinable @inline(__always) public var isAtEnd: Bool { _offset == bytes.count }

    /// Reads one byte.
    @inlinable @inline(__always)
    public mutating func readByte(_ what: @autoclosure () -> String) throws(DecodingError) -> UInt8 {
        guard _offset < bytes.count else { throw DecodingError.truncated(what(), at: _offset) }
        let byte = bytes.baseAddress.unsafelyUnwrapped[_offset]
        _offset += 1
        return byte
    }

    /// Reads an unsigned LEB128 integer of at most 10 bytes.
    @inlinable @inline(__always)
    public mutating func readVarint(_ what: @autoclosure () -> String) throws(DecodingError) -> UInt64 {
        // Values below 2^21 (counters, lengths, offsets in all but huge texts) inline;
        // with three bytes left none of them needs another check.
        if bytes.count - _offset >= 3 {
            let base = bytes.baseAddress.unsafelyUnwrapped + _offset
            let first = base[0]
            if first < 0x80 {
                _offset += 1
                return UInt64(first)
            }
            let second = base[1]
            if second < 0x80 {
                _offset += 2
                return UInt64(first & 0x7F) | UInt64(second) << 7
            }
            let third = base[2]
            if third < 0x80 {
                _offset += 3
                return UInt64(first & 0x7F) | UInt64(second & 0x7F) << 7 | UInt64(third) << 14
            }
        }
        return try readLongVarint(what())
    }

    /// Reads a zigzag-encoded signed integer.
    @inlinable @inline(__always)
    public mutating func readSignedVarint(_ what: @autoclosure () -> String) throws(DecodingError) -> Int64 {
        let raw = try readVarint(what())
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A varint of two or more bytes (or none left): unchecked when ten bytes remain, the
    /// careful path otherwise and for overlong or overflowing values.
    @inline(never) @usableFromInline
    mutating func readLongVarint(_ what: @autoclosure () -> String) throws(DecodingError) -> UInt64 {
        let start = _offset
        if bytes.count - _offset >= 10 {
            let base = bytes.baseAddress.unsafelyUnwrapped + _offset
            var result: UInt64 = 0
            var shift: UInt64 = 0
            for index in 0..<10 {
                let byte = base[index]
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 {
                    if index == 9 && byte > 1 { break }
                    _offset += index + 1
                    return result
                }
                shift += 7
            }
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard _offset < bytes.count else { throw DecodingError.truncated(what(), at: start) }
            let byte = bytes[_offset]
            _offset += 1
            if shift == 63 && byte > 1 { throw DecodingError.malformed("\(what()) overflows 64 bits", at: start) }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw DecodingError.malformed("\(what()) is longer than 10 bytes", at: start) }
        }
    }

    /// Reads a count and checks it against a limit and against the bytes left, given the
    /// smallest encoded size of one element, before anything is allocated for it.
    @inlinable @inline(__always)
    public mutating func readCount(
        _ what: @autoclosure () -> String, limit: Int, minimumElementSize: Int = 1
    ) throws(DecodingError) -> Int {
        let start = _offset
        let raw = try readVarint(what())
        return try DecodingError.checkedCount(raw, what(), limit: limit, minimumElementSize: minimumElementSize, remaining: remaining, at: start)
    }

    /// Reads `count` raw bytes, as offsets into the lent buffer.
    @inlinable @inline(__always)
    public mutating func readBytes(_ count: Int, _ what: @autoclosure () -> String) throws(DecodingError) -> Range<Int> {
        guard count >= 0, count <= remaining else { throw DecodingError.truncated(what(), at: _offset) }
        defer { _offset += count }
        return _offset..<_offset + count
    }

    /// Reads a length-prefixed byte string of at most `limit` bytes, as offsets into the
    /// lent buffer.
    @inlinable @inline(__always)
    public mutating func readLengthPrefixed(_ what: @autoclosure () -> String, limit: Int) throws(DecodingError) -> Range<Int> {
        let count = try readCount(what(), limit: limit)
        return try readBytes(count, what())
    }

    /// Reads a length-prefixed UTF-8 string of at most `limit` bytes, checked valid, as
    /// _offsets into the lent buffer (as ``ByteReader/readUTF8(_:limit:)`` reads it).
    @inlinable @inline(__always)
    public mutating func readUTF8(_ what: @autoclosure () -> String, limit: Int) throws(DecodingError) -> Range<Int> {
        let start = _offset
        let range = try readLengthPrefixed(what(), limit: limit)
        let utf8 = UnsafeBufferPointer(rebasing: bytes[range])
        guard UTF8Scan.isASCII(utf8) || String(validating: utf8, as: UTF8.self) != nil else {
            throw DecodingError.malformed("\(what()) is not valid UTF-8", at: start)
        }
        return range
    }

    /// Reads eight bytes as a little-endian integer.
    @inlinable @inline(__always)
    public mutating func readUInt64LittleEndian(_ what: @autoclosure () -> String) throws(DecodingError) -> UInt64 {
        let range = try readBytes(8, what())
        return UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + range.lowerBound).loadUnaligned(as: UInt64.self))
    }

    /// Moves to `offset`, which the caller knows lies within the bytes.
    @inlinable @inline(__always)
    public mutating func skip(to offset: Int) {
        precondition(offset >= 0 && offset <= bytes.count, "offset outside the bytes")
        _offset = offset
    }
}
