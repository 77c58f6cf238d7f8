import QuireCore

/// What every unit of a delta file starts with, a change (``DeltaChange``) or a run
/// (``DeltaRun``): a flags byte, the unit's first ID unless it is the sender's next, its
/// Lamport time relative to that counter, its replica table and its dependencies.
///
/// ```
/// u8      flags: 1 the sender's next (no replica and counter follow), 2 a replica table
///         follows, 4 dependencies follow, 128 a time follows; the other bits are the
///         unit's own
/// replica, varint first counter          (unless flag 1)
/// svarint lamport − first counter
/// time                                   (flag 128, delta format 3: see DeltaTime)
/// varint n, n × replica                  (flag 2: the table beyond the unit's replica)
/// varint n, n × (varint table index, varint counter)   (flag 4)
/// ```
struct DeltaUnitHeader {
    enum Flag {
        static let fromSender: UInt8 = 1
        static let table: UInt8 = 2
        static let dependencies: UInt8 = 4
        static let time: UInt8 = 128
        static let all: UInt8 = 7 | 128
    }

    var id: ChangeID
    var lamport: UInt64
    /// The unit's replica first, then the other replicas its body names by position.
    var table: [ReplicaID]
    var dependencies: [ReplicaID: UInt64]
    /// The wall-clock time of the unit's first change.
    var time: DeltaTime = .unknown
    /// Where the Lamport time was read, for a unit that checks it further.
    var lamportAt = 0

    /// Writes the flags byte (the header's bits and `unitFlags`) and the header.
    ///
    /// - Returns: Each replica's position in the table, for the unit's body.
    func encode(into writer: inout ByteWriter, sender: ReplicaID?, unitFlags: UInt8) -> ReplicaIndex {
        let index = ReplicaIndex(table)
        let dependencies = dependencies.sorted { $0.key < $1.key }
        var flags = unitFlags
        if id.replica == sender { flags |= Flag.fromSender }
        if table.count > 1 { flags |= Flag.table }
        if !dependencies.isEmpty { flags |= Flag.dependencies }
        if time != .unknown { flags |= Flag.time }
        writer.write(byte: flags)
        if id.replica != sender {
            writer.write(replica: id.replica)
            writer.write(varint: id.counter)
        }
        writer.write(signedVarint: Int64(bitPattern: lamport &- id.counter))
        time.encode(into: &writer)
        if table.count > 1 {
            writer.write(varint: UInt64(table.count - 1))
            for replica in table.dropFirst() { writer.write(replica: replica) }
        }
        if !dependencies.isEmpty {
            writer.write(varint: UInt64(dependencies.count))
            for (replica, counter) in dependencies {
                writer.write(varint: UInt64(index[replica]!))
                writer.write(varint: counter)
            }
        }
        return index
    }

    /// Reads the header that follows a flags byte already read.
    ///
    /// - Parameters:
    ///   - unit: `"change"` or `"run"`, for the messages.
    ///   - nextSenderCounter: Where the sender's next unit starts (flag 1).
    static func decode(
        from reader: inout ByteReader, flags: UInt8, flagsAt: Int, unit: String, sender: ReplicaID?,
        nextSenderCounter: UInt64
    ) throws(DecodingError) -> DeltaUnitHeader {
        let id: ChangeID
        if flags & Flag.fromSender != 0 {
            guard let sender else { throw .malformed("a \(unit) from the sender in a file without one", at: flagsAt) }
            id = ChangeID(replica: sender, counter: nextSenderCounter)
        } else {
            id = ChangeID(replica: try reader.readReplica("\(unit) replica"), counter: try reader.readVarint("first counter"))
        }
        guard id.replica.rawValue != 0 else { throw .malformed("replica 0 is reserved", at: flagsAt) }
        let lamportAt = reader.offset
        let (lamport, overflow) = Int64(bitPattern: id.counter).addingReportingOverflow(try reader.readSignedVarint("lamport time"))
        guard !overflow, lamport >= 0 else { throw .malformed("impossible lamport time", at: lamportAt) }
        let time = flags & Flag.time != 0 ? try DeltaTime.decode(from: &reader) : .unknown
        var table = [id.replica]
        if flags & Flag.table != 0 {
            let others = try reader.readCount("replica table", limit: Change.maximumCount, minimumElementSize: 8)
            for _ in 0..<others {
                let replica = try reader.readReplica("replica")
                guard replica.rawValue != 0, !table.contains(replica) else {
                    throw .malformed("replica table repeats \(replica) or names replica 0", at: reader.offset - 8)
                }
                table.append(replica)
            }
        }
        var dependencies: [ReplicaID: UInt64] = [:]
        if flags & Flag.dependencies != 0 {
            let count = try reader.readCount("dependency count", limit: Change.maximumCount, minimumElementSize: 2)
            for _ in 0..<count {
                let replica = try reader.readReplica(in: table, "dependency replica")
                guard replica != id.replica, dependencies[replica] == nil else {
                    throw .malformed("duplicate dependency on \(replica)", at: reader.offset)
                }
                dependencies[replica] = try reader.readVarint("dependency counter")
            }
        }
        return DeltaUnitHeader(id: id, lamport: UInt64(lamport), table: table, dependencies: dependencies, time: time, lamportAt: lamportAt)
    }
}
