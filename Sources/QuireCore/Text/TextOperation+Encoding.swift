/// The compact binary form of text operations: what a delta carries.
///
/// ```
/// replicas   varint (n << 1), then n × 8-byte little-endian replica IDs
/// operations varint m, then m × operation
/// operation  flags byte · replica index · counter (signed, from the end of the replica's
///            previous operation) · length · (insertion | deletion)
/// insertion  left origin · right parent · [UTF-8 length, unless ASCII]
/// deletion   target
/// reference  same replica: varint distance back from the operation's counter;
///            other replica: replica index · counter
/// content    the rest: every insertion's UTF-8, concatenated in operation order, exactly
///            the sum of the insertions' UTF-8 lengths
/// ```
///
/// All integers are LEB128 varints. The content is never compressed here: compression is
/// the container's (a delta file deflates its whole payload with zlib), and the core does
/// no I/O and links no C library. The replica count's low bit is reserved: earlier builds
/// set it on a deflated content column, which this one refuses (no store or delta file
/// holds such an encoding: they always share a table, and that form was never deflated).
/// A one-character keystroke encodes in about 20 bytes, the replica table included.
/// Decoding checks every count and length against the bytes that remain, checks the
/// content's size against ``maximumContentLength``, and validates UTF-8; it throws
/// ``TextError/malformed(_:)`` on bad input.
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
        // the replica count's low bit: a deflated content column (earlier builds), refused
        static let deflatedContent: UInt64 = 1
    }

    /// The most UTF-8 bytes of inserted text one encoding may carry: the declared size of
    /// the content column is checked against it before anything is allocated.
    public static let maximumContentLength = 1 << 28

    /// Every replica `operations` name (as authors, origins or targets), in order of
    /// first appearance.
    public static func replicas(in operations: [TextOperation]) -> [ReplicaID] {
        var replicas: [ReplicaID] = []
        addReplicas(of: operations, to: &replicas)
        return replicas
    }

    /// Appends the replicas `operations` name that `table` does not list yet, in order of
    /// first appearance. Few replicas edit one text at a time: a linear search beats
    /// hashing.
    public static func addReplicas(of operations: [TextOperation], to table: inout [ReplicaID]) {
        for operation in operations {
            ReplicaIndex.add(operation.id.replica, to: &table)
            switch operation {
            case .insert(let insertion):
                if let origin = insertion.originLeft { ReplicaIndex.add(origin.replica, to: &table) }
                if let right = insertion.rightParent { ReplicaIndex.add(right.replica, to: &table) }
            case .delete(let deletion):
                ReplicaIndex.add(deletion.target.replica, to: &table)
            }
        }
    }

    /// Encodes `operations`.
    ///
    /// - Parameters:
    ///   - shared: A replica table the reader already has (a change's, say), holding
    ///     every replica the operations name. The encoding then has no header at all, no
    ///     table; `nil` to carry a table. Either way the content is as it is: the
    ///     container compresses, if anything.
    ///   - counterBase: Where counters start from, as the reader will know it (a change's
    ///     first counter, say): each replica's first counter is written relative to it.
    public static func encode(_ operations: [TextOperation], sharing shared: [ReplicaID]? = nil, counterBase: UInt64 = 0) -> [UInt8] {
        var contentBytes = 0
        for case .insert(let insertion) in operations { contentBytes += insertion.bytes.count }
        // A flags byte and up to about eight bytes of numbers per operation, usually fewer.
        var writer = ByteWriter(capacity: 10 + 9 * (shared?.count ?? 1) + 10 * operations.count + contentBytes)
        encode(operations, sharing: shared, counterBase: counterBase, into: &writer)
        return writer.bytes
    }

    /// Appends the encoding of ``encode(_:sharing:counterBase:)`` to `writer`.
    public static func encode(
        _ operations: [TextOperation], sharing shared: [ReplicaID]? = nil, counterBase: UInt64 = 0, into writer: inout ByteWriter
    ) {
        let replicas = shared ?? replicas(in: operations)
        let index = ReplicaIndex(replicas)
        if shared == nil {
            writer.write(varint: UInt64(replicas.count) << 1)
            for replica in replicas {
                writer.write(raw: withUnsafeBytes(of: replica.rawValue.littleEndian) { Array($0) })
            }
        }
        writer.write(varint: UInt64(operations.count))
        // Counters are written relative to where the replica's previous operation ended:
        // runs of one replica usually follow each other, so this is one byte.
        var previousEnd = [UInt64](repeating: counterBase, count: replicas.count)
        for operation in operations {
            let replica = operation.id.replica
            switch operation {
            case .insert(let insertion):
                let originKind = kind(of: insertion.originLeft, replica: replica)
                let rightKind = kind(of: insertion.rightParent, replica: replica)
                let ascii = insertion.bytes.count == insertion.length
                writer.write(byte: originKind << Flag.originShift | rightKind << Flag.rightShift | (ascii ? Flag.ascii : 0))
                writeHeader(operation, index: index, previousEnd: &previousEnd, to: &writer)
                writeReference(insertion.originLeft, kind: originKind, from: insertion.id, index: index, to: &writer)
                writeReference(insertion.rightParent, kind: rightKind, from: insertion.id, index: index, to: &writer)
                if !ascii { writer.write(varint: UInt64(insertion.bytes.count)) }
            case .delete(let deletion):
                let other = deletion.target.replica != replica
                writer.write(byte: Flag.delete | (deletion.goesBackward ? Flag.backward : 0) | (other ? Flag.targetOther : 0))
                writeHeader(operation, index: index, previousEnd: &previousEnd, to: &writer)
                if other {
                    writer.write(varint: UInt64(index[deletion.target.replica] ?? 0))
                    writer.write(varint: deletion.target.counter)
                } else {
                    writer.write(signedVarint: Int64(bitPattern: deletion.id.counter &- deletion.target.counter))
                }
            }
        }
        for case .insert(let insertion) in operations { insertion.bytes.withUnsafeBufferPointer { writer.write(raw: $0) } }
    }

    /// Decodes operations encoded by ``encode(_:sharing:counterBase:)``, with the same
    /// shared table and counter base.
    ///
    /// - Throws: ``TextError/malformed(_:)`` naming the offset and the problem.
    public static func decode(_ bytes: [UInt8], sharing shared: [ReplicaID]? = nil, counterBase: UInt64 = 0) throws(TextError) -> [TextOperation] {
        var reader = ByteReader(bytes)
        do throws(DecodingError) {
            let table = shared == nil ? try reader.readVarint("replica table") : 0
            let replicaCount = Int(truncatingIfNeeded: table >> 1)
            guard table >> 1 <= 1 << 16, replicaCount * 8 <= reader.remaining else {
                throw DecodingError.malformed("replica table of \(table >> 1) entries does not fit", at: 0)
            }
            guard table & Flag.deflatedContent == 0 else {
                throw DecodingError.malformed(
                    "the content column is deflated, as builds before compression moved to the containers wrote it; "
                        + "encode the operations again with this build (encodedOperations(since:))", at: 0)
            }
            var replicas: [ReplicaID] = []
            replicas.reserveCapacity(replicaCount)
            for _ in 0..<replicaCount {
                let raw = try reader.readBytes(8, "replica ID")
                replicas.append(ReplicaID(raw.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
            }
            if let shared { replicas = shared }
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
            var previousEnd = [UInt64](repeating: counterBase, count: replicas.count)
            var byteCounts: [Int] = []
            var contentLength = 0
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
                    var byteCount = length
                    if flags & Flag.ascii == 0 {
                        let start = reader.offset
                        byteCount = try reader.readVarint("UTF-8 length")
                        guard byteCount >= length, byteCount <= 4 * length else {
                            throw DecodingError.malformed("\(byteCount) bytes of UTF-8 cannot hold \(length) characters", at: start)
                        }
                    }
                    contentLength += Int(byteCount)
                    guard contentLength <= maximumContentLength else {
                        throw DecodingError.malformed("inserted text exceeds \(maximumContentLength) bytes", at: lengthStart)
                    }
                    byteCounts.append(Int(byteCount))
                    operations.append(.insert(TextInsertion(
                        id: id, originLeft: originLeft, rightParent: rightParent, utf8: [], length: Int(length))))
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
            try fillContent(of: &operations, byteCounts: byteCounts, total: contentLength, from: &reader)
            return operations
        } catch {
            throw TextError.malformed(error)
        }
    }

    /// Reads the content column — the rest of the input — and gives each insertion its
    /// UTF-8, checking that it is valid and holds the insertion's characters.
    private static func fillContent(
        of operations: inout [TextOperation], byteCounts: [Int], total: Int, from reader: inout ByteReader
    ) throws(DecodingError) {
        let start = reader.offset
        let column = try reader.readBytes(reader.remaining, "content")
        guard column.count == total else {
            throw DecodingError(offset: start, problem: "content is \(column.count) bytes, the insertions need \(total)",
                                endsEarly: column.count < total)
        }
        let content = Array(column)
        let ascii = UTF8Scan.isASCII(content)
        guard ascii || String(validating: content, as: UTF8.self) != nil else {
            throw DecodingError.malformed("inserted text is not UTF-8", at: start)
        }
        var next = 0
        var byteStart = 0
        for index in operations.indices {
            guard case .insert = operations[index] else { continue }
            let count = byteCounts[next], length = operations[index].length
            next += 1
            // The whole is valid UTF-8, so a slice starting on a scalar (the next one does
            // too) is valid; its scalars must be the insertion's length.
            let slice = content[byteStart..<byteStart + count]
            guard ascii ? count == length
                : content[byteStart] & 0xC0 != 0x80 && UTF8Scan.scalarCount(of: slice) == length
            else {
                throw DecodingError.malformed("inserted text is not \(length) characters of UTF-8", at: start)
            }
            // In place: taking the insertion out and putting it back copies and destroys it.
            operations[index].setInsertedBytes(slice.withUnsafeBufferPointer { InsertedBytes($0) })
            byteStart += count
        }
    }

    private static func kind(of reference: OperationID?, replica: ReplicaID) -> UInt8 {
        guard let reference else { return 0 }
        return reference.replica == replica ? 1 : 2
    }

    private static func writeHeader(
        _ operation: TextOperation, index: ReplicaIndex, previousEnd: inout [UInt64], to writer: inout ByteWriter
    ) {
        let position = index[operation.id.replica] ?? 0
        writer.write(varint: UInt64(position))
        writer.write(signedVarint: Int64(bitPattern: operation.id.counter &- previousEnd[position]))
        writer.write(varint: UInt64(operation.length))
        previousEnd[position] = operation.id.counter &+ UInt64(operation.length)
    }

    private static func writeReference(
        _ reference: OperationID?, kind: UInt8, from id: OperationID, index: ReplicaIndex, to writer: inout ByteWriter
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
        TextOperationCoding.encode(operations(since: version), sharing: nil)
    }

    /// Decodes and integrates encoded operations.
    ///
    /// - Returns: The number of operations integrated.
    /// - Throws: ``TextError/malformed(_:)`` before anything is integrated when the bytes
    ///   do not decode; ``TextError/invalidOperation(_:)`` as ``apply(_:)`` does.
    @discardableResult
    public func applyEncoded(_ bytes: [UInt8]) throws(TextError) -> Int {
        try apply(TextOperationCoding.decode(bytes, sharing: nil))
    }
}
