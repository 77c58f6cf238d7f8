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

    /// A test record whose one stored field is `name`, written under ``NameKey``.
    protocol NamedByNameKey: Record {
        var name: String { get }
    }

    /// Keeps the container its `init(from:)` made; per thread, as the tests run at once.
    struct Hoarder: NamedByNameKey {
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
        static var thread: ObjectIdentifier { ObjectIdentifier(Thread.current) }
        static var keptOnThisThread: KeyedDecodingContainer<NameKey>? { lock.withLock { kept[thread] } }
    }

    /// Reads the field `name` through the container a `Hoarder` kept, while being decoded.
    struct Peeker: NamedByNameKey {
        static let typeName = "test.peeker"
        var name: String
        var peeked: String?
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: NameKey.self)
            name = try container.decode(String.self, forKey: .name)
            peeked = try? Hoarder.keptOnThisThread?.decode(String.self, forKey: .name)
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

    /// Kept per thread, as the tests run at once: what the types below keep.
    final class Kept: @unchecked Sendable {
        private let lock = NSLock()
        private var decoders: [ObjectIdentifier: any Decoder] = [:]
        private var containers: [ObjectIdentifier: KeyedDecodingContainer<NameKey>] = [:]
        private var thread: ObjectIdentifier { ObjectIdentifier(Thread.current) }
        var decoder: (any Decoder)? {
            get { lock.withLock { decoders[thread] } }
            set { lock.withLock { decoders[thread] = newValue } }
        }
        var container: KeyedDecodingContainer<NameKey>? {
            get { lock.withLock { containers[thread] } }
            set { lock.withLock { containers[thread] = newValue } }
        }
    }
    static let kept = Kept()

    /// Keeps only its decoder; the container it reads with is its own business.
    struct DecoderKeeper: NamedByNameKey {
        static let typeName = "test.decoder-keeper"
        var name: String
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: NameKey.self).decode(String.self, forKey: .name)
            FieldsDecoderSessionTests.kept.decoder = decoder
        }
    }

    /// Keeps its container, then throws.
    struct ThrowingKeeper: NamedByNameKey {
        static let typeName = "test.throwing-keeper"
        struct Refused: Error {}
        var name: String
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            FieldsDecoderSessionTests.kept.container = try decoder.container(keyedBy: NameKey.self)
            throw Refused()
        }
    }

    /// A key type per `Tag`, each reading the field `name`.
    struct TagKey<Tag>: CodingKey {
        var stringValue: String
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
        static var name: TagKey { TagKey(stringValue: "name")! }
    }

    /// Holds containers of more key types at once than a session keeps, and keeps one.
    struct ManyKeys: NamedByNameKey {
        static let typeName = "test.many-keys"
        var name: String
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            func open<Tag>(_ tag: Tag.Type) throws -> Any {
                try decoder.container(keyedBy: TagKey<Tag>.self)
            }
            let tags: [Any.Type] = [T0.self, T1.self, T2.self, T3.self, T4.self, T5.self, T6.self, T7.self, T8.self,
                                    T9.self, T10.self, T11.self, T12.self, T13.self, T14.self, T15.self, T16.self]
            var held: [Any] = []
            for tag in tags { held.append(try _openExistential(tag, do: open)) }
            let container = try decoder.container(keyedBy: NameKey.self)
            name = try container.decode(String.self, forKey: .name)
            FieldsDecoderSessionTests.kept.container = container
            withExtendedLifetime(held) {}
        }
    }

    /// Reads the field `name` through what a type before it kept, while being decoded.
    struct KeptPeeker: NamedByNameKey {
        static let typeName = "test.kept-peeker"
        var name: String
        var throughDecoder: String?
        var throughContainer: String?
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: NameKey.self).decode(String.self, forKey: .name)
            throughDecoder = try? FieldsDecoderSessionTests.kept.decoder?.container(keyedBy: NameKey.self).decode(String.self, forKey: .name)
            throughContainer = try? FieldsDecoderSessionTests.kept.container?.decode(String.self, forKey: .name)
        }
    }

    /// A later record on this thread, read through what was kept: nothing may come back.
    static func expectKeptReadsNothing() throws {
        let peeker = try #require(try decode(KeptPeeker.self, KeptPeeker(name: "later")))
        #expect(peeker.name == "later")
        #expect(peeker.throughDecoder == nil)
        #expect(peeker.throughContainer == nil)
        #expect(try decode(Plain.self, Plain(name: "after", count: 4)) == Plain(name: "after", count: 4))
        kept.decoder = nil
        kept.container = nil
    }

    @Test("a decoder kept past its decode (its container not kept) reads nothing of a later record")
    func keptDecoderOnly() throws {
        #expect(try Self.decode(NameKeyPlain.self, NameKeyPlain(name: "warm"))?.name == "warm")
        #expect(try Self.decode(DecoderKeeper.self, DecoderKeeper(name: "kept"))?.name == "kept")
        try Self.expectKeptReadsNothing()
    }

    @Test("a container kept by a type whose init(from:) then throws reads nothing of a later record")
    func keptByAThrowingType() throws {
        #expect(try Self.decode(ThrowingKeeper.self, ThrowingKeeper(name: "refused")) == nil)
        try Self.expectKeptReadsNothing()
    }

    @Test("a container lent while every kept place is held reads nothing of a later record")
    func keptBeyondCapacity() throws {
        #expect(try Self.decode(ManyKeys.self, ManyKeys(name: "many"))?.name == "many")
        try Self.expectKeptReadsNothing()
    }

    /// Decodes a `ThrowingKeeper`-like record (one that keeps its container) inside its own `init(from:)`.
    struct NestedKeeper: NamedByNameKey {
        static let typeName = "test.nested-keeper"
        var name: String
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            _ = try FieldsDecoderSessionTests.decode(Hoarder.self, Hoarder(name: "inner"))
            FieldsDecoderSessionTests.kept.container = Hoarder.keptOnThisThread
            name = try decoder.container(keyedBy: NameKey.self).decode(String.self, forKey: .name)
        }
    }

    @Test("a container kept by a record decoded inside another's init(from:) reads nothing of a later record")
    func keptInNestedDecode() throws {
        #expect(try Self.decode(NestedKeeper.self, NestedKeeper(name: "outer"))?.name == "outer")
        #expect(Self.kept.container != nil)
        try Self.expectKeptReadsNothing()
    }

    /// A record read with ``NameKey``, as the peeker is, to warm the session's container.
    struct NameKeyPlain: NamedByNameKey {
        static let typeName = "test.name-key-plain"
        var name: String
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: NameKey.self).decode(String.self, forKey: .name)
        }
    }

    /// Decodes a second record inside its own `init(from:)`.
    struct Nester: NamedByNameKey {
        static let typeName = "test.nester"
        var name: String
        var inner: Plain?
        init(name: String) { self.name = name }
        init(from decoder: any Decoder) throws {
            inner = try FieldsDecoderSessionTests.decode(Plain.self, Plain(name: "inner", count: 9))
            let container = try decoder.container(keyedBy: NameKey.self)
            name = try container.decode(String.self, forKey: .name)
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

extension FieldsDecoderSessionTests.NamedByNameKey {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldsDecoderSessionTests.NameKey.self)
        try container.encode(name, forKey: .name)
    }
}
