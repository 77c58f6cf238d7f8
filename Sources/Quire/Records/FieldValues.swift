import QuireCore

/// A record's field values as decoding reads them: each field's JSON bytes by name.
///
/// A point read (``StoreReading/get(_:_:)``) reads them in place in the record's stored
/// bytes — one copy of the value LMDB holds and one array of spans, where a dictionary
/// cost a `String` and an array per field and a hash per lookup. Records read from
/// memory (the writer's, a version of a record) hand over their dictionary.
struct FieldValues {
    /// Where one field's name and value are in a stored record's bytes.
    private struct Span {
        let name: Range<Int>
        let value: Range<Int>
    }

    private enum Storage {
        case stored(bytes: [UInt8], spans: [Span])
        case dictionary([String: [UInt8]])
    }

    private let storage: Storage

    /// The values of a dictionary of field name → JSON bytes.
    init(_ dictionary: [String: [UInt8]]) {
        storage = .dictionary(dictionary)
    }

    /// The type name and field values of an encoded record (``RecordState/encoded()``),
    /// checked as ``RecordState/decode(_:)`` checks it, without the registers' times.
    ///
    /// - Throws: ``QuireCore/DecodingError`` for a record that is truncated, malformed or
    ///   has a name that is not UTF-8.
    /// - Returns: The type name's UTF-8, a slice of `bytes`, and the values.
    static func decode(storedRecord bytes: [UInt8]) throws(DecodingError) -> (type: ArraySlice<UInt8>, values: FieldValues) {
        var spans: [Span] = []
        spans.reserveCapacity(4)  // most records have a few fields: one allocation
        let type = try RecordState.forEachField(in: bytes) { field in
            spans.append(Span(
                name: field.nameUTF8.startIndex..<field.nameUTF8.endIndex,
                value: field.value.startIndex..<field.value.endIndex))
        }
        return (type, FieldValues(storage: .stored(bytes: bytes, spans: spans)))
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The JSON bytes of the field `name`, or `nil` when the record has no such field.
    subscript(name: String) -> ArraySlice<UInt8>? {
        switch storage {
        case .dictionary(let values):
            return values[name].map { $0[...] }
        case .stored(let bytes, let spans):
            var name = name
            let found = name.withUTF8 { wanted in
                bytes.withUnsafeBufferPointer { all in spans.first { equal(all, $0.name, wanted) } }
            }
            return found.map { bytes[$0.value] }
        }
    }

    /// The fields' names, in no particular order.
    var names: [String] {
        switch storage {
        case .dictionary(let values):
            return Array(values.keys)
        case .stored(let bytes, let spans):
            return spans.map { String(decoding: bytes[$0.name], as: UTF8.self) }
        }
    }

    /// The values as a dictionary of field name → JSON bytes.
    var dictionary: [String: [UInt8]] {
        switch storage {
        case .dictionary(let values):
            return values
        case .stored(let bytes, let spans):
            var values: [String: [UInt8]] = [:]
            for span in spans { values[String(decoding: bytes[span.name], as: UTF8.self)] = Array(bytes[span.value]) }
            return values
        }
    }
}

/// Whether `bytes` are `string`'s UTF-8: a record's stored type name against the type
/// asked for, compared in place (the generic `elementsEqual` over a `String.UTF8View`
/// costs a point read some 600 instructions).
func utf8(_ bytes: ArraySlice<UInt8>, equals string: String) -> Bool {
    var string = string
    return string.withUTF8 { wanted in
        bytes.withUnsafeBufferPointer { stored in equal(stored, 0..<stored.count, wanted) }
    }
}

/// Whether the bytes of `all` in `range` are `wanted`: the one comparison of stored names.
private func equal(_ all: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
    guard range.count == wanted.count else { return false }
    for index in 0..<wanted.count where all[range.lowerBound + index] != wanted[index] { return false }
    return true
}
