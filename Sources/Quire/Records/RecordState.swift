import QuireCore

/// A field's last-writer-wins register: the value, the `(lamport, replica)` time of the
/// write that set it, and that write's change (its replica's first counter), to tell a
/// later causal update from a concurrent one.
struct FieldRegister: Hashable, Sendable {
    var value: [UInt8]
    var timestamp: Timestamp
    var counter: UInt64
}

/// Everything the store keeps of one record besides its place in the hierarchy.
struct RecordState: Hashable, Sendable {
    /// ``Record/typeName`` of the record's type.
    var type: String
    /// Field name → register.
    var fields: [String: FieldRegister]

    var values: [String: [UInt8]] { fields.mapValues(\.value) }

    /// Merges a write of `values` made at `timestamp` by the change starting at `counter`:
    /// each field keeps the later write.
    ///
    /// - Parameter knew: Whether the writing replica had seen a given write (replica,
    ///   change counter) when it wrote: overwriting a value it had seen is an update,
    ///   not a conflict.
    /// - Returns: The values that lost to a concurrent write (overwritten now, or
    ///   arriving too late), for the merge report.
    mutating func merge(
        _ values: [String: [UInt8]], at timestamp: Timestamp, counter: UInt64, knew: (ReplicaID, UInt64) -> Bool
    ) -> [OverwrittenValue.Loser] {
        var losers: [OverwrittenValue.Loser] = []
        for (name, value) in values {
            if let current = fields[name] {
                if current.timestamp == timestamp { continue }  // the same write again
                if current.timestamp < timestamp {
                    let sequential = current.timestamp.replica == timestamp.replica || knew(current.timestamp.replica, current.counter)
                    if current.value != value && !sequential {
                        losers.append(.init(field: name, value: current.value, timestamp: current.timestamp))
                    }
                    fields[name] = FieldRegister(value: value, timestamp: timestamp, counter: counter)
                } else if current.value != value {
                    losers.append(.init(field: name, value: value, timestamp: timestamp))
                }
            } else {
                fields[name] = FieldRegister(value: value, timestamp: timestamp, counter: counter)
            }
        }
        return losers
    }

    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.write(string: type)
        writer.write(varint: UInt64(fields.count))
        for name in fields.keys.sorted() {
            let register = fields[name]!
            writer.write(string: name)
            writer.write(varint: register.timestamp.lamport)
            writer.write(replica: register.timestamp.replica)
            writer.write(varint: register.counter)
            writer.write(lengthPrefixed: register.value)
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(DecodingError) -> RecordState {
        try bytes.withUnsafeBufferPointer { bytes throws(DecodingError) in
            try withEncodedFields(in: bytes) { type, places in
                var fields: [String: FieldRegister] = [:]
                fields.reserveCapacity(places.count)
                for place in places {
                    fields[String(decoding: bytes[place.name], as: UTF8.self)] = FieldRegister(
                        value: Array(bytes[place.value]), timestamp: place.timestamp, counter: place.counter)
                }
                return RecordState(type: String(decoding: bytes[type], as: UTF8.self), fields: fields)
            }
        }
    }

    /// Where one field of an encoded record lies in the record's bytes, as
    /// ``withEncodedFields(in:_:)`` reads it.
    struct EncodedFieldPlace {
        /// The name's UTF-8 (checked valid).
        let name: Range<Int>
        /// The value's JSON bytes.
        let value: Range<Int>
        let timestamp: Timestamp
        let counter: UInt64
    }

    /// Reads an encoded record in place and lends `body` its type name's place (UTF-8,
    /// checked valid) and its fields' places, in stored order (by name). The one reading
    /// of the record format (``encoded()`` writes it); the whole record is checked before
    /// `body` runs.
    ///
    /// The places live on the stack for records of a few fields, so a point read
    /// allocates nothing to find its fields; they are valid only during the call.
    ///
    /// - Throws: ``QuireCore/DecodingError`` for a record that is truncated, malformed or
    ///   has a name that is not UTF-8.
    static func withEncodedFields<R>(
        in bytes: UnsafeBufferPointer<UInt8>,
        _ body: (_ type: Range<Int>, _ fields: UnsafeBufferPointer<EncodedFieldPlace>) -> R
    ) throws(DecodingError) -> R {
        var reader = UnsafeByteReader(bytes)
        let type = try reader.readUTF8("type name", limit: Change.maximumNameLength)
        let count = try reader.readCount("field count", limit: Change.maximumCount, minimumElementSize: 11)
        return try withUnsafeTemporaryAllocation(of: EncodedFieldPlace.self, capacity: count) {
            places throws(DecodingError) -> R in
            var filled = 0
            // EncodedFieldPlace is trivial: places need no deinitialization, also on a throw.
            for _ in 0..<count {
                let name = try reader.readUTF8("field name", limit: Change.maximumNameLength)
                let lamport = try reader.readVarint("field lamport")
                let replica = try reader.readUInt64LittleEndian("field replica")
                let counter = try reader.readVarint("field change")
                let value = try reader.readLengthPrefixed("field value", limit: Change.maximumValueLength)
                places.initializeElement(at: filled, to: EncodedFieldPlace(
                    name: name, value: value, timestamp: Timestamp(lamport: lamport, replica: ReplicaID(replica)),
                    counter: counter))
                filled += 1
            }
            guard reader.isAtEnd else { throw .malformed("\(reader.remaining) trailing bytes", at: reader.offset) }
            return body(type, UnsafeBufferPointer(rebasing: places[..<filled]))
        }
    }
}
