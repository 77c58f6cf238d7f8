/// A replica ID encodes as its sixteen lowercase hexadecimal digits, the form
/// ``ReplicaID/description`` prints and the `quire` tool shows.
///
/// ```swift
/// try JSONEncoder().encode(ReplicaID(0xA1))   // "00000000000000a1"
/// ```
///
/// Decoding accepts sixteen hexadecimal digits in either case and throws
/// `DecodingError.dataCorrupted` for anything else.
extension ReplicaID: Codable {
    /// Encodes the ID as a string of sixteen lowercase hexadecimal digits.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Decodes the string ``encode(to:)`` writes.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` unless the value is sixteen hexadecimal digits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let id = ReplicaID(hexadecimal: string) else {
            throw Swift.DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "a replica ID is sixteen hexadecimal digits, such as \"00000000000000a1\", not \(string.debugDescription)")
        }
        self = id
    }

    /// The replica whose ``description`` is `string`: sixteen hexadecimal digits, either case.
    ///
    /// ```swift
    /// ReplicaID(hexadecimal: "00000000000000a1")   // ReplicaID(0xA1)
    /// ```
    ///
    /// - Parameter string: Sixteen hexadecimal digits.
    /// - Returns: `nil` for anything else.
    public init?(hexadecimal string: String) {
        guard string.utf8.count == 16, string.utf8.allSatisfy(\.isHexDigit),
              let value = UInt64(string, radix: 16) else { return nil }
        self.init(rawValue: value)
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII hexadecimal digit.
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
