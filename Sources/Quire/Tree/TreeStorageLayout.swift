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

    // MARK: Loading and writing

    /// Reads the stored tree, or `nil` when none is stored yet. Nothing is replayed: the
    /// node table and the log are read as they are.
    ///
    /// - Throws: ``TreeStoreError`` for another replica's tree or a damaged record.
    func load<T: ReadableTransaction & ~Copyable>(in tx: borrowing T, replica: ReplicaID, seed: UInt64?) throws -> ReplicatedTree? {
        guard let bytes = try tx.value(forKey: Self.stateKey, in: meta) else { return nil }
        let state = try Self.decoding(meta) { () throws(DecodingError) in try Self.decodeState(bytes) }
        guard state.replica == replica else {
            throw TreeStoreError.replicaMismatch(stored: state.replica, requested: replica)
        }
        var nodeRecords: [(node: NodeID, record: TreeNodeRecord)] = []
        var failure: DecodingError?
        try tx.scan(nodes) { key, value in
            do throws(DecodingError) {
                guard key.count == 16 else { throw DecodingError.malformed("node key of \(key.count) bytes", at: 0) }
                var reader = ByteReader(Array(value))
                nodeRecords.append((Self.nodeID(fromKey: key), try Self.decodeNode(from: &reader)))
            } catch {
                failure = error
                return .stop
            }
            return .continue
        }
        if let failure { throw TreeStoreError.corruptRecord(database: nodes.name, problem: failure.description) }
        var entries: [TreeLogRecord] = []
        try tx.scan(log) { _, value in
            do throws(DecodingError) {
                entries.append(try Self.decodeLogEntry(Array(value)))
            } catch {
                failure = error
                return .stop
            }
            return .continue
        }
        if let failure { throw TreeStoreError.corruptRecord(database: log.name, problem: failure.description) }
        return try ReplicatedTree(
            replica: replica, clock: state.clock, nextCounter: state.nextCounter,
            truncatedThrough: state.truncatedThrough, nodes: nodeRecords, log: entries, seed: seed)
    }

    /// Stores the state record of a new, empty tree.
    func writeInitialState(of tree: ReplicatedTree, in tx: borrowing WriteTransaction) throws {
        let state = State(replica: tree.replica, clock: tree.clock, nextCounter: tree.nextCounter, truncatedThrough: tree.truncatedThrough)
        try tx.put(Self.encode(state), forKey: Self.stateKey, in: meta)
    }

    /// Writes a change session: changed nodes and their children-index entries, new log
    /// entries and the state record. `afterEachRecord` runs after each node or log entry
    /// (tests use it to fail a write half-way).
    func write(
        _ changes: TreeChangeSet, replica: ReplicaID, in tx: borrowing WriteTransaction,
        afterEachRecord: () throws -> Void = {}
    ) throws {
        var writer = ByteWriter()
        for change in changes.nodes {
            if let before = change.before {
                try tx.removeValue(forKey: Self.childKey(change.node, before), in: children)
            }
            if let after = change.after {
                writer = ByteWriter()
                Self.encode(after, into: &writer)
                try tx.put(writer.bytes, forKey: Self.nodeKey(change.node), in: nodes)
                try tx.put([], forKey: Self.childKey(change.node, after), in: children)
            } else {
                try tx.removeValue(forKey: Self.nodeKey(change.node), in: nodes)
            }
            try afterEachRecord()
        }
        for entry in changes.logEntries {
            try tx.put(Self.encode(entry), forKey: Self.logKey(entry.operation.timestamp), in: log)
            try afterEachRecord()
        }
        try tx.put(Self.encode(State(
            replica: replica, clock: changes.clock, nextCounter: changes.nextCounter,
            truncatedThrough: changes.truncatedThrough)), forKey: Self.stateKey, in: meta)
    }

    static func nodeID(fromKey key: UnsafeRawBufferPointer) -> NodeID {
        var replica: UInt64 = 0, counter: UInt64 = 0
        for index in 0..<8 { replica = replica << 8 | UInt64(key[index]) }
        for index in 8..<16 { counter = counter << 8 | UInt64(key[index]) }
        return NodeID(replica: ReplicaID(replica), counter: counter)
    }

    private static func decoding<T>(_ database: Database, _ body: () throws(DecodingError) -> T) throws -> T {
        do { return try body() } catch { throw TreeStoreError.corruptRecord(database: database.name, problem: error.description) }
    }
}
