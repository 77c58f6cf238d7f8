@_spi(LMDBInternals) import LMDB
import Foundation

/// Decodes a record straight from its fields, without assembling a JSON object for
/// `JSONDecoder`: the fast path of a read (``RecordFields/decode(_:from:id:)``).
///
/// It handles what records are mostly made of — a keyed container at the top level whose
/// values are strings without escapes, integers, booleans, `null`, and types that decode
/// from a single such value (string enums, identifiers) — and gives up on anything else by
/// throwing. Any throw sends the record down the `JSONDecoder` path, so a value it
/// returns is the value `JSONDecoder` would return, and every error (a missing field, a
/// type mismatch) is `JSONDecoder`'s own. `FieldsDecoderTests` checks the two agree. Values `JSONEncoder` writes in its own way
/// (`Date`, `Data`, `URL`, `Decimal`), nested containers and numbers with a fraction or
/// exponent are decoded by `JSONDecoder` from the field's bytes.
struct FieldsDecoder: Decoder {
    /// Why the fast path gave up.
    struct GaveUp: Error {}

    /// One attempt of the fast path at one value: what it reads, and whether it gave up
    /// anywhere. A type whose `init(from:)` swallows errors (`try?` with a default) would
    /// otherwise turn a give-up into a value `JSONDecoder` would not give; the caller
    /// checks ``gaveUp`` after the decode and takes the `JSONDecoder` path when it is set.
    ///
    /// The decoder and its containers share it by reference, so each is one word and a
    /// decode copies no field table. What it reads may be lent (a stored record's bytes,
    /// valid only inside its read): ``finish()`` drops it when the decode returns, so a
    /// decoder that a type kept past its `init(from:)` reads nothing.
    final class Attempt {
        /// Lent pointers (``FieldValues`` holds only pointers): valid only while the decode
        /// runs, and cleared by ``finish()``, which every decode reaches.
        private(set) var fields: FieldValues
        /// The one value of a ``SingleValue`` decoder.
        private(set) var single: UnsafeBufferPointer<UInt8>
        private(set) var gaveUp = false

        init(fields: FieldValues = .none, single: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0)) {
            self.fields = fields
            self.single = single
        }

        /// Begins the attempt at a record's `fields` (an attempt of a ``Session`` is
        /// reused, one record after the other).
        func begin(_ fields: FieldValues) {
            self.fields = fields
            gaveUp = false
        }

        /// Notes a give-up and returns the error to throw.
        func giveUp() -> GaveUp {
            gaveUp = true
            return GaveUp()
        }

        /// `read`'s value of `bytes`; a missing value, or any error of `read`, is a give-up
        /// (the `JSONDecoder` path then gives the value or the error it would give).
        @inline(__always)
        func read<T>(_ bytes: UnsafeBufferPointer<UInt8>?, _ read: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
            guard let bytes else { throw giveUp() }
            do { return try read(bytes) } catch {
                gaveUp = true
                throw error
            }
        }

        /// Ends the attempt: forgets what it read, and counts any later use as a give-up.
        func finish() {
            fields = .none
            single = UnsafeBufferPointer(start: nil, count: 0)
        }
    }

    /// What a thread's record decodes reuse, one decode after the other: the ``Attempt``
    /// and the keyed container made for each `CodingKey` type.
    ///
    /// Making a `KeyedDecodingContainer` costs two generic metadata lookups, a witness
    /// table lookup and a box allocated and freed: over a thousand instructions, about
    /// one eighth of a point read. A reused container costs one metadata lookup.
    ///
    /// A type may keep its decoder or a container past its `init(from:)`. What it kept
    /// must then not read a later record's fields, so after each decode the thread checks
    /// that nothing but itself holds the session (the decoder holds it) and that nothing
    /// but the session holds a container (``sharesAContainer``). If something does, the
    /// thread drops the session (its attempt finished for good, so what was kept reads
    /// nothing) and makes a new one.
    final class Session {
        let attempt = Attempt()
        /// The `CodingKey` type of each reused container, and its box (what a
        /// `KeyedDecodingContainer` holds) in the same place of ``boxes``: fixed storage
        /// of ``capacity`` places, ``count`` of them used, so that a lookup and a
        /// uniqueness check work in place.
        private let keyTypes = UnsafeMutablePointer<ObjectIdentifier>.allocate(capacity: Session.capacity)
        private let boxes = UnsafeMutablePointer<AnyObject>.allocate(capacity: Session.capacity)
        private var count = 0
        /// The place the next container replaces once all are used.
        private var nextEviction = 0
        /// Whether a container this session did not keep was lent: it reads the attempt too.
        private var lentUnkept = false
        /// Whether the session keeps the containers it makes. Not once the thread dropped
        /// it: a decoder a type kept may still ask it for containers, which then read its
        /// finished attempt and leave the cache alone (the kept decoder could be used from
        /// another thread). Not where ``containersAreOneReference`` is false.
        var keepsContainers: Bool

        init(keepingContainers: Bool = true) {
            keepsContainers = keepingContainers
        }

        /// The most containers a session keeps: a thread decodes a handful of record types.
        static let capacity = 16

        deinit {
            boxes.deinitialize(count: count)
            boxes.deallocate()
            keyTypes.deallocate()
        }

        /// A container reading this session's attempt, reused when one was made for `Key`.
        ///
        /// A `KeyedDecodingContainer` is one reference to the box it was made with: the
        /// standard library's layout, checked once per process (``containersAreOneReference``).
        /// Where the check fails no session is used: each decode makes its own attempt and
        /// containers, as before sessions.
        @inline(__always)
        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
            guard keepsContainers else { return KeyedDecodingContainer(Container<Key>(attempt: attempt)) }
            let keyType = ObjectIdentifier(Key.self)
            for index in 0..<count where keyTypes[index] == keyType {
                return UnsafeRawPointer(boxes + index).load(as: KeyedDecodingContainer<Key>.self)
            }
            return makeContainer(keyedBy: type)
        }

        @inline(never)
        private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
            let made = KeyedDecodingContainer(Container<Key>(attempt: attempt))
            if let slot = freeSlot() {
                let box = Self.box(of: made)
                if slot < count {
                    boxes[slot] = box
                } else {
                    (boxes + slot).initialize(to: box)
                    count += 1
                }
                keyTypes[slot] = ObjectIdentifier(Key.self)
            } else {
                // Reads this session's attempt, but ``sharesAContainer`` cannot see it.
                lentUnkept = true
            }
            return made
        }

        /// A place for one more container: an unused one, else the first from the place
        /// whose turn it is whose box nothing else holds; `nil` when every box is held.
        private func freeSlot() -> Int? {
            if count < Self.capacity { return count }
            for step in 0..<Self.capacity {
                let slot = (nextEviction + step) % Self.capacity
                guard isUnique(slot) else { continue }
                nextEviction = (slot + 1) % Self.capacity
                return slot
            }
            return nil
        }

        /// The box `container` holds (``containersAreOneReference`` is true: no session is
        /// used otherwise).
        private static func box<Key>(of container: KeyedDecodingContainer<Key>) -> AnyObject {
            withUnsafePointer(to: container) { UnsafeRawPointer($0).load(as: AnyObject.self) }
        }

        /// Whether the standard library's `KeyedDecodingContainer` is one stored reference
        /// (its box): checked once per process, by reflection, as reflecting costs a scan
        /// of the process's protocol conformances (about half a millisecond) per new type.
        static let containersAreOneReference: Bool = {
            enum Probe: CodingKey { case probe }
            let container = KeyedDecodingContainer(Container<Probe>(attempt: Attempt()))
            let children = Mirror(reflecting: container).children
            guard MemoryLayout<KeyedDecodingContainer<Probe>>.size == MemoryLayout<AnyObject>.size, children.count == 1,
                let only = children.first, type(of: only.value) is AnyClass
            else { return false }
            return withUnsafePointer(to: container) { UnsafeRawPointer($0).load(as: AnyObject.self) } === only.value as AnyObject
        }()

        /// How many containers the session keeps.
        var containerCount: Int { count }

        /// Whether anything beyond the session holds one of its containers, or may (one
        /// it lent without keeping it).
        var sharesAContainer: Bool {
            if lentUnkept { return true }
            for index in 0..<count where !isUnique(index) { return true }
            return false
        }

        /// Whether nothing but the session holds the box at `index`.
        ///
        /// Checked as a native Swift object (``NativeObject``): Swift 6 opens an `AnyObject`
        /// passed to `isKnownUniquelyReferenced` into a copy, so an unoptimized build would
        /// never see a box held once. A native reference's check reads the object's own
        /// count, whatever its class.
        private func isUnique(_ index: Int) -> Bool {
            (boxes + index).withMemoryRebound(to: NativeObject.self, capacity: 1) { isKnownUniquelyReferenced(&$0.pointee) }
        }

        /// The static type of a box's uniqueness check; never made.
        private final class NativeObject {}
    }

    /// Each thread's ``Session``; `nil` while a decode on the thread uses it.
    private final class ThreadSession {
        var session: Session? = Session()

        /// The thread's session, taken for a decode; a new one when a decode on this
        /// thread has it (an `init(from:)` that decodes a record).
        func take() -> Session { session.take() ?? Session() }

        /// Gives `used` back after its decode. Dropped instead when the decoded type kept
        /// its decoder or a container, or when the session lent a container it did not
        /// keep: its attempt stays finished (what was kept reads nothing), and the thread
        /// keeps or makes another. A nested decode's session, given back first, makes way
        /// for the outer one, whose containers are warm.
        func giveBack(_ used: consuming Session) {
            if isKnownUniquelyReferenced(&used) && !used.sharesAContainer {
                session = used
            } else {
                used.keepsContainers = false
                if session == nil { session = Session() }
            }
        }
    }

    private static let threadSessions = ThreadLocal<ThreadSession>()

    /// The calling thread's session, when no decode on the thread uses it.
    static var threadSession: Session? { threadSessions.value(orMake: ThreadSession.init).session }

    let session: Session
    var attempt: Attempt { session.attempt }

    /// The record decoded by the fast path, with the thread's reused ``Session``.
    ///
    /// Throws rather than returning an optional: in code generic over `Value`, as a read
    /// is, the runtime would look up `Optional<Value>`'s metadata on every call.
    ///
    /// - Throws: ``GaveUp`` when the fast path gave up or `init(from:)` threw.
    static func decode<Value: Decodable>(_ type: Value.Type, from fields: FieldValues) throws(GaveUp) -> Value {
        guard Session.containersAreOneReference else {
            return try decode(type, from: fields, in: Session(keepingContainers: false))
        }
        // The thread's sessions lent, not retained. Thrown through the untyped `rethrows`
        // and cast back: only `GaveUp` is thrown inside.
        do {
            return try threadSessions.withValue(orMake: ThreadSession.init) { thread in
                let session = thread.take()
                // Given back by `consume`, not from a `defer`: a copy still held here would
                // make the session look shared (and an unoptimized build keeps such copies).
                do {
                    let value = try decode(type, from: fields, in: session)
                    thread.giveBack(consume session)
                    return value
                } catch {
                    thread.giveBack(consume session)
                    throw error
                }
            }
        } catch {
            throw error as! GaveUp
        }
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, from fields: FieldValues, in session: Session) throws(GaveUp) -> Value {
        session.attempt.begin(fields)
        defer { session.attempt.finish() }
        let value: Value
        do { value = try Value(from: FieldsDecoder(session: session)) } catch { throw GaveUp() }
        guard !session.attempt.gaveUp else { throw GaveUp() }
        return value
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        session.container(keyedBy: type)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw attempt.giveUp() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw attempt.giveUp() }

    private struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let attempt: Attempt

        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { attempt.fields.names.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { attempt.fields.contains(key.stringValue) }

        /// `read`'s value of the field `key`; a missing field gives up. Inlined into each
        /// `decode`, so that it is specialized for the type read (the container is generic
        /// over its key type, and a generic call would move the value through metadata).
        @inline(__always)
        private func value<T>(_ key: Key, _ read: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
            try attempt.fields.withValue(named: key.stringValue) { bytes in try attempt.read(bytes, read) }
        }

        func decodeNil(forKey key: Key) throws -> Bool { try value(key) { FieldValue.isNull($0) } }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(key, FieldValue.bool) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(key, FieldValue.string) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(key, FieldValue.double) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw attempt.giveUp() }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(key, FieldValue.integer) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(key, FieldValue.integer) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(key, FieldValue.integer) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(key, FieldValue.integer) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(key, FieldValue.integer) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(key, FieldValue.integer) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(key, FieldValue.integer) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(key, FieldValue.integer) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(key, FieldValue.integer) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(key, FieldValue.integer) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try value(key) { try FieldValue.decode(type, from: $0) }
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw attempt.giveUp()
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw attempt.giveUp() }
        func superDecoder() throws -> any Decoder { throw attempt.giveUp() }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw attempt.giveUp() }
    }
}

/// One field's JSON value, read for ``FieldsDecoder``.
private enum FieldValue {
    static func isNull(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { bytes.elementsEqual("null".utf8) }

    static func bool(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Bool {
        if bytes.elementsEqual("true".utf8) { return true }
        if bytes.elementsEqual("false".utf8) { return false }
        throw FieldsDecoder.GaveUp()
    }

    /// A string; one with escapes is read by `JSONDecoder`.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) throws -> String {
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else {
            throw FieldsDecoder.GaveUp()
        }
        // An escape or a control character sends the string to `JSONDecoder`; ASCII (the
        // usual case) is copied as it is.
        let inner = UnsafeBufferPointer(rebasing: bytes[1..<(bytes.count - 1)])
        let scan = scanned(inner)
        if scan.escapesOrControls { return try JSONDecoder().decode(String.self, from: Data(buffer: bytes)) }
        if scan.isASCII {
            return String(unsafeUninitializedCapacity: inner.count) { buffer in
                _ = buffer.initialize(fromContentsOf: inner)
                return inner.count
            }
        }
        guard let string = String(validating: inner, as: UTF8.self) else { throw FieldsDecoder.GaveUp() }
        return string
    }

    /// Whether a string's characters hold a `\\` or a control character (below 0x20), and
    /// whether all are ASCII; eight bytes at a time (the tests of "Bit Twiddling Hacks":
    /// a word has a byte below `n` when `(w - n·0x01…) & ~w & 0x80…` is not zero).
    static func scanned(_ characters: UnsafeBufferPointer<UInt8>) -> (escapesOrControls: Bool, isASCII: Bool) {
        guard let base = characters.baseAddress else { return (false, true) }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let backslashes = ones &* UInt64(UInt8(ascii: "\\"))
        var special: UInt64 = 0, combined: UInt64 = 0
        var index = 0
        while index + 8 <= characters.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let backslash = word ^ backslashes  // a zero byte where a backslash was
            special |= (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word
            combined |= word
            index += 8
        }
        var escapesOrControls = special & highs != 0
        while index < characters.count {
            let byte = base[index]
            escapesOrControls = escapesOrControls || byte == UInt8(ascii: "\\") || byte < 0x20
            combined |= UInt64(byte)
            index += 1
        }
        return (escapesOrControls, combined & highs == 0)
    }

    /// A number in JSON's form, as `Double` reads it.
    static func double(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Double {
        guard bytes.count <= 32, isJSONNumber(bytes), let value = Double(String(decoding: bytes, as: UTF8.self)),
            value.isFinite
        else {
            throw FieldsDecoder.GaveUp()
        }
        return value
    }

    /// Whether `bytes` is a number by JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)?
    /// ([eE] [+-]? [0-9]+)?`.
    static func isJSONNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let leadingZero = index < bytes.count && bytes[index] == UInt8(ascii: "0")
        let whole = digits()
        guard whole > 0, !leadingZero || whole == 1 else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == bytes.count
    }

    /// An integer written as digits with an optional minus sign, that fits `T`.
    static func integer<T: FixedWidthInteger>(_ bytes: UnsafeBufferPointer<UInt8>) throws -> T {
        var digits = bytes[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        // JSON's form: no leading zero ("01" is not a JSON number), digits only.
        guard !digits.isEmpty, digits.count <= 20, digits.count == 1 || digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else {
            throw FieldsDecoder.GaveUp()
        }
        var value: T = 0
        for digit in digits {
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = negative
                ? times.subtractingReportingOverflow(T(digit - 0x30)) : times.addingReportingOverflow(T(digit - 0x30))
            guard !overflowA && !overflowB else { throw FieldsDecoder.GaveUp() }
            value = sum
        }
        return value
    }

    /// A value of another type: one that decodes from a single string, integer or
    /// boolean (enums, identifiers), or else by `JSONDecoder` from the field's bytes.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeBufferPointer<UInt8>) throws -> T {
        if T.self == String.self { return try string(bytes) as! T }
        if T.self == Int.self { return try integer(bytes) as Int as! T }
        if T.self == Bool.self { return try bool(bytes) as! T }
        // The types JSONEncoder writes in its own way, and containers.
        let isSpecial = T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self
        if !isSpecial, let first = bytes.first, first != UInt8(ascii: "{"), first != UInt8(ascii: "[") {
            // Its own attempt: a give-up here falls back to JSONDecoder for this value only,
            // also when the type's init swallowed it.
            let attempt = FieldsDecoder.Attempt(single: bytes)
            defer { attempt.finish() }
            if let value = try? T(from: SingleValue(attempt: attempt)), !attempt.gaveUp { return value }
        }
        return try JSONDecoder().decode(T.self, from: Data(buffer: bytes))
    }

    /// A decoder of one scalar value, for types that decode from a single value.
    private struct SingleValue: Decoder, SingleValueDecodingContainer {
        let attempt: FieldsDecoder.Attempt

        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw attempt.giveUp() }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw attempt.giveUp() }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

        /// `read`'s value of the one value; one read after the decode ended gives up.
        private func value<T>(_ read: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
            try attempt.read(attempt.single.baseAddress == nil ? nil : attempt.single, read)
        }

        func decodeNil() -> Bool { attempt.single.baseAddress != nil && FieldValue.isNull(attempt.single) }
        func decode(_ type: Bool.Type) throws -> Bool { try value(FieldValue.bool) }
        func decode(_ type: String.Type) throws -> String { try value(FieldValue.string) }
        func decode(_ type: Double.Type) throws -> Double { try value(FieldValue.double) }
        func decode(_ type: Float.Type) throws -> Float { throw attempt.giveUp() }
        func decode(_ type: Int.Type) throws -> Int { try value(FieldValue.integer) }
        func decode(_ type: Int8.Type) throws -> Int8 { try value(FieldValue.integer) }
        func decode(_ type: Int16.Type) throws -> Int16 { try value(FieldValue.integer) }
        func decode(_ type: Int32.Type) throws -> Int32 { try value(FieldValue.integer) }
        func decode(_ type: Int64.Type) throws -> Int64 { try value(FieldValue.integer) }
        func decode(_ type: UInt.Type) throws -> UInt { try value(FieldValue.integer) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try value(FieldValue.integer) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try value(FieldValue.integer) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try value(FieldValue.integer) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try value(FieldValue.integer) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { throw attempt.giveUp() }
    }
}
