/// A record decoded together with the fields its type asked for.
///
/// What a type knows of a record is what its `init(from:)` asks for: every key passed to
/// `decode`, `decodeIfPresent`, `contains`, `decodeNil`, a nested container or a super
/// decoder at the top level. A synthesized conformance asks for every property, optional
/// or not (`decodeIfPresent` for optionals), while its encoder skips `nil` optionals —
/// so the encoder cannot tell "set to nil" from "a field of a newer version", and the
/// decoder can. Writes use the keys to clear the fields the type knows and leave the
/// others (written by other app versions) untouched.
///
/// Decoding goes through `JSONDecoder` as before; the wrappers only forward each call
/// and note its key, so strategies and error messages are `JSONDecoder`'s own.
struct KeyRecordingDecoding<Value: Decodable>: Decodable {
    /// The keys the type asked for; `nil` when the type did not decode the top level as
    /// a keyed container (its keys are unknown).
    var keys: Set<String>?
    /// The decoded value, or the error its `init(from:)` threw.
    var result: Result<Value, any Error>

    init(from decoder: any Decoder) throws {
        let log = KeyLog()
        do {
            result = .success(try Value(from: KeyRecordingDecoder(base: decoder, log: log)))
        } catch {
            result = .failure(error)
        }
        keys = log.isKeyed ? log.keys : nil
    }
}

/// Collects the keys asked for during one decode. A class, so the decoder and its
/// containers (value types the record's `init(from:)` may copy) share one log; it lives
/// and dies inside one synchronous `init(from:)`, on one thread.
private final class KeyLog {
    var keys: Set<String> = []
    var isKeyed = false
}

/// The top-level decoder a record's `init(from:)` sees: `JSONDecoder`'s, noting keys.
private struct KeyRecordingDecoder: Decoder {
    let base: any Decoder
    let log: KeyLog

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let container = try base.container(keyedBy: type)
        log.isKeyed = true
        return KeyedDecodingContainer(KeyRecordingContainer(base: container, log: log))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { try base.unkeyedContainer() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { try base.singleValueContainer() }
}

/// The record's top-level keyed container: forwards every call, noting its key first (a
/// key asked for and missing is still a key the type knows).
private struct KeyRecordingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let log: KeyLog

    private func note(_ key: Key) { log.keys.insert(key.stringValue) }

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }

    func contains(_ key: Key) -> Bool {
        note(key)
        return base.contains(key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        note(key)
        return try base.decodeNil(forKey: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { note(key); return try base.decode(type, forKey: key) }
    // The protocol's own `Int128` / `UInt128` members throw "not implemented": forward.
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { note(key); return try base.decode(type, forKey: key) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { note(key); return try base.decode(type, forKey: key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { note(key); return try base.decode(type, forKey: key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { note(key); return try base.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { note(key); return try base.decodeIfPresent(type, forKey: key) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        note(key)
        return try base.nestedContainer(keyedBy: type, forKey: key)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        note(key)
        return try base.nestedUnkeyedContainer(forKey: key)
    }

    func superDecoder() throws -> any Decoder {
        log.keys.insert("super")
        return try base.superDecoder()
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        note(key)
        return try base.superDecoder(forKey: key)
    }
}
