/// A database key built from typed components whose byte order equals their logical
/// order, so LMDB's bytewise sort is the sort you mean.
///
/// Unsigned integers are stored big-endian at fixed width; signed integers the same with
/// the sign bit flipped; strings and byte strings escaped and terminated, so that a
/// shorter component sorts before any longer one that extends it and the next component
/// cannot bleed into it. A composite key therefore sorts by its first component, then the
/// second, and so on:
///
/// ```swift
/// let key = Key(replicaID, counter)          // (UInt64, UInt64): sorts by replica, then counter
/// let children = KeyRange.prefix(Key(parentID))
/// var reader = KeyReader(key.bytes)
/// let replica = try reader.read(UInt64.self)
/// ```
public struct Key: Hashable, Comparable, Sendable, RawBytes, CustomStringConvertible {
    /// The encoded bytes.
    public private(set) var bytes: [UInt8]

    /// Creates an empty key, to which components can be appended.
    public init() { bytes = [] }

    /// Wraps already encoded bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Creates a key from its components, in order of significance.
    ///
    /// - Parameter components: Integers, strings, byte arrays or other ``KeyComponent``s.
    public init<each Component: KeyComponent>(_ components: repeat each Component) {
        bytes = []
        // One allocation for the usual key (two or three integers, a short name) instead
        // of one per component as the array grows.
        bytes.reserveCapacity(32)
        repeat (each components).appendKeyBytes(to: &bytes)
    }

    /// Appends a component, less significant than those already present.
    public mutating func append(_ component: some KeyComponent) {
        component.appendKeyBytes(to: &bytes)
    }

    /// Orders keys as LMDB does.
    public static func < (lhs: Key, rhs: Key) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// Calls `body` with the encoded bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    /// The bytes in hexadecimal.
    public var description: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }
}

/// A value that can be one component of a ``Key`` and read back by a ``KeyReader``.
public protocol KeyComponent {
    /// Appends the order-preserving encoding of `self` to `bytes`.
    func appendKeyBytes(to bytes: inout [UInt8])

    /// Reads one value from the front of `reader`.
    ///
    /// - Throws: ``KeyReader/DecodingError`` when the bytes are short or malformed.
    static func read(from reader: inout KeyReader) throws(KeyReader.DecodingError) -> Self
}

extension KeyComponent where Self: FixedWidthInteger {
    /// Big-endian at fixed width; for signed types the sign bit is flipped so negative
    /// values sort first.
    public func appendKeyBytes(to bytes: inout [UInt8]) {
        let pattern = Self.isSigned ? self ^ (1 << (Self.bitWidth - 1)) : self
        withUnsafeBytes(of: pattern.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Reads a big-endian integer written by `appendKeyBytes(to:)`.
    public static func read(from reader: inout KeyReader) throws(KeyReader.DecodingError) -> Self {
        let raw = try reader.take(Self.bitWidth / 8, for: "\(Self.self)")
        var pattern: Self = 0
        for byte in raw { pattern = pattern << 8 | Self(truncatingIfNeeded: byte) }
        return Self.isSigned ? pattern ^ (1 << (Self.bitWidth - 1)) : pattern
    }
}

extension UInt8: KeyComponent {}
extension UInt16: KeyComponent {}
extension UInt32: KeyComponent {}
extension UInt64: KeyComponent {}
extension UInt: KeyComponent {}
extension Int8: KeyComponent {}
extension Int16: KeyComponent {}
extension Int32: KeyComponent {}
extension Int64: KeyComponent {}
extension Int: KeyComponent {}

extension Array: KeyComponent where Element == UInt8 {
    /// Escapes `0x00` as `0x00 0xFF` and terminates with `0x00 0x01`, which keeps
    /// bytewise order and makes the end unambiguous.
    public func appendKeyBytes(to bytes: inout [UInt8]) {
        for byte in self {
            bytes.append(byte)
            if byte == 0 { bytes.append(0xFF) }
        }
        bytes.append(0x00)
        bytes.append(0x01)
    }

    /// Reads an escaped, terminated byte string.
    public static func read(from reader: inout KeyReader) throws(KeyReader.DecodingError) -> [UInt8] {
        try reader.readEscapedBytes()
    }
}

extension String: KeyComponent {
    /// UTF-8, escaped and terminated like a byte array: strings sort by their UTF-8
    /// bytes, which is Unicode scalar order.
    public func appendKeyBytes(to bytes: inout [UInt8]) {
        Array(utf8).appendKeyBytes(to: &bytes)
    }

    /// Reads an escaped, terminated UTF-8 string.
    public static func read(from reader: inout KeyReader) throws(KeyReader.DecodingError) -> String {
        let offset = reader.offset
        let utf8 = try reader.readEscapedBytes()
        guard let text = String(validating: utf8, as: UTF8.self) else {
            throw KeyReader.DecodingError(offset: offset, problem: "invalid UTF-8 in a String component")
        }
        return text
    }
}

extension Key: KeyComponent {
    /// Appends the bytes as they are, without a terminator: a nested key is a prefix.
    public func appendKeyBytes(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: self.bytes)
    }

    /// Takes all remaining bytes.
    public static func read(from reader: inout KeyReader) throws(KeyReader.DecodingError) -> Key {
        Key(bytes: Array(try reader.take(reader.remaining, for: "Key")))
    }
}
