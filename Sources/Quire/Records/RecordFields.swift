import Foundation

/// Splits a record into its fields and puts it back together.
///
/// A record is encoded with `JSONEncoder` (sorted keys, so equal values give equal
/// bytes); each top-level member becomes one field whose value is the member's JSON text,
/// byte for byte. Decoding rebuilds the object from the fields and uses `JSONDecoder`,
/// so a field written by a newer app version that this type does not know is kept in
/// the store and ignored by the decoder — and, because a write clears only the fields
/// the type's decoder asks for (``write(_:over:id:)``), kept by this type's writes too.
@usableFromInline
enum RecordFields {
    typealias Fields = [String: [UInt8]]

    static func encode<Value: Record>(_ record: Value) throws(StoreError) -> Fields {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(record)
        } catch {
            throw StoreError.encodingFailed(type: Value.typeName, problem: "\(error)")
        }
        var scanner = JSONObjectScanner(Array(data))
        let fields: Fields
        do throws(JSONObjectScanner.Failure) {
            fields = try scanner.members()
        } catch {
            throw StoreError.encodingFailed(type: Value.typeName, problem: "a record must encode as a keyed container (a struct with properties): \(error.problem)")
        }
        try checkLimits(fields, type: Value.typeName)
        return fields
    }

    /// Refuses what the change log and the record encoding could not read back: names
    /// longer than ``Change/maximumNameLength`` bytes, values longer than
    /// ``Change/maximumValueLength``. Checked before anything is written.
    static func checkLimits(_ fields: Fields, type: String) throws(StoreError) {
        guard type.utf8.count <= Change.maximumNameLength else {
            throw StoreError.encodingFailed(type: type, problem: "the type name is \(type.utf8.count) bytes; at most \(Change.maximumNameLength) are allowed")
        }
        for (name, value) in fields {
            guard name.utf8.count <= Change.maximumNameLength else {
                throw StoreError.encodingFailed(type: type, problem: "the field name '\(name.prefix(40))…' is \(name.utf8.count) bytes; at most \(Change.maximumNameLength) are allowed")
            }
            guard value.count <= Change.maximumValueLength else {
                throw StoreError.encodingFailed(type: type, problem: "the field '\(name)' encodes to \(value.count) bytes; at most \(Change.maximumValueLength) (16 MiB) are allowed — keep long text in a text field (tx.insert(_:at:in:)), which has no such limit")
            }
        }
    }

    /// The record decoded as `type`: by ``FieldsDecoder`` when it can, else (and for
    /// every error) through `JSONDecoder` as ``decodeNotingKeys(_:from:id:)`` does.
    @usableFromInline
    static func decode<Value: Record>(_ type: Value.Type, from fields: FieldValues, id: RecordID) throws(StoreError) -> Value {
        do { return try FieldsDecoder.decode(Value.self, from: fields) } catch {}
        return try decodeThroughJSON(type, from: fields.dictionary, id: id)
    }

    /// The `JSONDecoder` path of ``decode(_:from:id:)-(_,FieldValues,_)``, kept out of line:
    /// its `Result` costs the fast path a generic metadata lookup per read when inlined.
    @inline(never)
    private static func decodeThroughJSON<Value: Record>(_ type: Value.Type, from fields: Fields, id: RecordID) throws(StoreError) -> Value {
        try decodeNotingKeys(type, from: fields, id: id).value.get()
    }

    /// The record decoded as `type` from a dictionary of its fields (see
    /// ``decode(_:from:id:)-(_,FieldValues,_)``).
    static func decode<Value: Record>(_ type: Value.Type, from fields: Fields, id: RecordID) throws(StoreError) -> Value {
        try FieldValues.withDictionary(fields) { values throws(StoreError) in try decode(type, from: values, id: id) }
    }

    /// The record decoded as `type`, with the fields `type` asked for while decoding
    /// (see ``KeyRecordingDecoding``): `nil` when it did not decode a keyed container.
    /// Keys asked for before a decoding error count too.
    static func decodeNotingKeys<Value: Record>(
        _ type: Value.Type, from fields: Fields, id: RecordID
    ) -> (value: Result<Value, StoreError>, keys: Set<String>?) {
        var json: [UInt8] = [UInt8(ascii: "{")]
        for (index, name) in fields.keys.sorted().enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: quoted(name))
            json.append(UInt8(ascii: ":"))
            json.append(contentsOf: fields[name]!)
        }
        json.append(UInt8(ascii: "}"))
        let decoded: KeyRecordingDecoding<Value>
        do {
            decoded = try JSONDecoder().decode(KeyRecordingDecoding<Value>.self, from: Data(json))
        } catch {
            return (.failure(.decodingFailed(record: id, type: Value.typeName, problem: "\(error)")), nil)
        }
        let value = decoded.result.mapError { error in
            StoreError.decodingFailed(record: id, type: Value.typeName, problem: "\(error)")
        }
        return (value, decoded.keys)
    }

    /// The fields a write of `value` over a record with the stored fields `current` sets:
    /// `value`'s fields, plus `null` for each stored field that `Value` knows but did not
    /// encode (an optional set to `nil`, which a synthesized `encode(to:)` skips).
    ///
    /// A stored field `Value` does not know — one a newer (or older) app version wrote —
    /// is left alone, so writing a record never wipes what another version added. The
    /// known fields are those `Value`'s decoder asks for, decoding `current` and decoding
    /// `value`'s own encoding (so a type whose decoder depends on the data, and a record
    /// that does not decode as `Value`, still clear every field `Value` ever reads). A type
    /// that does not decode a keyed container at the top level clears nothing.
    static func write<Value: Record>(_ value: Value, over current: Fields, id: RecordID) throws(StoreError) -> Fields {
        var fields = try encode(value)
        let missing = current.keys.filter { fields[$0] == nil }
        guard !missing.isEmpty else { return fields }
        var known = decodeNotingKeys(Value.self, from: current, id: id).keys ?? []
        known.formUnion(decodeNotingKeys(Value.self, from: fields, id: id).keys ?? [])
        for name in missing where known.contains(name) {
            fields[name] = Array("null".utf8)
        }
        return fields
    }

    /// `name` as a JSON string: quoted, with `"`, `\\` and control characters escaped.
    static func quoted(_ name: String) -> [UInt8] {
        var json: [UInt8] = [UInt8(ascii: "\"")]
        json.reserveCapacity(name.utf8.count + 2)
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                json += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                json += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default:
                json.append(byte)
            }
        }
        json.append(UInt8(ascii: "\""))
        return json
    }
}

/// Finds the members of one top-level JSON object and the exact bytes of each value.
///
/// Only as much of JSON as needed to skip a value: strings (with escapes), nesting of
/// objects and arrays, and scalars up to the next delimiter. The input comes from
/// `JSONEncoder`, so it is valid JSON; the checks are for robustness, not validation.
struct JSONObjectScanner {
    struct Failure: Error { var problem: String }

    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func members() throws(Failure) -> [String: [UInt8]] {
        skipSpace()
        guard next() == UInt8(ascii: "{") else { throw Failure(problem: "the top level is not an object") }
        var result: [String: [UInt8]] = [:]
        skipSpace()
        if peek() == UInt8(ascii: "}") { return result }
        while true {
            skipSpace()
            let keyStart = offset
            try skipString()
            let key = try decodeKey(Array(bytes[keyStart..<offset]))
            skipSpace()
            guard next() == UInt8(ascii: ":") else { throw Failure(problem: "expected ':' at byte \(offset)") }
            skipSpace()
            let valueStart = offset
            try skipValue()
            result[key] = Array(bytes[valueStart..<offset])
            skipSpace()
            switch next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return result
            default: throw Failure(problem: "expected ',' or '}' at byte \(offset)")
            }
        }
    }

    private func peek() -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func next() -> UInt8? {
        defer { offset += 1 }
        return peek()
    }

    private mutating func skipSpace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }

    private mutating func skipString() throws(Failure) {
        guard next() == UInt8(ascii: "\"") else { throw Failure(problem: "expected a string at byte \(offset - 1)") }
        while let byte = next() {
            if byte == UInt8(ascii: "\\") {
                offset += 1
            } else if byte == UInt8(ascii: "\"") {
                return
            }
        }
        throw Failure(problem: "unterminated string")
    }

    private mutating func skipValue() throws(Failure) {
        switch peek() {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while let byte = peek() {
                switch byte {
                case UInt8(ascii: "\""):
                    try skipString()
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                default:
                    break
                }
                offset += 1
                if depth == 0 { return }
            }
            throw Failure(problem: "unterminated container")
        case nil:
            throw Failure(problem: "missing value")
        default:
            while let byte = peek(), byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"),
                byte != 0x20, byte != 0x0A, byte != 0x0D, byte != 0x09
            {
                offset += 1
            }
        }
    }

    private func decodeKey(_ quoted: [UInt8]) throws(Failure) -> String {
        if !quoted.contains(UInt8(ascii: "\\")) {
            return String(decoding: quoted.dropFirst().dropLast(), as: UTF8.self)
        }
        guard let key = try? JSONDecoder().decode(String.self, from: Data(quoted)) else {
            throw Failure(problem: "undecodable member name")
        }
        return key
    }
}

extension JSONObjectScanner {
    /// The string a JSON string literal holds, or `nil` for any other value.
    static func string(from json: [UInt8]) -> String? {
        guard json.first == UInt8(ascii: "\"") else { return nil }
        if !json.contains(UInt8(ascii: "\\")) { return String(decoding: json.dropFirst().dropLast(), as: UTF8.self) }
        return try? JSONDecoder().decode(String.self, from: Data(json))
    }
}
