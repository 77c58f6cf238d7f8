/// Reads the components of a ``Key`` back, front to back, checking every length.
///
/// ```swift
/// var reader = KeyReader(keyBytes)
/// let parent = try reader.read(UInt64.self)
/// let name = try reader.read(String.self)
/// try reader.finish()          // throws if bytes are left over
/// ```
public struct KeyReader: Sendable {
    /// A key that does not decode as expected: too short, badly escaped, or too long.
    public struct DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The byte offset at which decoding failed.
        public var offset: Int
        /// What was wrong.
        public var problem: String

        /// Creates an error.
        public init(offset: Int, problem: String) {
            self.offset = offset
            self.problem = problem
        }

        /// `"malformed key at byte N: problem"`.
        public var description: String { "malformed key at byte \(offset): \(problem)" }
    }

    private let bytes: [UInt8]
    /// The offset of the next byte to read.
    public private(set) var offset = 0

    /// Creates a reader over a copy of `bytes`.
    public init(_ bytes: some RawBytes) {
        self.bytes = bytes.withUnsafeBytes { Array($0) }
    }

    /// The number of bytes not yet read.
    public var remaining: Int { bytes.count - offset }

    /// Reads the next component.
    public mutating func read<Component: KeyComponent>(
        _ type: Component.Type
    ) throws(DecodingError) -> Component {
        try Component.read(from: &self)
    }

    /// Throws unless every byte has been read.
    public func finish() throws(DecodingError) {
        guard remaining == 0 else {
            throw DecodingError(offset: offset, problem: "\(remaining) unexpected trailing bytes")
        }
    }

    /// Takes the next `count` bytes.
    public mutating func take(_ count: Int, for what: String) throws(DecodingError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw DecodingError(offset: offset, problem: "\(what) needs \(count) bytes, \(remaining) left")
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Reads bytes escaped by `[UInt8].appendKeyBytes(to:)` up to their terminator.
    mutating func readEscapedBytes() throws(DecodingError) -> [UInt8] {
        var result: [UInt8] = []
        var index = offset
        while index < bytes.count {
            let byte = bytes[index]
            if byte != 0 {
                result.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { break }
            switch bytes[index + 1] {
            case 0xFF:
                result.append(0)
                index += 2
            case 0x01:
                offset = index + 2
                return result
            default:
                throw DecodingError(offset: index, problem: "invalid escape 0x00 0x\(String(bytes[index + 1], radix: 16))")
            }
        }
        throw DecodingError(offset: offset, problem: "byte string has no terminator")
    }
}
