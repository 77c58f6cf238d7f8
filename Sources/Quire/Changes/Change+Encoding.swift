import QuireCore

/// The binary form of a change, used by the change log and by delta files.
///
/// ```
/// change     replica (8 bytes LE) · first counter · count · lamport
///            · dependencies: n, n × (replica (8 bytes LE) · counter)
///            · operations: m, m × operation
/// operation  kind byte, then
///   0 fields  record · type name · k, k × (field name · value)
///   1 text    record · field name · encoded text operations (length-prefixed)
///   2 tree    tree operation (see TreeOperation.encode)
/// record     replica (8 bytes LE) · counter
/// ```
///
/// Integers are LEB128 varints, strings and values length-prefixed. Decoding checks
/// every count and length against the bytes left and against the limits below before
/// allocating, and throws ``StoreError/invalidChange(_:)`` naming the problem.
extension Change {
    /// The longest type or field name.
    static let maximumNameLength = 255
    /// The largest field value.
    static let maximumValueLength = 16 << 20
    /// The most operations or dependencies in one change.
    static let maximumCount = 1 << 24

    private enum Kind {
        static let fields: UInt8 = 0
        static let text: UInt8 = 1
        static let tree: UInt8 = 2
    }

    func encode(into writer: inout ByteWriter) {
        writer.write(replica: id.replica)
        writer.write(varint: id.counter)
        writer.write(varint: count)
        writer.write(varint: lamport)
        let dependencies = dependencies.counters.sorted { $0.key < $1.key }
        writer.write(varint: UInt64(dependencies.count))
        for (replica, counter) in dependencies {
            writer.write(replica: replica)
            writer.write(varint: counter)
        }
        writer.write(varint: UInt64(operations.count))
        for operation in operations {
            switch operation {
            case .fields(let record, let type, let values):
                writer.write(byte: Kind.fields)
                writer.write(record: record)
                writer.write(string: type)
                writer.write(varint: UInt64(values.count))
                for name in values.keys.sorted() {
                    writer.write(string: name)
                    writer.write(lengthPrefixed: values[name]!)
                }
            case .text(let text, let operations):
                writer.write(byte: Kind.text)
                writer.write(record: text.record)
                writer.write(string: text.field)
                writer.write(lengthPrefixed: TextOperationCoding.encode(operations))
            case .tree(let operation):
                writer.write(byte: Kind.tree)
                operation.encode(into: &writer)
            }
        }
    }

    var encoded: [UInt8] {
        var writer = ByteWriter()
        encode(into: &writer)
        return writer.bytes
    }

    static func decode(from reader: inout ByteReader) throws(StoreError) -> Change {
        do {
            return try decodeChecked(from: &reader)
        } catch let error as DecodingError {
            throw .invalidChange("\(error)")
        } catch let error as TextError {
            throw .invalidChange("\(error)")
        } catch {
            throw .invalidChange("\(error)")
        }
    }

    static func decode(_ bytes: [UInt8]) throws(StoreError) -> Change {
        var reader = ByteReader(bytes)
        let change = try decode(from: &reader)
        guard reader.isAtEnd else { throw .invalidChange("\(reader.remaining) bytes after the change") }
        return change
    }

    private static func decodeChecked(from reader: inout ByteReader) throws -> Change {
        let replica = try reader.readReplica("change replica")
        guard replica.rawValue != 0 else { throw DecodingError.malformed("replica 0 is reserved", at: reader.offset - 8) }
        let first = try reader.readVarint("first counter")
        let count = try reader.readVarint("operation count")
        let lamport = try reader.readVarint("lamport time")
        guard first <= UInt64(Int64.max), count <= UInt64(Int64.max) - first else {
            throw DecodingError.malformed("counter range \(first) + \(count) overflows", at: reader.offset)
        }
        var dependencies: [ReplicaID: UInt64] = [:]
        let dependencyCount = try reader.readCount("dependency count", limit: maximumCount, minimumElementSize: 9)
        for _ in 0..<dependencyCount {
            let dependency = try reader.readReplica("dependency replica")
            guard dependency != replica, dependencies[dependency] == nil else {
                throw DecodingError.malformed("duplicate dependency on \(dependency)", at: reader.offset - 8)
            }
            dependencies[dependency] = try reader.readVarint("dependency counter")
        }
        let operationCount = try reader.readCount("operation count", limit: maximumCount, minimumElementSize: 2)
        var operations: [StoreOperation] = []
        operations.reserveCapacity(operationCount)
        for _ in 0..<operationCount {
            let kind = try reader.readByte("operation kind")
            switch kind {
            case Kind.fields:
                let record = try reader.readRecord()
                let type = try reader.readString("type name", limit: maximumNameLength)
                let valueCount = try reader.readCount("field count", limit: maximumCount, minimumElementSize: 2)
                var values: [String: [UInt8]] = [:]
                for _ in 0..<valueCount {
                    let name = try reader.readString("field name", limit: maximumNameLength)
                    values[name] = Array(try reader.readLengthPrefixed("field value", limit: maximumValueLength))
                }
                operations.append(.fields(record: record, type: type, values: values))
            case Kind.text:
                let record = try reader.readRecord()
                let field = try reader.readString("text field name", limit: maximumNameLength)
                let bytes = try reader.readLengthPrefixed("text operations", limit: reader.remaining)
                operations.append(.text(TextID(record: record, field: field), try TextOperationCoding.decode(Array(bytes))))
            case Kind.tree:
                operations.append(.tree(try TreeOperation.decode(from: &reader)))
            default:
                throw DecodingError.malformed("unknown operation kind \(kind)", at: reader.offset - 1)
            }
        }
        return Change(
            id: ChangeID(replica: replica, counter: first), count: count, lamport: lamport,
            dependencies: VersionVector(dependencies), operations: operations)
    }
}

extension ByteWriter {
    mutating func write(replica: ReplicaID) {
        withUnsafeBytes(of: replica.rawValue.littleEndian) { write(raw: $0) }
    }

    mutating func write(record: RecordID) {
        write(replica: record.replica)
        write(varint: record.counter)
    }
}

extension ByteReader {
    mutating func readReplica(_ what: @autoclosure () -> String) throws(DecodingError) -> ReplicaID {
        let bytes = try readBytes(8, what())
        var value: UInt64 = 0
        for byte in bytes.reversed() { value = value << 8 | UInt64(byte) }
        return ReplicaID(value)
    }

    mutating func readRecord() throws(DecodingError) -> RecordID {
        RecordID(replica: try readReplica("record replica"), counter: try readVarint("record counter"))
    }
}
