import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

/// The rules of "Schema evolution" in docs/store.md, one test each. Every test has an
/// app's version 1 and version 2 of a record type on two devices (two stores in their own
/// temporary directories) that exchange delta files.
@Suite("Schema evolution (docs/store.md)")
struct SchemaEvolutionTests {
    /// A store per app version: `old` runs version 1, `new` version 2.
    struct Devices {
        let replicas: Replicas
        var old: Store { replicas[0] }
        var new: Store { replicas[1] }

        init() throws { replicas = try Replicas(2) }

        /// The old device's changes to the new one, then the new one's to the old one.
        func sync() throws {
            try AppVersions.deliver(old, to: new)
            try AppVersions.deliver(new, to: old)
        }

        func close() { replicas.close() }
    }

    // MARK: New optional fields

    struct NoteV1: Record, Equatable {
        static let typeName = "evolution.note"
        var title: String
    }

    struct NoteV2: Record, Equatable {
        static let typeName = "evolution.note"
        var title: String
        var pinnedAt: Date?   // new in version 2
    }

    @Test("a new optional field reads as nil in old records, and version 1's writes keep it")
    func newOptionalField() throws {
        let devices = try Devices()
        defer { devices.close() }
        let id = try devices.old.write { tx in try tx.insert(NoteV1(title: "Milk")) }
        try devices.sync()
        #expect(try devices.new.read { tx in try tx.record(NoteV2.self, id) } == NoteV2(title: "Milk", pinnedAt: nil))

        try devices.new.write { tx in try tx.update(id, as: NoteV2.self) { $0.pinnedAt = AppVersions.monday } }
        try devices.sync()
        try devices.old.write { tx in try tx.update(id, as: NoteV1.self) { $0.title = "Oat milk" } }
        try devices.sync()
        #expect(try devices.new.read { tx in try tx.record(NoteV2.self, id) } == NoteV2(title: "Oat milk", pinnedAt: AppVersions.monday))
    }

    // MARK: New fields with a default

    struct TaskV1: Record, Equatable {
        static let typeName = "evolution.task"
        var title: String
    }

    /// A default value alone: the synthesized decoder still requires the key.
    struct TaskV2Synthesized: Record, Equatable {
        static let typeName = "evolution.task"
        var title: String
        var priority: Int = 0
    }

    /// The pattern of the guide: `init(from:)` in an extension (the memberwise
    /// initializer stays), `decodeIfPresent ?? default` for the new field.
    struct TaskV2: Record, Equatable {
        static let typeName = "evolution.task"
        var title: String
        var priority: Int = 0
    }

    @Test("a new field with a default needs init(from:) with decodeIfPresent: the synthesized decoder refuses old records")
    func newFieldWithDefault() throws {
        let devices = try Devices()
        defer { devices.close() }
        let id = try devices.old.write { tx in try tx.insert(TaskV1(title: "Call")) }
        try devices.sync()

        try devices.new.read { tx throws in
            let error = try #require(throws: StoreError.self) { try tx.record(TaskV2Synthesized.self, id) }
            #expect(error.description.contains("keyNotFound") && error.description.contains("priority"))
            #expect(tx.allDecodable(TaskV2Synthesized.self).undecodable.map(\.id) == [id])
            #expect(try tx.record(TaskV2.self, id) == TaskV2(title: "Call", priority: 0))
        }
        try devices.new.write { tx in try tx.update(id, as: TaskV2.self) { $0.priority = 3 } }
        try devices.sync()
        try devices.old.write { tx in try tx.update(id, as: TaskV1.self) { $0.title = "Call Ada" } }
        try devices.sync()
        for store in [devices.old, devices.new] {
            #expect(try store.read { tx in try tx.record(TaskV2.self, id) } == TaskV2(title: "Call Ada", priority: 3))
            #expect(try store.read { tx in try tx.record(TaskV2Synthesized.self, id) } == TaskV2Synthesized(title: "Call Ada", priority: 3))
        }
    }

    // MARK: Renamed fields

    struct LabelV1: Record, Equatable {
        static let typeName = "evolution.label"
        var name: String
    }

    /// The Swift property is renamed; the stored field keeps its name.
    struct LabelV2: Record, Equatable {
        static let typeName = "evolution.label"
        var title: String
        enum CodingKeys: String, CodingKey { case title = "name" }
    }

    /// Renamed without `CodingKeys`: a new field, which old records do not have.
    struct LabelV2Renamed: Record, Equatable {
        static let typeName = "evolution.label"
        var title: String
    }

    @Test("a renamed property keeps its stored field name through CodingKeys; renamed outright it is a new field")
    func renamedField() throws {
        let devices = try Devices()
        defer { devices.close() }
        let id = try devices.old.write { tx in try tx.insert(LabelV1(name: "Home")) }
        try devices.sync()
        #expect(try devices.new.read { tx in try tx.record(LabelV2.self, id) } == LabelV2(title: "Home"))
        #expect(throws: StoreError.self) { try devices.new.read { tx in try tx.record(LabelV2Renamed.self, id) } }

        try devices.new.write { tx in try tx.update(id, as: LabelV2.self) { $0.title = "House" } }
        try devices.sync()
        #expect(try devices.old.read { tx in try tx.record(LabelV1.self, id) } == LabelV1(name: "House"))
        try devices.old.write { tx in try tx.update(id, as: LabelV1.self) { $0.name = "Flat" } }
        try devices.sync()
        #expect(try devices.new.read { tx in try tx.record(LabelV2.self, id) } == LabelV2(title: "Flat"))
    }

    // MARK: New enum cases

    struct EntryV1: Record, Equatable {
        static let typeName = "evolution.entry"
        enum Mood: String, Codable, Sendable { case happy, sad }
        var title: String
        var mood: Mood
    }

    /// Version 1 written to keep cases it does not know: `unknown` holds the raw value
    /// and encodes it back unchanged.
    struct EntryV1Tolerant: Record, Equatable {
        static let typeName = "evolution.entry"
        enum Mood: RawRepresentable, Codable, Hashable, Sendable {
            case happy, sad
            case unknown(String)

            init(rawValue: String) {
                switch rawValue {
                case "happy": self = .happy
                case "sad": self = .sad
                default: self = .unknown(rawValue)
                }
            }

            var rawValue: String {
                switch self {
                case .happy: "happy"
                case .sad: "sad"
                case .unknown(let raw): raw
                }
            }
        }
        var title: String
        var mood: Mood
    }

    struct EntryV2: Record, Equatable {
        static let typeName = "evolution.entry"
        enum Mood: String, Codable, Sendable { case happy, sad, anxious }
        var title: String
        var mood: Mood
    }

    @Test("a new enum case: a plain enum makes the record undecodable for version 1; an enum with an unknown case reads and keeps it")
    func newEnumCase() throws {
        let devices = try Devices()
        defer { devices.close() }
        let (calm, worried) = try devices.new.write { tx throws in
            (try tx.insert(EntryV2(title: "Calm", mood: .happy)), try tx.insert(EntryV2(title: "Worried", mood: .anxious)))
        }
        try devices.sync()

        try devices.old.read { tx throws in
            #expect(throws: StoreError.self) { try tx.all(EntryV1.self) }
            let plain = tx.allDecodable(EntryV1.self)
            #expect(plain.records.map(\.id) == [calm] && plain.undecodable.map(\.id) == [worried])
            #expect(try tx.all(EntryV1Tolerant.self).map(\.mood) == [.happy, .unknown("anxious")])
        }
        try devices.old.write { tx in try tx.update(worried, as: EntryV1Tolerant.self) { $0.title = "Worried, then calm" } }
        try devices.sync()
        #expect(try devices.new.read { tx in try tx.record(EntryV2.self, worried) } == EntryV2(title: "Worried, then calm", mood: .anxious))
    }

    // MARK: Removed fields

    struct ContactV1: Record, Equatable {
        static let typeName = "evolution.contact"
        var name: String
        var fax: String?
    }

    /// `fax` removed.
    struct ContactV2: Record, Equatable {
        static let typeName = "evolution.contact"
        var name: String
    }

    @Test("a removed field stays stored: version 2's writes leave it, version 1 still reads and writes it")
    func removedField() throws {
        let devices = try Devices()
        defer { devices.close() }
        let (ada, bob) = try devices.old.write { tx throws in
            (try tx.insert(ContactV1(name: "Ada", fax: "+44 20 1234")), try tx.insert(ContactV1(name: "Bob", fax: "+1 555")))
        }
        try devices.sync()
        try devices.new.write { tx throws in
            try tx.update(ada, as: ContactV2.self) { $0.name = "Ada L." }
            try tx.replace(bob, with: ContactV2(name: "Bob M."))
        }
        try devices.sync()
        #expect(try devices.old.read { tx in try tx.all(ContactV1.self).map(\.value) }
            == [ContactV1(name: "Ada L.", fax: "+44 20 1234"), ContactV1(name: "Bob M.", fax: "+1 555")])
        try devices.old.write { tx in try tx.update(ada, as: ContactV1.self) { $0.fax = nil } }
        try devices.sync()
        #expect(try devices.old.read { tx in try tx.record(ContactV1.self, ada) } == ContactV1(name: "Ada L.", fax: nil))
        #expect(try devices.new.read { tx in try tx.record(ContactV2.self, ada) } == ContactV2(name: "Ada L."))
    }

    /// A later version reuses the removed field's name with another type.
    struct ContactV3: Record, Equatable {
        static let typeName = "evolution.contact"
        var name: String
        var fax: Bool?
    }

    @Test("reusing a removed field's name with another type makes records that still hold the old value undecodable")
    func reusedFieldName() throws {
        let devices = try Devices()
        defer { devices.close() }
        let (ada, bob) = try devices.old.write { tx throws in
            (try tx.insert(ContactV1(name: "Ada", fax: "+44 20 1234")), try tx.insert(ContactV1(name: "Bob")))
        }
        try devices.sync()
        let contacts = try devices.new.read { tx in tx.allDecodable(ContactV3.self) }
        #expect(contacts.records.map(\.id) == [bob] && contacts.records.first?.value == ContactV3(name: "Bob", fax: nil))
        #expect(contacts.undecodable.map(\.id) == [ada])
    }

    // MARK: Optional and required

    struct BookV1: Record, Equatable {
        static let typeName = "evolution.book"
        var title: String
        var isbn: String?
    }

    /// `title` made optional (safe), `isbn` made required (not).
    struct BookV2: Record, Equatable {
        static let typeName = "evolution.book"
        var title: String?
        var isbn: String
    }

    @Test("a required field made optional reads every old record; an optional made required refuses those without it")
    func optionalAndRequired() throws {
        let devices = try Devices()
        defer { devices.close() }
        let (dune, notes) = try devices.old.write { tx throws in
            (try tx.insert(BookV1(title: "Dune", isbn: "978-0441013593")), try tx.insert(BookV1(title: "Notes", isbn: nil)))
        }
        try devices.sync()
        let books = try devices.new.read { tx in tx.allDecodable(BookV2.self) }
        #expect(books.records.map(\.id) == [dune] && books.undecodable.map(\.id) == [notes])
        #expect(books.records.first?.value == BookV2(title: "Dune", isbn: "978-0441013593"))
    }

    // MARK: Type names

    /// Version 2 "renamed" the type name.
    struct LabelRenamedType: Record, Equatable {
        static let typeName = "evolution.label.v2"
        var name: String
    }

    @Test("changing a type name orphans its records: queries of the new name do not see them")
    func typeNameChange() throws {
        let devices = try Devices()
        defer { devices.close() }
        let id = try devices.old.write { tx in try tx.insert(LabelV1(name: "Home")) }
        try devices.sync()
        try devices.new.read { tx throws in
            #expect(try tx.all(LabelRenamedType.self).isEmpty)
            #expect(throws: StoreError.wrongType(id, expected: LabelRenamedType.typeName, actual: LabelV1.typeName)) {
                try tx.record(LabelRenamedType.self, id)
            }
        }
    }
}

extension SchemaEvolutionTests.TaskV2 {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority) ?? 0
    }
}
