@testable import Quire
import QuireCore
import Testing

/// A point read looks a record's fields up in place in its stored bytes
/// (``FieldValues/withStoredRecord(_:_:)``); it must find exactly what the record holds.
@Suite("Record fields read in place from a stored record")
struct FieldValuesTests {
    /// The bytes `records` keeps for a record of `type` with `fields`.
    static func storedRecord(type: String, _ fields: [String: [UInt8]]) -> [UInt8] {
        var record = RecordState(type: type, fields: [:])
        var counter: UInt64 = 0
        for (name, value) in fields {
            counter += 1
            record.fields[name] = FieldRegister(
                value: value, timestamp: Timestamp(lamport: 300 + counter, replica: ReplicaID(7)), counter: counter)
        }
        return record.encoded()
    }

    /// The type name and values of `bytes` read in place, answered by `body` (the values
    /// are valid only inside it).
    static func readStored<R>(_ bytes: [UInt8], _ body: (String, FieldValues) -> R) throws(DecodingError) -> R {
        try bytes.withUnsafeBufferPointer { buffer throws(DecodingError) in
            try FieldValues.withStoredRecord(buffer) { type, values in body(String(decoding: type, as: UTF8.self), values) }
        }
    }

    /// The bytes of the field `name`, copied out.
    static func value(_ name: String, in values: FieldValues) -> [UInt8]? {
        values.withValue(named: name) { $0.map(Array.init) }
    }

    static let fields: [String: [UInt8]] = [
        "name": Array("\"Ode\"".utf8),
        "names": Array("[1,2]".utf8),  // a name that another name is the start of
        "nam": Array("3".utf8),
        "naïve ✍️": Array("true".utf8),  // not ASCII
        "": Array("null".utf8),  // empty
        "empty value": [],
    ]

    @Test("every field is found by its name, with its bytes, and no other name is")
    func lookups() throws {
        try Self.readStored(Self.storedRecord(type: "test.note", Self.fields)) { type, values in
            #expect(type == "test.note")
            for (name, value) in Self.fields {
                #expect(Self.value(name, in: values) == value, "field \(name.debugDescription)")
                #expect(values.contains(name))
            }
            for absent in ["Name", "na", "namess", "naïve", " name", "empty"] {
                #expect(Self.value(absent, in: values) == nil, "no field \(absent.debugDescription)")
                #expect(!values.contains(absent))
            }
            #expect(Set(values.names) == Set(Self.fields.keys))
            #expect(values.dictionary == Self.fields)
        }
    }

    @Test("a record with no fields has none")
    func noFields() throws {
        try Self.readStored(Self.storedRecord(type: "t", [:])) { type, values in
            #expect(type == "t")
            #expect(Self.value("name", in: values) == nil)
            #expect(values.names.isEmpty)
        }
    }

    @Test("a record of many fields is read in place too, past what the stack holds")
    func manyFields() throws {
        let many = Dictionary(uniqueKeysWithValues: (0..<5_000).map { ("field \($0)", Array("\($0)".utf8)) })
        try Self.readStored(Self.storedRecord(type: "wide", many)) { type, values in
            #expect(type == "wide")
            #expect(values.dictionary == many)
            #expect(Self.value("field 4321", in: values) == Array("4321".utf8))
        }
    }

    @Test("a truncated or lengthened record is refused, as the full decode refuses it")
    func damaged() throws {
        let bytes = Self.storedRecord(type: "test.note", Self.fields)
        for cut in [1, bytes.count / 2, bytes.count - 1] {
            let truncated = Array(bytes.prefix(cut))
            #expect(throws: DecodingError.self) { try Self.readStored(truncated) { _, _ in () } }
            #expect(throws: DecodingError.self) { try RecordState.decode(truncated) }
        }
        #expect(throws: DecodingError.self) { try Self.readStored(bytes + [0]) { _, _ in () } }
        var badName = bytes
        badName[badName.firstIndex(of: UInt8(ascii: "t"))!] = 0xFF  // the type name, no longer UTF-8
        #expect(throws: DecodingError.self) { try Self.readStored(badName) { _, _ in () } }
        #expect(throws: DecodingError.self) { try RecordState.decode(badName) }
    }

    @Test("the full decode reads what was encoded")
    func fullDecode() throws {
        let bytes = Self.storedRecord(type: "test.note", Self.fields)
        let record = try RecordState.decode(bytes)
        #expect(record.type == "test.note")
        #expect(record.values == Self.fields)
        #expect(record.encoded() == bytes)
    }

    @Test("the dictionary form answers as the stored form does")
    func dictionaryForm() {
        FieldValues.withDictionary(Self.fields) { values in
            for (name, value) in Self.fields { #expect(Self.value(name, in: values) == value) }
            #expect(Self.value("na", in: values) == nil)
            #expect(Set(values.names) == Set(Self.fields.keys))
        }
    }
}
