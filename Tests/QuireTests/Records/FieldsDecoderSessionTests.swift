import Foundation
@testable import Quire
import QuireCore
import Testing

/// A thread's record decodes reuse one ``FieldsDecoder/Session``: its attempt and a keyed
/// container per `CodingKey` type. Nothing a type keeps past its `init(from:)` may read a
/// later record through them.
@Suite("Record fields: a thread's decodes reuse one session")
struct FieldsDecoderSessionTests {
    struct Plain: Record, Equatable {
        static let typeName = "test.plain"
        var name: String
        var count: Int
    }

    /// The record `value` stored and read in place, decoded as `type` by the fast path.
    static func decode<Value: Record>(_ type: Value.Type, _ value: some Record) throws -> Value? {
        let stored = FieldValuesTests.storedRecord(type: Value.typeName, try RecordFields.encode(value))
        return try FieldValuesTests.readStored(stored) { _, values in try? FieldsDecoder.decode(type, from: values) }
    }

    @Test("decodes of one type on one thread reuse the session and its one container")
    func reuse() throws {
        #expect(try Self.decode(Plain.self, Plain(name: "first", count: 1)) == Plain(name: "first", count: 1))
        // Tests before this one on this thread may have left containers of their own.
        let containers = FieldsDecoder.threadSession?.containerCount
        // Held weakly: a strong reference here would itself make the session shared.
        weak let session = FieldsDecoder.threadSession
        #expect(session != nil)
        for index in 0..<50 {
            #expect(try Self.decode(Plain.self, Plain(name: "record \(index)", count: index)) == Plain(name: "record \(index)", count: index))
        }
        #expect(FieldsDecoder.threadSession === session)
        #expect(FieldsDecoder.threadSession?.containerCount == containers)
    }

    /// Each `Tagged<Tag>` has its own `CodingKeys` type.
    struct Tagged<Tag>: Record, Equatable {
        static var typeName: String { "test.tagged" }
        var name: String
    }
    enum T0 {}; enum T1 {}; enum T2 {}; enum T3 {}; enum T4 {}; enum T5 {}; enum T6 {}; enum T7 {}; enum T8 {}; enum T9 {}
    enum T10 {}; enum T11 {}; enum T12 {}; enum T13 {}; enum T14 {}; enum T15 {}; enum T16 {}; enum T17 {}; enum T18 {}; enum T19 {}

    static func decodeTagged<Tag>(_ tag: Tag.Type, _ name: String) throws -> String? {
        try decode(Tagged<Tag>.self, Tagged<Tag>(name: name))?.name
    }

    @Test("more key types than a session keeps containers for: each decode reads its own record")
    func manyKeyTypes() throws {
        let tags: [Any.Type] = [T0.self, T1.self, T2.self, T3.self, T4.self, T5.self, T6.self, T7.self, T8.self, T9.self,
                                T10.self, T11.self, T12.self, T13.self, T14.self, T15.self, T16.self, T17.self, T18.self, T19.self]
        #expect(tags.count > FieldsDecoder.Session.capacity)
        for round in 0..<3 {
            for (index, tag) in tags.enumerated() {
                func open<Tag>(_ tag: Tag.Type) throws -> String? { try Self.decodeTagged(tag, "tag \(index) round \(round)") }
                #expect(try _openExistential(tag, do: open) == "tag \(index) round \(round)")
            }
        }
        #expect(FieldsDecoder.threadSession?.containerCount == FieldsDecoder.Session.capacity)
    }

    /// The one key of ``Hoarder`` and ``Peeker``, so that a container one kept is the
    /// container the other is lent when the session is (wrongly) kept.
    enum NameKey: String, CodingKey { case name }

    /// Keeps the container its `init(from:)` made; per thread, as the tests run at once.
    struct Hoarder: Record {
        static let typeName = "test.hoarder"
        nonisolated(unsafe) static var kept: [ObjectIdentifier: KeyedDecodingContainer<NameKey>] = [:]
        static let lock = NSLock()
        var name: String
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: NameKey.self)
            name = try container.decode(String.self, forKey: .name)
            Self.lock.withLock { Self.kept[Self.thread] = container }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: NameKey.self)
            try container.encode(name, forKey: .name)
        }
        static var thread: ObjectIdentifier { ObjectIdentifier(Thread.current) }
        static var keptOnThisThread: KeyedDecodingContainer<NameKey>? { lock.withLock { kept[thread] } }
    }

    /// Reads the field `name` through the container a `Hoarder` kept, while being decoded.
    struct Peeker: Record {
        static let typeName = "test.peeker"
        var name: String
        var peeked: String?
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: NameKey.self)
            name = try container.decode(String.self, forKey: .name)
            peeked = try? Hoarder.keptOnThisThread?.decode(String.self, forKey: .name)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: NameKey.self)
            try container.encode(name, forKey: .name)
        }
    }

    @Test("a container kept past its decode reads nothing of a later record on its thread",
          arguments: [false, true])
    func keptContainerDuringLaterDecode(fullSession: Bool) throws {
        #expect(try Self.decode(Plain.self, Plain(name: "warm", count: 0))?.name == "warm")
        if fullSession { try manyKeyTypes() }
        weak let before = FieldsDecoder.threadSession
        #expect(before != nil)
        #expect(try Self.decode(Hoarder.self, Hoarder(name: "hoarded"))?.name == "hoarded")
        // The session that lent the kept container is dropped; its attempt stays finished.
        #expect(FieldsDecoder.threadSession !== before)
        let peeker = try #require(try Self.decode(Peeker.self, Peeker(name: "secret")))
        #expect(peeker.name == "secret")
        #expect(peeker.peeked == nil)
        #expect(throws: (any Error).self) { try Hoarder.keptOnThisThread?.decode(String.self, forKey: .name) }
        // Decodes after it are correct, and reuse a session again.
        #expect(try Self.decode(Plain.self, Plain(name: "after", count: 2)) == Plain(name: "after", count: 2))
        weak let settled = FieldsDecoder.threadSession
        #expect(settled != nil)
        #expect(try Self.decode(Plain.self, Plain(name: "again", count: 3)) == Plain(name: "again", count: 3))
        #expect(FieldsDecoder.threadSession === settled)
    }

    /// Decodes a second record inside its own `init(from:)`.
    struct Nester: Record {
        static let typeName = "test.nester"
        var name: String
        var inner: Plain?
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            inner = try FieldsDecoderSessionTests.decode(Plain.self, Plain(name: "inner", count: 9))
            let container = try decoder.container(keyedBy: NameKey.self)
            name = try container.decode(String.self, forKey: .name)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: NameKey.self)
            try container.encode(name, forKey: .name)
        }
    }

    @Test("a record decoded inside another's init(from:) uses a session of its own")
    func nestedDecode() throws {
        #expect(try Self.decode(Plain.self, Plain(name: "warm", count: 0))?.name == "warm")
        let nester = try #require(try Self.decode(Nester.self, Nester(name: "outer")))
        #expect(nester.name == "outer")
        #expect(nester.inner == Plain(name: "inner", count: 9))
    }
}
