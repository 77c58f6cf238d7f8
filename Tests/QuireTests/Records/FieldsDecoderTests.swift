import Foundation
@testable import Quire
import QuireCore
import Testing

/// The fast path of a read decodes a record from its fields without `JSONDecoder`; it
/// must give what `JSONDecoder` gives, or give up.
@Suite("Record fields: the fast decoder agrees with JSONDecoder")
struct FieldsDecoderTests {
    struct Inner: Codable, Equatable { var x: Int }
    enum Mood: String, Codable { case calm, stormy }

    struct Everything: Record, Equatable {
        static let typeName = "test.everything"
        var name: String
        var escaped: String
        var unicode: String
        var count: Int
        var negative: Int64
        var big: UInt64
        var small: Int8
        var ratio: Double
        var tiny: Double
        var flag: Bool
        var mood: Mood
        var created: Date
        var blob: Data
        var link: URL
        var inner: Inner
        var list: [Int]
        var table: [String: String]
        var note: String?
        var missingNote: String?
        var seeAlso: RecordID?
    }

    static let sample = Everything(
        name: "Ode", escaped: "a \"quote\", a \\ and a\nnewline", unicode: "naïve ✍️ 𝄞", count: 42,
        negative: -9_000_000_000, big: .max, small: -128, ratio: 0.1, tiny: 1e-300, flag: true, mood: .stormy,
        created: Date(timeIntervalSince1970: 1_780_000_000.25), blob: Data([0, 1, 2, 255]),
        link: URL(string: "https://example.org/a?b=c")!, inner: Inner(x: 7), list: [1, 2, 3],
        table: ["k": "v"], note: "set", missingNote: nil, seeAlso: RecordID(replica: ReplicaID(3), counter: 9))

    /// What `JSONDecoder` makes of `fields`, and what the fast path makes of them.
    static func both<T: Record & Equatable>(_ type: T.Type, _ fields: [String: [UInt8]]) -> (json: Result<T, StoreError>, fast: T?) {
        let id = RecordID(replica: ReplicaID(1), counter: 1)
        return (RecordFields.decodeNotingKeys(T.self, from: fields, id: id).value, fast(T.self, fields))
    }

    /// What the fast path makes of `fields`, checked to be the same whether it reads them
    /// from a dictionary (a record in memory) or in place in a stored record's bytes (a
    /// point read, ``FieldValues/withStoredRecord(_:_:)``).
    static func fast<T: Record & Equatable>(_ type: T.Type, _ fields: [String: [UInt8]]) -> T? {
        let fromDictionary = FieldValues.withDictionary(fields) { values in try? FieldsDecoder.decode(T.self, from: values) }
        let stored = FieldValuesTests.storedRecord(type: T.typeName, fields)
        let inPlace = (try? FieldValuesTests.readStored(stored) { _, values in try? FieldsDecoder.decode(T.self, from: values) }) ?? nil
        #expect(inPlace == fromDictionary, "a stored record decodes as the same fields in a dictionary do")
        return fromDictionary
    }

    @Test("every kind of field decodes to what JSONDecoder gives")
    func agreesOnEveryKind() throws {
        let fields = try RecordFields.encode(Self.sample)
        let (json, fast) = Self.both(Everything.self, fields)
        #expect(try json.get() == Self.sample)
        #expect(fast == Self.sample, "the fast path decodes every kind, handing some values to JSONDecoder")
        let id = RecordID(replica: ReplicaID(1), counter: 1)
        #expect(try RecordFields.decode(Everything.self, from: fields, id: id) == Self.sample)
    }

    @Test("the fast path decodes a plain record itself, with fields of a newer version beside")
    func fastPathTaken() throws {
        var fields = try RecordFields.encode(Self.sample)
        for name in ["escaped", "created", "blob", "link", "inner", "list", "table", "ratio", "tiny"] { fields[name] = nil }
        struct Plain: Record, Equatable {
            static let typeName = "test.plain"
            var name: String, unicode: String, count: Int, negative: Int64, big: UInt64, small: Int8, flag: Bool
            var mood: FieldsDecoderTests.Mood, note: String?, missingNote: String?
        }
        fields["added by a newer version"] = Array("[1,{\"a\":null}]".utf8)
        let fast = try #require(Self.fast(Plain.self, fields))
        #expect(fast == Plain(name: "Ode", unicode: "naïve ✍️ 𝄞", count: 42, negative: -9_000_000_000, big: .max, small: -128,
                              flag: true, mood: .stormy, note: "set", missingNote: nil))
        #expect(try Self.both(Plain.self, fields).json.get() == fast)
    }

    @Test("values the fast path must not accept give up, and the error is JSONDecoder's", arguments: [
        ("count", "1.5"), ("count", "99999999999999999999"), ("count", "\"42\""), ("count", "null"),
        ("count", "01"), ("count", "-01"), ("count", "1e2"), ("ratio", "01.5"), ("ratio", "1."), ("ratio", ".5"),
        ("ratio", "1e"), ("ratio", "-"), ("ratio", "+1"),
        ("small", "128"), ("big", "-1"), ("flag", "1"), ("name", "42"), ("name", "\"bad \\u0000 escape"),
        ("mood", "\"sunny\""), ("ratio", "\"0.1\""), ("name", "\"unterminated"),
    ])
    func refusals(field: String, json: String) throws {
        var fields = try RecordFields.encode(Self.sample)
        fields[field] = Array(json.utf8)
        let (viaJSON, fast) = Self.both(Everything.self, fields)
        switch viaJSON {
        case .success(let value): #expect(fast == nil || fast == value)
        case .failure: #expect(fast == nil, "the fast path accepted \(json) for \(field)")
        }
        let id = RecordID(replica: ReplicaID(1), counter: 1)
        let viaDecode = Result { () throws(StoreError) in try RecordFields.decode(Everything.self, from: fields, id: id) }
        #expect("\(viaDecode)" == "\(viaJSON)")
    }

    @Test("a string of invalid UTF-8 gives up, and the decode throws JSONDecoder's error; ASCII and other UTF-8 decode")
    func invalidUTF8String() throws {
        let id = RecordID(replica: ReplicaID(1), counter: 1)
        for name in ["Ode", "naïve ✍️ 𝄞", ""] {
            let fields = try RecordFields.encode(Named(name: name))
            #expect(Self.fast(Named.self, fields) == Named(name: name))
        }
        let invalid: [String: [UInt8]] = ["name": [0x22, 0x41, 0xC3, 0x28, 0x22]]
        #expect(Self.fast(Named.self, invalid) == nil)
        #expect(throws: StoreError.self) { try RecordFields.decode(Named.self, from: invalid, id: id) }
    }

    /// A type whose `init(from:)` swallows errors with a default.
    /// A record of one string field, `name`.
    struct Named: Record, Equatable {
        static let typeName = "test.named"
        var name: String
    }

    struct Lenient: Record, Equatable {
        static let typeName = "test.lenient"
        var ratio: Float
        var name: String
        var mood: Mood
        init(ratio: Float, name: String, mood: Mood) { (self.ratio, self.name, self.mood) = (ratio, name, mood) }
        enum CodingKeys: String, CodingKey { case ratio, name, mood }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            ratio = (try? container.decode(Float.self, forKey: .ratio)) ?? -1
            name = try container.decode(String.self, forKey: .name)
            mood = (try? container.decode(Mood.self, forKey: .mood)) ?? .calm
        }
    }

    /// The fast path scans a string's characters eight bytes at a time: an escape, a
    /// control character or a non-ASCII byte is found at every place in and after a word.
    @Test("a character that needs JSONDecoder or UTF-8 validation is found at every place of a string")
    func specialCharacterAtEveryPlace() throws {
        let id = RecordID(replica: ReplicaID(1), counter: 1)
        let specials = ["\\", "\n", "\u{01}", "\u{1F}", "\"", "é", "\u{7F}", " ", "[", "]", "\\\\", "✍️"]
        for length in 0...20 {
            for place in 0...length {
                for special in specials {
                    let name = String(repeating: "a", count: place) + special + String(repeating: "b", count: length - place)
                    let fields = try RecordFields.encode(Named(name: name))
                    #expect(Self.fast(Named.self, fields) == Named(name: name), "\(name.debugDescription)")
                }
                // A raw control character (which JSONEncoder escapes) is not JSON: both readers refuse it.
                let raw: [String: [UInt8]] = ["name": [0x22] + Array(repeating: 0x61, count: place) + [0x01]
                    + Array(repeating: 0x62, count: length - place) + [0x22]]
                #expect(Self.fast(Named.self, raw) == nil)
                #expect(throws: StoreError.self) { try RecordFields.decode(Named.self, from: raw, id: id) }
            }
        }
    }

    @Test("a type that swallows errors gets what JSONDecoder gives, not a default for a give-up")
    func lenientType() throws {
        let id = RecordID(replica: ReplicaID(1), counter: 1)
        let fields = try RecordFields.encode(Lenient(ratio: 0.5, name: "x", mood: .stormy))
        #expect(try RecordFields.decode(Lenient.self, from: fields, id: id) == Lenient(ratio: 0.5, name: "x", mood: .stormy))
        #expect(Self.fast(Lenient.self, fields) == nil, "Float gives up, and the decode says so")
    }

    @Test("a missing field is JSONDecoder's keyNotFound")
    func missingField() throws {
        var fields = try RecordFields.encode(Self.sample)
        fields["count"] = nil
        let id = RecordID(replica: ReplicaID(1), counter: 1)
        let error = #expect(throws: StoreError.self) { try RecordFields.decode(Everything.self, from: fields, id: id) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("count"))
    }

    /// A type whose `init(from:)` keeps its decoder, and the container it made, for later.
    struct Keeper: Record {
        static let typeName = "test.keeper"
        nonisolated(unsafe) static var keptDecoder: (any Decoder)?
        nonisolated(unsafe) static var keptContainer: KeyedDecodingContainer<CodingKeys>?
        var name: String
        enum CodingKeys: String, CodingKey { case name }
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            Self.keptDecoder = decoder
            let container = try decoder.container(keyedBy: CodingKeys.self)
            Self.keptContainer = container
            name = try container.decode(String.self, forKey: .name)
        }
    }

    @Test("a decoder kept past the read that lent it reads nothing: the record's bytes are gone")
    func keptDecoder() throws {
        let stored = FieldValuesTests.storedRecord(type: Keeper.typeName, try RecordFields.encode(Keeper(name: "in place")))
        let decoded = try FieldValuesTests.readStored(stored) { _, values in try? FieldsDecoder.decode(Keeper.self, from: values) }
        #expect(decoded?.name == "in place")
        let container = try #require(Keeper.keptContainer)
        #expect(throws: (any Error).self) { try container.decode(String.self, forKey: .name) }
        #expect(!container.contains(.name))
        #expect(container.allKeys.isEmpty)
        let again = try #require(Keeper.keptDecoder).container(keyedBy: Keeper.CodingKeys.self)
        #expect(throws: (any Error).self) { try again.decode(String.self, forKey: .name) }
    }
}
