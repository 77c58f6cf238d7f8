#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import QuireCore

/// A record's field values as decoding reads them: each field's JSON bytes by name.
///
/// A point read (``StoreReading/get(_:_:)``) reads them in place: the record's bytes are
/// LMDB's, inside the read transaction, and its fields' places are on the stack
/// (``RecordState/withEncodedFields(in:_:)``), so finding a field copies and allocates
/// nothing. Such values are lent to a closure and valid only while it runs
/// (``withStoredRecord(_:_:)``). Records read from memory (the writer's, a version of a
/// record) lend their dictionary the same way (``withDictionary(_:_:)``).
///
/// Only pointers, so a copy is a copy of bytes: a decode copies the values a few times,
/// and a reference inside would make each copy a retain and a release.
@usableFromInline
struct FieldValues: BitwiseCopyable {
    private enum Storage: BitwiseCopyable {
        case stored(bytes: UnsafeBufferPointer<UInt8>, fields: UnsafeBufferPointer<RecordState.EncodedFieldPlace>)
        case dictionary(UnsafePointer<[String: [UInt8]]>)
    }

    private let storage: Storage

    /// Lends `body` the values of a dictionary of field name → JSON bytes; they are valid
    /// only during the call.
    static func withDictionary<R, E: Error>(_ dictionary: [String: [UInt8]], _ body: (FieldValues) throws(E) -> R) throws(E) -> R {
        try withUnsafePointer(to: dictionary) { pointer throws(E) in try body(FieldValues(storage: .dictionary(pointer))) }
    }

    /// No fields: what a decoder holds once the values it was lent are gone.
    static var none: FieldValues {
        FieldValues(storage: .stored(bytes: UnsafeBufferPointer(start: nil, count: 0), fields: UnsafeBufferPointer(start: nil, count: 0)))
    }

    /// Lends `body` the type name's UTF-8 and the field values of an encoded record
    /// (``RecordState/encoded()``), read in place and checked as
    /// ``RecordState/decode(_:)`` checks it. Both are valid only during the call.
    ///
    /// - Throws: ``QuireCore/DecodingError`` for a record that is truncated, malformed or
    ///   has a name that is not UTF-8; `body` is not called then.
    static func withStoredRecord<R>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (_ type: UnsafeBufferPointer<UInt8>, FieldValues) -> R
    ) throws(DecodingError) -> R {
        try RecordState.withEncodedFields(in: bytes) { type, fields in
            body(UnsafeBufferPointer(rebasing: bytes[type]), FieldValues(storage: .stored(bytes: bytes, fields: fields)))
        }
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// Lends `body` the JSON bytes of the field `name`, or `nil` when the record has no
    /// such field; the bytes are valid only during the call.
    @inline(__always)
    func withValue<R>(named name: String, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        switch storage {
        case .dictionary(let values):
            guard let value = values.pointee[name] else { return try body(nil) }
            return try value.withUnsafeBufferPointer { try body($0) }
        case .stored(let bytes, let fields):
            return try body(withUTF8(of: name) { storedValue(named: $0, bytes: bytes, fields: fields) })
        }
    }

    /// The value of the stored field whose name is `name`'s UTF-8, in place.
    private func storedValue(
        named name: UnsafeBufferPointer<UInt8>, bytes: UnsafeBufferPointer<UInt8>,
        fields: UnsafeBufferPointer<RecordState.EncodedFieldPlace>
    ) -> UnsafeBufferPointer<UInt8>? {
        guard let base = bytes.baseAddress else { return nil }
        for field in fields where equal(UnsafeBufferPointer(start: base + field.name.lowerBound, count: field.name.count), name) {
            return UnsafeBufferPointer(start: base + field.value.lowerBound, count: field.value.count)
        }
        return nil
    }

    /// Whether the record has the field `name`.
    func contains(_ name: String) -> Bool {
        withValue(named: name) { $0 != nil }
    }

    /// The fields' names, in no particular order.
    var names: [String] {
        switch storage {
        case .dictionary(let values):
            return Array(values.pointee.keys)
        case .stored(let bytes, let fields):
            return fields.map { String(decoding: bytes[$0.name], as: UTF8.self) }
        }
    }

    /// The values as a dictionary of field name → JSON bytes (copies).
    var dictionary: [String: [UInt8]] {
        switch storage {
        case .dictionary(let values):
            return values.pointee
        case .stored(let bytes, let fields):
            var values: [String: [UInt8]] = [:]
            for field in fields { values[String(decoding: bytes[field.name], as: UTF8.self)] = Array(bytes[field.value]) }
            return values
        }
    }
}

/// Whether `bytes` are `string`'s UTF-8: a record's stored type name against the type
/// asked for, compared in place (the generic `elementsEqual` over a `String.UTF8View`
/// costs a point read some 600 instructions).
func utf8(_ bytes: UnsafeBufferPointer<UInt8>, equals string: String) -> Bool {
    withUTF8(of: string) { equal(bytes, $0) }
}

/// `body`'s answer for `string`'s UTF-8 in place: without the copy (and the uniqueness
/// check) of `String.withUTF8`, which needs a `var`.
@inline(__always)
private func withUTF8<R>(of string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let answer = string.utf8.withContiguousStorageIfAvailable(body) { return answer }
    var string = string
    return string.withUTF8(body)
}

/// Whether `a` and `b` hold the same bytes: the one comparison of stored names.
private func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    guard let first = a.baseAddress, let second = b.baseAddress else { return true }  // both empty
    return memcmp(first, second, a.count) == 0
}
