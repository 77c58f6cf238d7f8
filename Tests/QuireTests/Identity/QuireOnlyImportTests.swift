// Imports only `Quire`, as an app does: every type named here must be reachable from it.
// (No `import QuireCore` in this file, on purpose.)
import Foundation
import Quire
import QuireTestSupport
import Testing

@Suite("Types an app handles, from import Quire alone")
struct QuireOnlyImportTests {
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test("ReplicaID encodes as its sixteen hexadecimal digits and refuses anything else")
    func replicaID() throws {
        let id = ReplicaID(0xA1)
        #expect(try Self.json(id) == #""00000000000000a1""#)
        #expect(try Self.decode(ReplicaID.self, #""00000000000000a1""#) == id)
        #expect(try Self.decode(ReplicaID.self, #""FFFFFFFFFFFFFFFF""#) == ReplicaID(.max))
        let random = ReplicaID.random()
        #expect(try Self.decode(ReplicaID.self, Self.json(random)) == random)
        for bad in [#""a1""#, #""+0000000000000a1""#, #""00000000000000g1""#, #""000000000000000a1""#, "161"] {
            #expect(throws: DecodingError.self) { try Self.decode(ReplicaID.self, bad) }
        }
        #expect(ReplicaID(hexadecimal: "00000000000000a1") == id && ReplicaID(hexadecimal: "a1") == nil)
    }

    @Test("VersionVector encodes as {replicaHex: counter}, zeros left out; bad keys are refused by name")
    func versionVector() throws {
        let version = VersionVector([ReplicaID(0x7F3C_09D2_E4B1_A655): 3, ReplicaID(0xA1): 12, ReplicaID(5): 0])
        #expect(try Self.json(version) == #"{"00000000000000a1":12,"7f3c09d2e4b1a655":3}"#)
        #expect(try Self.decode(VersionVector.self, Self.json(version)) == version)
        #expect(try Self.json(VersionVector()) == "{}")
        #expect(try Self.decode(VersionVector.self, "{}") == VersionVector())
        // Without .sortedKeys the key order is the encoder's; the value is the same.
        #expect(try JSONDecoder().decode(VersionVector.self, from: JSONEncoder().encode(version)) == version)

        let badKey = #expect(throws: DecodingError.self) {
            try Self.decode(VersionVector.self, #"{"00000000000000a1":1,"laptop":2}"#)
        }
        #expect("\(String(describing: badKey))".contains("laptop"))
        #expect(throws: DecodingError.self) { try Self.decode(VersionVector.self, #"{"00000000000000a1":-1}"#) }
        #expect(throws: DecodingError.self) { try Self.decode(VersionVector.self, "[1,2]") }
    }

    @Test("RecordID, TextID, StoreID, OperationID's parts and TextUnit have documented JSON forms that round-trip")
    func otherIdentities() throws {
        let record = RecordID(replica: ReplicaID(0xA1), counter: 3)
        #expect(try Self.json(record) == "[161,3]")  // the form records store when they refer to records
        #expect(try Self.decode(RecordID.self, "[161,3]") == record)
        let text: TextID = record.text("content")
        #expect(try Self.json(text) == #"{"field":"content","record":[161,3]}"#)
        #expect(try Self.decode(TextID.self, Self.json(text)) == text)
        #expect(try Self.json([TextUnit.unicodeScalars, .utf16, .utf8]) == #"["unicodeScalars","utf16","utf8"]"#)
        #expect(try Self.decode([TextUnit].self, #"["utf8","utf16"]"#) == [.utf8, .utf16])
        #expect(throws: DecodingError.self) { try Self.decode(TextUnit.self, #""utf32""#) }
        let operation = OperationID(replica: ReplicaID(1), counter: 2)
        #expect(operation.advanced(by: 1).counter == 3)
    }

    @Test("two devices exchange what they have as JSON and send each other what the other lacks")
    func exchangeVersions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = Store.Options()
        options.durability = .noSync
        let laptop = try Store(directory: directory.appending("Laptop.quire"), options: options)
        let phone = try Store(directory: directory.appending("Phone.quire"), options: options)
        defer { try? laptop.close(); try? phone.close() }
        let note = try laptop.write { tx in
            let note = try tx.insert(QuireOnlyNote(title: "Diary"))
            try tx.insert("Dear diary", at: 0, in: note.text("body"))
            return note
        }
        try phone.importDelta(laptop.exportDelta()!)
        try laptop.write { tx in try tx.insert(", it rained", at: 10, unit: .utf16, in: note.text("body")) }

        // The phone says what it has; the laptop answers with what it lacks.
        let request = try Self.json(phone.version)
        let theirs = try Self.decode(VersionVector.self, request)
        #expect(theirs == phone.version && !theirs.includes(laptop.version))
        try phone.importDelta(laptop.exportDelta(since: theirs)!)
        #expect(phone.version == laptop.version)
        #expect(try phone.read { tx in try tx.string(of: note.text("body")) } == "Dear diary, it rained")
        let storeID: StoreID = phone.storeID
        #expect(try Self.json(storeID) == "\"\(storeID)\"" && "\(storeID)".count == 32)
        #expect(try Self.decode(StoreID.self, Self.json(storeID)) == laptop.storeID)
        #expect(throws: DecodingError.self) { try Self.decode(StoreID.self, #""abc""#) }
        let replica: ReplicaID = phone.replica
        #expect(try Self.decode(ReplicaID.self, Self.json(replica)) == replica)
    }
}

/// A record of this file (`import Quire` only).
private struct QuireOnlyNote: Record {
    static let typeName = "quire-only.note"
    var title: String
}
