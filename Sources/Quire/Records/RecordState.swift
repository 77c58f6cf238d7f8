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
        var fields: [String: FieldRegister] = [:]
        let type = try forEachField(in: bytes) { field in
            fields[field.name] = FieldRegister(value: Array(field.value), timestamp: field.timestamp, counter: field.counter)
        }
        return RecordState(type: String(decoding: type, as: UTF8.self), fields: fields)
    }

    /// One field of an encoded record, as ``forEachField(in:_:)`` reads it.
    struct EncodedField {
        /// The name's UTF-8 (checked valid), a slice of the record's bytes.
        let nameUTF8: ArraySlice<UInt8>
        /// The value's JSON bytes, a slice of the record's bytes.
        let value: ArraySlice<UInt8>
        let timestamp: Timestamp
        let counter: UInt64

        var name: String { String(decoding: nameUTF8, as: UTF8.self) }
    }

    /// Reads an encoded record, handing `body` each field; returns the type name's UTF-8
    /// (checked valid). The one reading of the record format (``encoded()`` writes it).
    /// Names stay bytes: a point read compares them and never needs them as strings.
    @inline(__always)
    static func forEachField(in bytes: [UInt8], _ body: (EncodedField) -> Void) throws(DecodingError) -> ArraySlice<UInt8> {
        var reader = ByteReader(bytes)
        let type = try reader.readUTF8("type name", limit: Change.maximumNameLength)
        let count = try reader.readCount("field count", limit: Change.maximumCount, minimumElementSize: 11)
        for _ in 0..<count {
            let name = try reader.readUTF8("field name", limit: Change.maximumNameLength)
            let lamport = try reader.readVarint("field lamport")
            let replica = try reader.readReplica("field replica")
            let counter = try reader.readVarint("field change")
            let value = try reader.readLengthPrefixed("field value", limit: Change.maximumValueLength)
            body(EncodedField(
                nameUTF8: name, value: value, timestamp: Timestamp(lamport: lamport, replica: replica), counter: counter))
        }
        guard reader.isAtEnd else { throw .malformed("\(reader.remaining) trailing bytes", at: reader.offset) }
        return type
    }
}
