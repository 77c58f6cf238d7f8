import QuireCore

/// The binary form of a change: the body is what the change log stores (its key holds
/// the replica and first counter); the wire form, for delta files, puts those two first.
///
/// ```
/// wire       replica (8 bytes LE) · first counter · body
/// body       count · lamport
///            · replicas: n, n × replica (8 bytes LE)   — index 0 is the change's own
///              replica and is not written; the others follow from index 1
///            · dependencies: k, k × (replica index · counter)
///            · operations: m, m × operation
///            · [time]: seconds since 1970 (``Change/time``), when known; from store
///              format 4 and delta format 3 (earlier bodies end after the operations)
/// operation  kind byte, then
///   0 fields  record · type name · j, j × (field name · value)
///   1 text    text · encoded text operations sharing the replica table, counters from
///             the change's first counter (length-prefixed)
///   2 tree    tree operation (see TreeOperation.encode)
/// record     replica index · counter
/// text       wire: record · field name; change log: the store's slot number for the text
/// ```
///
/// Dependencies list only what the replica learned since its previous change: a change
/// always comes after its replica's previous one, so that one's dependencies hold too.
/// Integers are LEB128 varints, strings and values length-prefixed. Decoding checks
/// every count and length against the bytes left and against the limits below before
/// allocating, and throws ``StoreError/invalidChange(_:)`` naming the problem.
extension Change {
    // Computed, not stored: a stored static is reached through a lazy-initialization
    // check on every use, and a point read checks a record against these.
    /// The longest type or field name.
    static var maximumNameLength: Int { 255 }
    /// The largest field value.
    static var maximumValueLength: Int { 16 << 20 }
    /// The most operations, dependencies or replicas in one change.
    static var maximumCount: Int { 1 << 24 }
    /// Times stay below this (the year 36812), so no sum of a run's steps overflows.
    static let maximumTime: UInt64 = 1 << 40

    private enum Kind {
        static let fields: UInt8 = 0
        static let text: UInt8 = 1
        static let tree: UInt8 = 2
    }

    /// The replicas the body refers to by index: this change's first.
    private var replicaTable: [ReplicaID] {
        // Tables are short (a keystroke's has one entry): a linear search beats hashing.
        var table = [id.replica]
        if !dependencies.counters.isEmpty {
            for replica in dependencies.counters.keys.sorted() { ReplicaIndex.add(replica, to: &table) }
        }
        for operation in operations {
            switch operation {
            case .fields(let record, _, _): ReplicaIndex.add(record.replica, to: &table)
            case .text(let text, let textOperations):
                ReplicaIndex.add(text.record.replica, to: &table)
                TextOperationCoding.addReplicas(of: textOperations, to: &table)
            case .tree: break
            }
        }
        return table
    }

    /// Writes the body; `writeText` names a text (by ID on the wire, by slot in the log).
    func encodeBody(into writer: inout ByteWriter, writeText: (TextID, ReplicaIndex, inout ByteWriter) -> Void) {
        let table = replicaTable
        writer.write(varint: count)
        writer.write(varint: lamport)
        let index = writer.write(replicaTable: table, dependencies: dependencies)
        writer.write(varint: UInt64(operations.count))
        for operation in operations {
            switch operation {
            case .fields(let record, let type, let values):
                writer.write(byte: Kind.fields)
                writer.write(record: record, index: index)
                writer.write(string: type)
                writer.write(varint: UInt64(values.count))
                for name in values.keys.sorted() {
                    writer.write(string: name)
                    writer.write(lengthPrefixed: values[name]!)
                }
            case .text(let text, let textOperations):
                writer.write(byte: Kind.text)
                writeText(text, index, &writer)
                writer.writeLengthPrefixed { TextOperationCoding.encode(textOperations, sharing: table, counterBase: id.counter, into: &$0) }
            case .tree(let move):
                writer.write(byte: Kind.tree)
                move.encode(into: &writer)
            }
        }
        if time > 0 { writer.write(varint: time) }
    }

    /// Reads a body written by ``encodeBody(into:writeText:)``.
    static func decodeBody(
        from reader: inout ByteReader, id: ChangeID,
        readText: (inout ByteReader, [ReplicaID]) throws -> TextID
    ) throws(StoreError) -> Change {
        do {
            return try decodeCheckedBody(from: &reader, id: id, readText: readText)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .invalidChange("change \(id): \(error)")
        }
    }

    private static func decodeCheckedBody(
        from reader: inout ByteReader, id: ChangeID,
        readText: (inout ByteReader, [ReplicaID]) throws -> TextID
    ) throws -> Change {
        guard id.replica.rawValue != 0 else { throw DecodingError.malformed("replica 0 is reserved", at: reader.offset) }
        let count = try reader.readVarint("operation count")
        let lamport = try reader.readVarint("lamport time")
        guard id.counter <= UInt64(Int64.max), count <= UInt64(Int64.max) - id.counter else {
            throw DecodingError.malformed("counter range \(id.counter) + \(count) overflows", at: reader.offset)
        }
        let (table, dependencies) = try reader.readReplicaTable(of: id.replica)
        let operationCount = try reader.readCount("operation count", limit: maximumCount, minimumElementSize: 2)
        var operations: [StoreOperation] = []
        operations.reserveCapacity(operationCount)
        for _ in 0..<operationCount {
            let kind = try reader.readByte("operation kind")
            switch kind {
            case Kind.fields:
                let record = try reader.readRecord(in: table)
                let type = try reader.readString("type name", limit: maximumNameLength)
                let valueCount = try reader.readCount("field count", limit: maximumCount, minimumElementSize: 2)
                var values: [String: [UInt8]] = [:]
                for _ in 0..<valueCount {
                    let name = try reader.readString("field name", limit: maximumNameLength)
                    values[name] = Array(try reader.readLengthPrefixed("field value", limit: maximumValueLength))
                }
                operations.append(.fields(record: record, type: type, values: values))
            case Kind.text:
                let text = try readText(&reader, table)
                let bytes = try reader.readLengthPrefixed("text operations", limit: reader.remaining)
                operations.append(.text(text, try TextOperationCoding.decode(Array(bytes), sharing: table, counterBase: id.counter)))
            case Kind.tree:
                operations.append(.tree(try TreeOperation.decode(from: &reader)))
            default:
                throw DecodingError.malformed("unknown operation kind \(kind)", at: reader.offset - 1)
            }
        }
        // What follows the operations is the time (a body that ends there has none); the
        // wire form has nothing after the body, and a log entry ends with it.
        let time = reader.isAtEnd ? 0 : try reader.readVarint("time")
        guard time < maximumTime else { throw DecodingError.malformed("impossible time \(time)", at: reader.offset) }
        return Change(
            id: id, count: count, lamport: lamport, dependencies: VersionVector(dependencies), operations: operations, time: time)
    }

    // MARK: Wire form

    /// Writes the wire form: replica, first counter, body with texts named by ID.
    func encode(into writer: inout ByteWriter) {
        writer.write(replica: id.replica)
        writer.write(varint: id.counter)
        encodeBody(into: &writer) { text, index, writer in
            writer.write(record: text.record, index: index)
            writer.write(string: text.field)
        }
    }

    /// The wire form.
    var encoded: [UInt8] {
        var writer = ByteWriter()
        encode(into: &writer)
        return writer.bytes
    }

    /// Reads the wire form.
    static func decode(from reader: inout ByteReader) throws(StoreError) -> Change {
        let id: ChangeID
        do {
            id = ChangeID(replica: try reader.readReplica("change replica"), counter: try reader.readVarint("first counter"))
        } catch {
            throw .invalidChange("\(error)")
        }
        return try decodeBody(from: &reader, id: id) { reader, table in
            let record = try reader.readRecord(in: table)
            return TextID(record: record, field: try reader.readString("text field name", limit: maximumNameLength))
        }
    }

    /// Reads one change in wire form that fills `bytes`.
    static func decode(_ bytes: [UInt8]) throws(StoreError) -> Change {
        var reader = ByteReader(bytes)
        let change = try decode(from: &reader)
        guard reader.isAtEnd else { throw .invalidChange("\(reader.remaining) bytes after the change") }
        return change
    }
}

extension ByteWriter {
    /// Writes a replica table (its first entry, the writer's own replica, left out) and
    /// dependencies by index into it, as a change body and a run log entry both hold them:
    ///
    /// ```
    /// replicas      n, n × replica (8 bytes LE)   — the table after its first entry
    /// dependencies  k, k × (replica index · counter), by replica
    /// ```
    ///
    /// - Returns: Each replica's index in the table.
    @discardableResult
    mutating func write(replicaTable table: [ReplicaID], dependencies: VersionVector) -> ReplicaIndex {
        let index = ReplicaIndex(table)
        write(varint: UInt64(table.count - 1))
        for replica in table.dropFirst() { write(replica: replica) }
        let dependencies = dependencies.counters.sorted { $0.key < $1.key }
        write(varint: UInt64(dependencies.count))
        for (replica, counter) in dependencies {
            write(varint: UInt64(index[replica]!))
            write(varint: counter)
        }
        return index
    }

    mutating func write(replica: ReplicaID) {
        withUnsafeBytes(of: replica.rawValue.littleEndian) { write(raw: $0) }
    }

    mutating func write(record: RecordID, index: ReplicaIndex) {
        write(varint: UInt64(index[record.replica]!))
        write(varint: record.counter)
    }

    /// A record ID with its full replica ID (outside a change's replica table).
    mutating func write(record: RecordID) {
        write(replica: record.replica)
        write(varint: record.counter)
    }
}

extension ByteReader {
    /// Reads what ``ByteWriter/write(replicaTable:dependencies:)`` wrote for a unit of
    /// `own`, checking that no replica repeats, none is replica 0 and none depends on
    /// `own`.
    mutating func readReplicaTable(of own: ReplicaID) throws(DecodingError) -> (table: [ReplicaID], dependencies: [ReplicaID: UInt64]) {
        let others = try readCount("replica table", limit: Change.maximumCount, minimumElementSize: 8)
        var table = [own]
        for _ in 0..<others {
            let replica = try readReplica("replica")
            guard replica.rawValue != 0, !table.contains(replica) else {
                throw .malformed("replica table repeats \(replica) or names replica 0", at: offset - 8)
            }
            table.append(replica)
        }
        var dependencies: [ReplicaID: UInt64] = [:]
        let dependencyCount = try readCount("dependency count", limit: Change.maximumCount, minimumElementSize: 2)
        for _ in 0..<dependencyCount {
            let replica = try readReplica(in: table, "dependency replica")
            guard replica != own, dependencies[replica] == nil else {
                throw .malformed("duplicate dependency on \(replica)", at: offset)
            }
            dependencies[replica] = try readVarint("dependency counter")
        }
        return (table, dependencies)
    }

    mutating func readReplica(_ what: @autoclosure () -> String) throws(DecodingError) -> ReplicaID {
        let bytes = try readBytes(8, what())
        var value: UInt64 = 0
        for byte in bytes.reversed() { value = value << 8 | UInt64(byte) }
        return ReplicaID(value)
    }

    mutating func readReplica(in table: [ReplicaID], _ what: @autoclosure () -> String) throws(DecodingError) -> ReplicaID {
        let start = offset
        let index = try readVarint(what())
        guard index < UInt64(table.count) else {
            throw .malformed("\(what()) \(index) is not in the change's replica table", at: start)
        }
        return table[Int(index)]
    }

    mutating func readRecord(in table: [ReplicaID]) throws(DecodingError) -> RecordID {
        RecordID(replica: try readReplica(in: table, "record replica"), counter: try readVarint("record counter"))
    }

    /// A record ID with its full replica ID.
    mutating func readRecord() throws(DecodingError) -> RecordID {
        RecordID(replica: try readReplica("record replica"), counter: try readVarint("record counter"))
    }
}
