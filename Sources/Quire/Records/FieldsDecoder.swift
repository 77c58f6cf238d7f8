import Foundation

/// Decodes a record straight from its fields, without assembling a JSON object for
/// `JSONDecoder`: the fast path of a read (``RecordFields/decode(_:from:id:)``).
///
/// It handles what records are mostly made of — a keyed container at the top level whose
/// values are strings without escapes, integers, booleans, `null`, and types that decode
/// from a single such value (string enums, identifiers) — and gives up on anything else by
/// throwing. Any throw sends the record down the `JSONDecoder` path, so a value it
/// returns is the value `JSONDecoder` would return, and every error (a missing field, a
/// type mismatch) is `JSONDecoder`'s own. `FieldsDecoderTests` checks the two agree. Values `JSONEncoder` writes in its own way
/// (`Date`, `Data`, `URL`, `Decimal`), nested containers and numbers with a fraction or
/// exponent are decoded by `JSONDecoder` from the field's bytes.
struct FieldsDecoder: Decoder {
    /// Why the fast path gave up.
    struct GaveUp: Error {}

    let fields: [String: [UInt8]]

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container(fields: fields))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw GaveUp() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw GaveUp() }

    private struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [String: [UInt8]]

        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

        private func value(_ key: Key) throws -> [UInt8] {
            guard let bytes = fields[key.stringValue] else { throw GaveUp() }
            return bytes
        }

        func decodeNil(forKey key: Key) throws -> Bool { try value(key) == FieldValue.null }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try FieldValue.bool(value(key)) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try FieldValue.string(value(key)) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try FieldValue.double(value(key)) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw GaveUp() }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try FieldValue.integer(value(key)) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try FieldValue.integer(value(key)) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try FieldValue.integer(value(key)) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try FieldValue.integer(value(key)) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try FieldValue.integer(value(key)) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try FieldValue.integer(value(key)) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try FieldValue.integer(value(key)) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try FieldValue.integer(value(key)) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try FieldValue.integer(value(key)) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try FieldValue.integer(value(key)) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try FieldValue.decode(type, from: value(key))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw GaveUp()
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw GaveUp() }
        func superDecoder() throws -> any Decoder { throw GaveUp() }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw GaveUp() }
    }
}

/// One field's JSON value, read for ``FieldsDecoder``.
private enum FieldValue {
    static let null = Array("null".utf8)

    static func bool(_ bytes: [UInt8]) throws -> Bool {
        if bytes == Array("true".utf8) { return true }
        if bytes == Array("false".utf8) { return false }
        throw FieldsDecoder.GaveUp()
    }

    /// A string; one with escapes is read by `JSONDecoder`.
    static func string(_ bytes: [UInt8]) throws -> String {
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else {
            throw FieldsDecoder.GaveUp()
        }
        let inner = bytes[1..<(bytes.count - 1)]
        guard !inner.contains(where: { $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
            return try JSONDecoder().decode(String.self, from: Data(bytes))
        }
        guard let string = String(validating: inner, as: UTF8.self) else { throw FieldsDecoder.GaveUp() }
        return string
    }

    /// A number in JSON's form (digits, sign, fraction, exponent), as `Double` reads it.
    static func double(_ bytes: [UInt8]) throws -> Double {
        let allowed = bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+")
            || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        guard allowed, bytes.count <= 32, let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else {
            throw FieldsDecoder.GaveUp()
        }
        return value
    }

    /// An integer written as digits with an optional minus sign, that fits `T`.
    static func integer<T: FixedWidthInteger>(_ bytes: [UInt8]) throws -> T {
        var digits = bytes[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= 20, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw FieldsDecoder.GaveUp()
        }
        var value: T = 0
        for digit in digits {
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = negative
                ? times.subtractingReportingOverflow(T(digit - 0x30)) : times.addingReportingOverflow(T(digit - 0x30))
            guard !overflowA && !overflowB else { throw FieldsDecoder.GaveUp() }
            value = sum
        }
        return value
    }

    /// A value of another type: one that decodes from a single string, integer or
    /// boolean (enums, identifiers), or else by `JSONDecoder` from the field's bytes.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        if T.self == String.self { return try string(bytes) as! T }
        if T.self == Int.self { return try integer(bytes) as Int as! T }
        if T.self == Bool.self { return try bool(bytes) as! T }
        // The types JSONEncoder writes in its own way, and containers.
        let isSpecial = T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self
        if !isSpecial, let first = bytes.first, first != UInt8(ascii: "{"), first != UInt8(ascii: "[") {
            do { return try T(from: SingleValue(bytes: bytes)) } catch is FieldsDecoder.GaveUp {}
        }
        return try JSONDecoder().decode(T.self, from: Data(bytes))
    }

    /// A decoder of one scalar value, for types that decode from a single value.
    private struct SingleValue: Decoder, SingleValueDecodingContainer {
        let bytes: [UInt8]

        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw FieldsDecoder.GaveUp() }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw FieldsDecoder.GaveUp() }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

        func decodeNil() -> Bool { bytes == FieldValue.null }
        func decode(_ type: Bool.Type) throws -> Bool { try FieldValue.bool(bytes) }
        func decode(_ type: String.Type) throws -> String { try FieldValue.string(bytes) }
        func decode(_ type: Double.Type) throws -> Double { try FieldValue.double(bytes) }
        func decode(_ type: Float.Type) throws -> Float { throw FieldsDecoder.GaveUp() }
        func decode(_ type: Int.Type) throws -> Int { try FieldValue.integer(bytes) }
        func decode(_ type: Int8.Type) throws -> Int8 { try FieldValue.integer(bytes) }
        func decode(_ type: Int16.Type) throws -> Int16 { try FieldValue.integer(bytes) }
        func decode(_ type: Int32.Type) throws -> Int32 { try FieldValue.integer(bytes) }
        func decode(_ type: Int64.Type) throws -> Int64 { try FieldValue.integer(bytes) }
        func decode(_ type: UInt.Type) throws -> UInt { try FieldValue.integer(bytes) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try FieldValue.integer(bytes) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try FieldValue.integer(bytes) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try FieldValue.integer(bytes) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try FieldValue.integer(bytes) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { throw FieldsDecoder.GaveUp() }
    }
}
