/// The compact binary form of text operations: what a delta carries.
///
/// ```
/// replicas   varint n, then n × 8-byte little-endian replica IDs
/// operations varint m, then m × operation
/// operation  flags byte · replica index · counter (signed, from the end of the replica's
///            previous operation) · length · (insertion | deletion)
/// insertion  left origin · right parent · [UTF-8 length, unless ASCII] · UTF-8 bytes
/// deletion   target
/// reference  same replica: varint distance back from the operation's counter;
///            other replica: replica index · counter
/// ```
///
/// All integers are LEB128 varints. A one-character keystroke encodes in about 20 bytes,
/// the replica table included. Decoding checks every count and length against the bytes
/// that remain and validates UTF-8; it throws ``TextError/malformed(_:)`` on bad input.
public enum TextOperationCoding {
    /// The most operations or characters in one decoded operation run.
    public static let maximumRunLength = 1 << 24

    private enum Flag {
        static let delete: UInt8 = 1
        // insertion
        static let originShift: UInt8 = 1  // 2 bits: 0 none, 1 same replica, 2 other replica
        static let rightShift: UInt8 = 3  // 2 bits
        static let ascii: UInt8 = 1 << 5
        // deletion
        static let backward: UInt8 = 1 << 1
        static let targetOther: UInt8 = 1 << 2
    }

    /// Encodes `operations`.
    public static func encode(_ operations: [TextOperation]) -> [UInt8] {
        var replicas: [ReplicaID] = []
        var index: [ReplicaID: Int] = [:]
        func note(_ replica: ReplicaID) {
            if index[replica] == nil {
                index[replica] = replicas.count
                replicas.append(replica)
            }
        }
        for operation in operations {
            note(operation.id.replica)
            switch operation {
            case .insert(let insertion):
                insertion.originLeft.map { note($0.replica) }
                insertion.rightParent.map { note($0.replica) }
            case .delete(let deletion):
                note(deletion.target.replica)
            }
        }
        var writer = ByteWriter()
        writer.write(varint: UInt64(replicas.count))
        for replica in replicas {
            writer.write(raw: withUnsafeBytes(of: replica.rawValue.littleEndian) { Array($0) })
        }
        writer.write(varint: UInt64(operations.count))
        // Counters are written relative to where the replica's previous operation ended:
        // runs of one replica usually follow each other, so this is one byte.
        var previousEnd = [UInt64](repeating: 0, count: replicas.count)
        for operation in operations {
            let replica = operation.id.replica
            switch operation {
            case .insert(let insertion):
                let originKind = kind(of: insertion.originLeft, replica: replica)
                let rightKind = kind(of: insertion.rightParent, replica: replica)
                let ascii = insertion.utf8.count == insertion.length
                writer.write(byte: originKind << Flag.originShift | rightKind << Flag.rightShift | (ascii ? Flag.ascii : 0))
                writeHeader(operation, index: index, previousEnd: &previousEnd, to: &writer)
                writeReference(insertion.originLeft, kind: originKind, from: insertion.id, index: index, to: &writer)
                writeReference(insertion.rightParent, kind: rightKind, from: insertion.id, index: index, to: &writer)
                if !ascii { writer.write(varint: UInt64(insertion.utf8.count)) }
                writer.write(raw: insertion.utf8)
            case .delete(let deletion):
                let other = deletion.target.replica != replica
                writer.write(byte: Flag.delete | (deletion.isBackward ? Flag.backward : 0) | (other ? Flag.targetOther : 0))
                writeHeader(operation, index: index, previousEnd: &previousEnd, to: &writer)
                if other {
                    writer.write(varint: UInt64(index[deletion.target.replica] ?? 0))
                    writer.write(varint: deletion.target.counter)
                } else {
                    writer.write(signedVarint: Int64(bitPattern: deletion.id.counter &- deletion.target.counter))
                }
            }
        }
        return writer.bytes
    }

    /// Decodes operations encoded by ``encode(_:)``.
    ///
    /// - Throws: ``TextError/malformed(_:)`` naming the offset and the problem.
    public static func decode(_ bytes: [UInt8]) throws(TextError) -> [TextOperation] {
        var reader = ByteReader(bytes)
        do throws(DecodingError) {
            let replicaCount = try reader.readCount("replica table", limit: 1 << 16, minimumElementSize: 8)
            var replicas: [ReplicaID] = []
            replicas.reserveCapacity(replicaCount)
            for _ in 0..<replicaCount {
                let raw = try reader.readBytes(8, "replica ID")
                replicas.append(ReplicaID(raw.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
            }
            let count = try reader.readCount("operations", limit: maximumRunLength, minimumElementSize: 4)
            var operations: [TextOperation] = []
            operations.reserveCapacity(count)
            func replicaIndex(_ what: String) throws(DecodingError) -> Int {
                let start = reader.offset
                let position = try reader.readVarint(what)
                guard position < UInt64(replicas.count) else {
                    throw DecodingError.malformed("\(what) \(position) is not in the replica table", at: start)
                }
                return Int(position)
            }
            func replica(_ what: String) throws(DecodingError) -> ReplicaID {
                replicas[try replicaIndex(what)]
            }
            var previousEnd = [UInt64](repeating: 0, count: replicas.count)
            func reference(kind: UInt8, from id: OperationID, _ what: String) throws(DecodingError) -> OperationID? {
                switch kind {
                case 0: return nil
                case 1:
                    let start = reader.offset
                    let distance = try reader.readVarint(what)
                    guard distance >= 1, distance <= id.counter else {
                        throw DecodingError.malformed("\(what) points \(distance) back from counter \(id.counter)", at: start)
                    }
                    return OperationID(replica: id.replica, counter: id.counter - distance)
                case 2: return OperationID(replica: try replica(what), counter: try reader.readVarint(what))
                default: throw DecodingError.malformed("\(what) has reference kind \(kind)", at: reader.offset - 1)
                }
            }
            for _ in 0..<count {
                let flags = try reader.readByte("operation flags")
                let position = try replicaIndex("operation replica")
                let counterStart = reader.offset
                let delta = try reader.readSignedVarint("counter")
                let (counter, overflow) = Int64(bitPattern: previousEnd[position]).addingReportingOverflow(delta)
                guard !overflow, counter >= 0 else {
                    throw DecodingError.malformed("counter \(delta) from \(previousEnd[position]) is impossible", at: counterStart)
                }
                let id = OperationID(replica: replicas[position], counter: UInt64(counter))
                let lengthStart = reader.offset
                let length = try reader.readVarint("length")
                guard length >= 1, length <= UInt64(maximumRunLength) else {
                    throw DecodingError.malformed("operation length \(length) is outside 1...\(maximumRunLength)", at: lengthStart)
                }
                guard id.counter <= UInt64.max - length else {
                    throw DecodingError.malformed("counter \(id.counter) + length overflows", at: lengthStart)
                }
                previousEnd[position] = id.counter + length
                if flags & Flag.delete == 0 {
                    guard flags & ~(Flag.ascii | 0b11110) == 0 else {
                        throw DecodingError.malformed("unknown insertion flags \(flags)", at: reader.offset)
                    }
                    let originLeft = try reference(kind: (flags >> Flag.originShift) & 0b11, from: id, "left origin")
                    let rightParent = try reference(kind: (flags >> Flag.rightShift) & 0b11, from: id, "right parent")
                    let byteCount = flags & Flag.ascii != 0
                        ? Int(length)
                        : try reader.readCount("UTF-8 length", limit: 4 * maximumRunLength)
                    let start = reader.offset
                    let utf8 = Array(try reader.readBytes(byteCount, "inserted text"))
                    guard String(validating: utf8, as: UTF8.self) != nil,
                        UTF8Scan.scalarCount(of: utf8) == Int(length),
                        flags & Flag.ascii == 0 || utf8.allSatisfy({ $0 < 0x80 })
                    else {
                        throw DecodingError.malformed("inserted text is not \(length) characters of UTF-8", at: start)
                    }
                    operations.append(.insert(TextInsertion(
                        id: id, originLeft: originLeft, rightParent: rightParent, utf8: utf8, length: Int(length))))
                } else {
                    guard flags & ~(Flag.delete | Flag.backward | Flag.targetOther) == 0 else {
                        throw DecodingError.malformed("unknown deletion flags \(flags)", at: reader.offset)
                    }
                    let target: OperationID
                    if flags & Flag.targetOther != 0 {
                        target = OperationID(replica: try replica("deletion target"), counter: try reader.readVarint("target"))
                    } else {
                        let start = reader.offset
                        let distance = try reader.readSignedVarint("deletion target")
                        let counter = Int64(bitPattern: id.counter) &- distance
                        guard distance > 0, counter >= 0 else {
                            throw DecodingError.malformed("deletion target \(distance) back from \(id.counter) is impossible", at: start)
                        }
                        target = OperationID(replica: id.replica, counter: UInt64(counter))
                    }
                    let backward = flags & Flag.backward != 0
                    guard !backward || target.counter >= length - 1 else {
                        throw DecodingError.malformed("backward deletion runs before counter 0", at: lengthStart)
                    }
                    operations.append(.delete(TextDeletion(id: id, target: target, length: Int(length), isBackward: backward)))
                }
            }
            guard reader.isAtEnd else {
                throw DecodingError.malformed("\(reader.remaining) unexpected trailing bytes", at: reader.offset)
            }
            return operations
        } catch {
            throw TextError.malformed(error)
        }
    }

    private static func kind(of reference: OperationID?, replica: ReplicaID) -> UInt8 {
        guard let reference else { return 0 }
        return reference.replica == replica ? 1 : 2
    }

    private static func writeHeader(
        _ operation: TextOperation, index: [ReplicaID: Int], previousEnd: inout [UInt64], to writer: inout ByteWriter
    ) {
        let position = index[operation.id.replica] ?? 0
        writer.write(varint: UInt64(position))
        writer.write(signedVarint: Int64(bitPattern: operation.id.counter &- previousEnd[position]))
        writer.write(varint: UInt64(operation.length))
        previousEnd[position] = operation.id.counter &+ UInt64(operation.length)
    }

    private static func writeReference(
        _ reference: OperationID?, kind: UInt8, from id: OperationID, index: [ReplicaID: Int], to writer: inout ByteWriter
    ) {
        guard let reference else { return }
        if kind == 1 {
            writer.write(varint: id.counter &- reference.counter)
        } else {
            writer.write(varint: UInt64(index[reference.replica] ?? 0))
            writer.write(varint: reference.counter)
        }
    }
}

extension ReplicatedText {
    /// The operations a replica at `version` lacks, encoded (see ``TextOperationCoding``).
    public func encodedOperations(since version: VersionVector) -> [UInt8] {
        TextOperationCoding.encode(operations(since: version))
    }

    /// Decodes and integrates encoded operations.
    ///
    /// - Returns: The number of operations integrated.
    /// - Throws: ``TextError/malformed(_:)`` before anything is integrated when the bytes
    ///   do not decode; ``TextError/invalidOperation(_:)`` as ``apply(_:)`` does.
    @discardableResult
    public func applyEncoded(_ bytes: [UInt8]) throws(TextError) -> Int {
        try apply(TextOperationCoding.decode(bytes))
    }
}
