/// A version vector encodes as an object from replica IDs (sixteen lowercase hexadecimal
/// digits) to counters; replicas never seen are left out, so the empty version is `{}`.
/// The key order is the encoder's: `JSONEncoder`'s `.sortedKeys` gives replicas in
/// ascending order, hence equal versions equal bytes.
///
/// ```swift
/// let encoder = JSONEncoder()
/// encoder.outputFormatting = .sortedKeys
/// try encoder.encode(store.version)   // {"00000000000000a1":12,"7f3c09d2e4b1a655":3}
/// ```
///
/// Two devices exchange "what I have" with it: one sends its version, the other answers
/// with the changes it lacks (`store.exportDelta(since:)`).
extension VersionVector: Codable {
    /// A replica ID as a key of the encoded object.
    private struct ReplicaKey: CodingKey {
        let replica: ReplicaID
        var stringValue: String { replica.description }
        var intValue: Int? { nil }
        init(_ replica: ReplicaID) { self.replica = replica }
        init?(stringValue: String) {
            guard let replica = ReplicaID(hexadecimal: stringValue) else { return nil }
            self.replica = replica
        }
        init?(intValue: Int) { nil }
    }

    /// Encodes the counters as an object keyed by replica ID.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ReplicaKey.self)
        for (replica, counter) in counters.sorted(by: { $0.key < $1.key }) {
            try container.encode(counter, forKey: ReplicaKey(replica))
        }
    }

    /// Decodes the object ``encode(to:)`` writes.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` for a key that is not a replica ID
    ///   (sixteen hexadecimal digits), or the decoder's error for a counter that is not
    ///   an unsigned 64-bit integer.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ReplicaKey.self)
        var counters: [ReplicaID: UInt64] = [:]
        for key in container.allKeys { counters[key.replica] = try container.decode(UInt64.self, forKey: key) }
        // A key that is not a replica ID is left out of `allKeys`: find it to name it.
        let plain = try decoder.container(keyedBy: AnyKey.self)
        if let bad = plain.allKeys.first(where: { ReplicaID(hexadecimal: $0.stringValue) == nil }) {
            throw Swift.DecodingError.dataCorruptedError(
                forKey: bad, in: plain,
                debugDescription: "a version vector's keys are replica IDs (sixteen hexadecimal digits), not \(bad.stringValue.debugDescription)")
        }
        self.init(counters)
    }

    /// Any key, to find one that is not a replica ID.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
