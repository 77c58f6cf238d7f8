@testable import Quire
import QuireCore
import Testing

/// A point read looks a record's fields up in place in its stored bytes
/// (``FieldValues/decode(storedRecord:)``); it must find exactly what the record holds.
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
        let (type, values) = try FieldValues.decode(storedRecord: Self.storedRecord(type: "test.note", Self.fields))
        #expect(String(decoding: type, as: UTF8.self) == "test.note")
        for (name, value) in Self.fields {
            #expect(values[name].map(Array.init) == value, "field \(name.debugDescription)")
        }
        for absent in ["Name", "na", "namess", "naïve", " name", "empty"] {
            #expect(values[absent] == nil, "no field \(absent.debugDescription)")
        }
        #expect(Set(values.names) == Set(Self.fields.keys))
        #expect(values.dictionary == Self.fields)
    }

    @Test("a record with no fields has none")
    func noFields() throws {
        let (type, values) = try FieldValues.decode(storedRecord: Self.storedRecord(type: "t", [:]))
        #expect(String(decoding: type, as: UTF8.self) == "t")
        #expect(values["name"] == nil)
        #expect(values.names.isEmpty)
    }

    @Test("a truncated or lengthened record is refused, as the full decode refuses it")
    func damaged() throws {
        let bytes = Self.storedRecord(type: "test.note", Self.fields)
        for cut in [1, bytes.count / 2, bytes.count - 1] {
            let truncated = Array(bytes.prefix(cut))
            #expect(throws: DecodingError.self) { try FieldValues.decode(storedRecord: truncated) }
            #expect(throws: DecodingError.self) { try RecordState.decode(truncated) }
        }
        #expect(throws: DecodingError.self) { try FieldValues.decode(storedRecord: bytes + [0]) }
    }

    @Test("the dictionary form answers as the stored form does")
    func dictionaryForm() {
        let values = FieldValues(Self.fields)
        for (name, value) in Self.fields { #expect(values[name].map(Array.init) == value) }
        #expect(values["na"] == nil)
        #expect(Set(values.names) == Set(Self.fields.keys))
    }
}
