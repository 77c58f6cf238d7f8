import LMDB
import QuireCore

/// The named LMDB databases of one persisted tree, and how records are laid out in them.
///
/// | database | key | value |
/// |---|---|---|
/// | `<name>.log` | `(lamport, replica)` | operation, applied flag, node state before it |
/// | `<name>.nodes` | `(node replica, node counter)` | parent, last move, position, metadata |
/// | `<name>.children` | `(parent, position, last move lamport, replica, child)` | empty |
/// | `<name>.meta` | `"state"` | replica, clock, next counter, truncation point |
struct TreeStorageLayout: Sendable {
    let log: Database
    let nodes: Database
    let children: Database
    let meta: Database

    init(environment: Environment, name: String) throws {
        log = try environment.openDatabase(named: name + ".log")
        nodes = try environment.openDatabase(named: name + ".nodes")
        children = try environment.openDatabase(named: name + ".children")
        meta = try environment.openDatabase(named: name + ".meta")
    }

    static let stateKey = Key("state")

    static func logKey(_ timestamp: Timestamp) -> Key {
        Key(timestamp.lamport, timestamp.replica.rawValue)
    }

    static func nodeKey(_ node: NodeID) -> Key {
        Key(node.replica.rawValue, node.counter)
    }

    /// The key of `child` in its parent's ordered children: a prefix scan of
    /// ``childrenPrefix(_:)`` lists them in sibling order.
    static func childKey(_ child: NodeID, _ record: TreeNodeRecord) -> Key {
        Key(record.parent.replica.rawValue, record.parent.counter, record.position.bytes,
            record.lastMove.lamport, record.lastMove.replica.rawValue, child.replica.rawValue, child.counter)
    }

    static func childrenPrefix(_ parent: NodeID) -> Key {
        Key(parent.replica.rawValue, parent.counter)
    }

    // MARK: Records

    static func encode(_ record: TreeNodeRecord, into writer: inout ByteWriter) {
        writer.write(varint: record.parent.replica.rawValue)
        writer.write(varint: record.parent.counter)
        writer.write(varint: record.lastMove.lamport)
        writer.write(varint: record.lastMove.replica.rawValue)
        writer.write(lengthPrefixed: record.position.bytes)
        writer.write(lengthPrefixed: record.metadata)
    }

    static func decodeNode(from reader: inout ByteReader) throws(DecodingError) -> TreeNodeRecord {
        let parent = NodeID(replica: ReplicaID(try reader.readVarint("parent replica")), counter: try reader.readVarint("parent counter"))
        let lastMove = Timestamp(lamport: try reader.readVarint("last move clock"), replica: ReplicaID(try reader.readVarint("last move replica")))
        let position = try reader.readLengthPrefixed("position key", limit: PositionKey.maximumLength)
        let metadata = try reader.readLengthPrefixed("metadata", limit: TreeOperation.maximumMetadataLength)
        return TreeNodeRecord(parent: parent, position: PositionKey(Array(position)), metadata: Array(metadata), lastMove: lastMove)
    }

    static func encode(_ entry: TreeLogRecord) -> [UInt8] {
        var writer = ByteWriter()
        entry.operation.encode(into: &writer)
        writer.write(byte: (entry.applied ? 1 : 0) | (entry.old == nil ? 0 : 2))
        if let old = entry.old { encode(old, into: &writer) }
        return writer.bytes
    }

    static func decodeLogEntry(_ bytes: [UInt8]) throws(DecodingError) -> TreeLogRecord {
        var reader = ByteReader(bytes)
        let operation = try TreeOperation.decode(from: &reader)
        let flags = try reader.readByte("log entry flags")
        guard flags < 4 else { throw DecodingError.malformed("log entry flags \(flags)", at: reader.offset - 1) }
        let old = flags & 2 != 0 ? try decodeNode(from: &reader) : nil
        guard reader.isAtEnd else { throw DecodingError.malformed("\(reader.remaining) trailing bytes", at: reader.offset) }
        return TreeLogRecord(operation: operation, applied: flags & 1 != 0, old: old)
    }

    struct State: Equatable {
        var replica: ReplicaID
        var clock: UInt64
        var nextCounter: UInt64
        var truncatedThrough: Timestamp?
    }

    static func encode(_ state: State) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(byte: 1)  // layout version
        writer.write(varint: state.replica.rawValue)
        writer.write(varint: state.clock)
        writer.write(varint: state.nextCounter)
        if let truncated = state.truncatedThrough {
            writer.write(byte: 1)
            writer.write(varint: truncated.lamport)
            writer.write(varint: truncated.replica.rawValue)
        } else {
            writer.write(byte: 0)
        }
        return writer.bytes
    }

    static func decodeState(_ bytes: [UInt8]) throws(DecodingError) -> State {
        var reader = ByteReader(bytes)
        let version = try reader.readByte("layout version")
        guard version == 1 else { throw DecodingError.malformed("unknown tree layout version \(version)", at: 0) }
        var state = State(
            replica: ReplicaID(try reader.readVarint("replica")), clock: try reader.readVarint("clock"),
            nextCounter: try reader.readVarint("next counter"), truncatedThrough: nil)
        if try reader.readByte("truncation flag") == 1 {
            state.truncatedThrough = Timestamp(lamport: try reader.readVarint("truncation clock"), replica: ReplicaID(try reader.readVarint("truncation replica")))
        }
        return state
    }
}
