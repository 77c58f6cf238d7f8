/// Reads what ``ByteWriter`` wrote, checking every length against the bytes that remain,
/// so malformed or hostile input throws a ``DecodingError`` instead of crashing or
/// allocating without bound.
public struct ByteReader: Sendable {
    private let bytes: [UInt8]
    /// The offset of the next byte to read.
    public private(set) var offset: Int

    /// Creates a reader over `bytes`.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.offset = 0
    }

    /// The number of bytes not yet read.
    public var remaining: Int { bytes.count - offset }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset == bytes.count }

    /// Reads one byte.
    public mutating func readByte(_ what: @autoclosure () -> String = "byte") throws(DecodingError) -> UInt8 {
        guard offset < bytes.count else { throw DecodingError.truncated(what(), at: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads an unsigned LEB128 integer of at most 10 bytes.
    @inline(__always)
    public mutating func readVarint(_ what: @autoclosure () -> String = "integer") throws(DecodingError) -> UInt64 {
        // Most values fit one byte: take them without the loop.
        if offset < bytes.count, bytes[offset] < 0x80 {
            defer { offset += 1 }
            return UInt64(bytes[offset])
        }
        // With ten bytes left no check is needed inside the loop; 0 means overlong or
        // overflowing, which the careful path reports.
        if bytes.count - offset >= 10 {
            let (value, length) = bytes.withUnsafeBufferPointer { buffer -> (UInt64, Int) in
                let base = buffer.baseAddress! + offset
                var result: UInt64 = 0
                var shift: UInt64 = 0
                for index in 0..<10 {
                    let byte = base[index]
                    result |= UInt64(byte & 0x7F) << shift
                    if byte < 0x80 { return index == 9 && byte > 1 ? (0, 0) : (result, index + 1) }
                    shift += 7
                }
                return (0, 0)
            }
            if length > 0 {
                offset += length
                return value
            }
        }
        return try readLongVarint(what())
    }

    private mutating func readLongVarint(_ what: @autoclosure () -> String) throws(DecodingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        let start = offset
        while true {
            guard offset < bytes.count else { throw DecodingError.truncated(what(), at: start) }
            let byte = bytes[offset]
            offset += 1
            if shift == 63 && byte > 1 { throw DecodingError.malformed("\(what()) overflows 64 bits", at: start) }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw DecodingError.malformed("\(what()) is longer than 10 bytes", at: start) }
        }
    }

    /// Reads a zigzag-encoded signed integer.
    @inline(__always)
    public mutating func readSignedVarint(_ what: @autoclosure () -> String = "integer") throws(DecodingError) -> Int64 {
        let raw = try readVarint(what())
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// Reads a count and checks it against a limit and against the bytes left, given the
    /// smallest encoded size of one element, before anything is allocated for it.
    public mutating func readCount(
        _ what: @autoclosure () -> String, limit: Int, minimumElementSize: Int = 1
    ) throws(DecodingError) -> Int {
        let start = offset
        let raw = try readVarint(what())
        return try DecodingError.checkedCount(raw, what(), limit: limit, minimumElementSize: minimumElementSize, remaining: remaining, at: start)
    }

    /// Reads `count` raw bytes.
    public mutating func readBytes(_ count: Int, _ what: @autoclosure () -> String = "bytes") throws(DecodingError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw DecodingError.truncated(what(), at: offset) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Reads a length-prefixed byte string of at most `limit` bytes.
    public mutating func readLengthPrefixed(_ what: @autoclosure () -> String, limit: Int = .max) throws(DecodingError) -> ArraySlice<UInt8> {
        let count = try readCount(what(), limit: limit)
        return try readBytes(count, what())
    }

    /// Reads a length-prefixed UTF-8 string, which must be valid UTF-8.
    public mutating func readString(_ what: @autoclosure () -> String, limit: Int = .max) throws(DecodingError) -> String {
        String(decoding: try readUTF8(what(), limit: limit), as: UTF8.self)
    }

    /// Reads the bytes of a length-prefixed UTF-8 string, checked to be valid UTF-8 but
    /// not made into a `String`: for a reader that only compares or locates them.
    public mutating func readUTF8(_ what: @autoclosure () -> String, limit: Int = .max) throws(DecodingError) -> ArraySlice<UInt8> {
        let start = offset
        let utf8 = try readLengthPrefixed(what(), limit: limit)
        // ASCII (names, the usual case) needs no validation: `String(validating:as:)`
        // runs generic code that looks up type metadata on every call, which a
        // record read paid for each of its strings.
        let valid = utf8.withUnsafeBufferPointer { buffer in
            UTF8Scan.isASCII(buffer) || String(validating: buffer, as: UTF8.self) != nil
        }
        guard valid else { throw DecodingError.malformed("\(what()) is not valid UTF-8", at: start) }
        return utf8
    }
}

/// Input that does not decode: where, and what was wrong.
public struct DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The byte offset where the problem was found.
    public var offset: Int
    /// What was wrong, for a person.
    public var problem: String
    /// Whether the input ended before what it declares (a count, a length, a stream):
    /// the bytes may be a prefix of valid input, cut short, rather than damaged.
    public var endsEarly: Bool

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - offset: Where the problem was found.
    ///   - problem: What was wrong.
    ///   - endsEarly: Whether the input ended before what it declares.
    public init(offset: Int, problem: String, endsEarly: Bool = false) {
        self.offset = offset
        self.problem = problem
        self.endsEarly = endsEarly
    }

    /// A decoded count checked against `limit` and, at `minimumElementSize` bytes per
    /// element, against the `remaining` bytes: what both readers do before allocating.
    @inlinable
    static func checkedCount(
        _ raw: UInt64, _ what: @autoclosure () -> String, limit: Int, minimumElementSize: Int, remaining: Int, at start: Int
    ) throws(DecodingError) -> Int {
        guard raw <= UInt64(limit) else {
            throw DecodingError.malformed("\(what()) \(raw) exceeds the limit \(limit)", at: start)
        }
        let count = Int(raw)
        guard count.multipliedReportingOverflow(by: max(minimumElementSize, 0)).partialValue <= remaining else {
            throw DecodingError.truncated("\(count) × \(what())", at: start)
        }
        return count
    }

    /// The input ended while reading `what`.
    public static func truncated(_ what: String, at offset: Int) -> DecodingError {
        DecodingError(offset: offset, problem: "input ends inside \(what)", endsEarly: true)
    }

    /// The bytes at `offset` are not a valid `what`.
    public static func malformed(_ problem: String, at offset: Int) -> DecodingError {
        DecodingError(offset: offset, problem: problem)
    }

    /// `"malformed input at byte N: problem"`.
    public var description: String { "malformed input at byte \(offset): \(problem)" }
}
