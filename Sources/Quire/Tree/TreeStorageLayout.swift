import LMDB
import QuireCore

/// The named LMDB databases of one persisted tree, and how records are laid out in them
/// (layout version 2; `docs/storage.md`).
///
/// | database | key | value |
/// |---|---|---|
/// | `<name>.log` | `(lamport, replica)` | operation, applied flag, node state before it |
/// | `<name>.nodes` | `(node replica, node counter)`, the counter compact | flags, parent, last move, position, metadata |
/// | `<name>.children` | `(parent, position, last move, child)`, integers compact | empty |
/// | `<name>.meta` | `"state"` | layout version, replica, clock, next counter, truncation point |
///
/// A node's creation, while it is still the node's last move, is not stored in the log:
/// the node record holds all of it (``TreeNodeRecord/lastMoveIsCreation``), and loading
/// puts it back. So a node never moved costs one node record and one index entry.
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
    /// 2: compact node records and children keys, creations kept in their node records.
    static let layoutVersion: UInt8 = 2

    static func logKey(_ timestamp: Timestamp) -> Key {
        Key(timestamp.lamport, timestamp.replica.rawValue)
    }

    /// A node's key in `<name>.nodes`: its replica, then its counter compact.
    static func nodeKey(_ node: NodeID) -> Key {
        Key(node.replica.rawValue, CompactInteger(node.counter))
    }

    /// The node a `<name>.nodes` key names.
    static func node(fromNodeKey key: some RawBytes) throws(DecodingError) -> NodeID {
        var reader = KeyReader(key)
        do throws(KeyReader.DecodingError) {
            let node = NodeID(replica: ReplicaID(try reader.read(UInt64.self)), counter: try reader.read(CompactInteger.self).value)
            try reader.finish()
            return node
        } catch {
            throw .malformed("node key: \(error.description)", at: error.offset)
        }
    }

    /// The key of `child` in its parent's ordered children: a prefix scan of
    /// ``childrenPrefix(_:)`` lists them in sibling order (position, then last move).
    /// The last move is unique, so the child only follows it: its counter, then `0` when
    /// its replica is the last move's (the usual case) or `1` and the replica.
    static func childKey(_ child: NodeID, _ record: TreeNodeRecord) -> Key {
        var key = Key(
            record.parent.replica.rawValue, CompactInteger(record.parent.counter), record.position.bytes,
            CompactInteger(record.lastMove.lamport), record.lastMove.replica.rawValue, CompactInteger(child.counter))
        if child.replica == record.lastMove.replica {
            key.append(UInt8(0))
        } else {
            key.append(UInt8(1))
            key.append(child.replica.rawValue)
        }
        return key
    }

    static func childrenPrefix(_ parent: NodeID) -> Key {
        Key(parent.replica.rawValue, CompactInteger(parent.counter))
    }

    /// The parent, child, position key and last move a children-index key names.
    static func decodeChildKey(
        _ key: some RawBytes
    ) throws(KeyReader.DecodingError) -> (parent: NodeID, child: NodeID, position: PositionKey, lastMove: Timestamp) {
        var reader = KeyReader(key)
        let parent = NodeID(replica: ReplicaID(try reader.read(UInt64.self)), counter: try reader.read(CompactInteger.self).value)
        let position = PositionKey(try reader.read([UInt8].self))
        let lamport = try reader.read(CompactInteger.self).value
        let moveReplica = try reader.read(UInt64.self)
        let counter = try reader.read(CompactInteger.self).value
        let replica: UInt64
        switch try reader.read(UInt8.self) {
        case 0: replica = moveReplica
        case 1: replica = try reader.read(UInt64.self)
        case let marker: throw KeyReader.DecodingError(offset: reader.offset - 1, problem: "child replica marker \(marker)")
        }
        try reader.finish()
        return (parent, NodeID(replica: ReplicaID(replica), counter: counter), position,
                Timestamp(lamport: lamport, replica: ReplicaID(moveReplica)))
    }

    /// The child a children-index key names, read in place — no copy of the key, no
    /// position key made: listing a large folder decodes one key per child.
    ///
    /// - Throws: For a key that does not parse (checks bounds and the child-replica
    ///   marker; ``decodeChildKey(_:)`` checks the rest).
    static func child(fromChildKey key: UnsafeRawBufferPointer) throws(KeyReader.DecodingError) -> NodeID {
        var offset = 8  // the parent's replica
        func fail(_ problem: String) -> KeyReader.DecodingError { KeyReader.DecodingError(offset: offset, problem: problem) }
        func compact() throws(KeyReader.DecodingError) -> UInt64 {
            guard offset < key.count else { throw fail("key ends before a compact integer") }
            let length = Int(key[offset])
            guard length <= 8, offset + 1 + length <= key.count else { throw fail("compact integer of \(length) bytes") }
            var value: UInt64 = 0
            for index in (offset + 1)..<(offset + 1 + length) { value = value << 8 | UInt64(key[index]) }
            offset += 1 + length
            return value
        }
        func fixed() throws(KeyReader.DecodingError) -> UInt64 {
            guard offset + 8 <= key.count else { throw fail("key ends inside a replica") }
            var value: UInt64 = 0
            for index in offset..<(offset + 8) { value = value << 8 | UInt64(key[index]) }
            offset += 8
            return value
        }
        guard key.count >= 8 else { throw fail("key of \(key.count) bytes") }
        _ = try compact()  // the parent's counter
        // The position key: escaped bytes up to the terminator 0x00 0x01.
        while true {
            guard offset + 1 < key.count else { throw fail("position key has no terminator") }
            if key[offset] != 0 {
                offset += 1
            } else if key[offset + 1] == 0x01 {
                offset += 2
                break
            } else {
                guard key[offset + 1] == 0xFF else { throw fail("invalid escape in the position key") }
                offset += 2
            }
        }
        _ = try compact()  // the last move's clock
        let moveReplica = try fixed()
        let counter = try compact()
        guard offset < key.count else { throw fail("key ends before the child replica marker") }
        let marker = key[offset]
        offset += 1
        let replica: UInt64
        switch marker {
        case 0: replica = moveReplica
        case 1: replica = try fixed()
        default: throw fail("child replica marker \(marker)")
        }
        guard offset == key.count else { throw fail("\(key.count - offset) trailing bytes") }
        return NodeID(replica: ReplicaID(replica), counter: counter)
    }

    // MARK: Records

    /// The flags of a node record.
    private enum NodeFlag {
        /// The parent's replica is the node's (not written).
        static let parentReplicaIsNodes: UInt8 = 1
        /// The last move's replica is the node's (not written).
        static let moveReplicaIsNodes: UInt8 = 2
        /// The last move is the node's creation, whose log entry is this record.
        static let lastMoveIsCreation: UInt8 = 4
        /// Metadata follows (otherwise it is empty, as for a store's records).
        static let hasMetadata: UInt8 = 8
        static let all: UInt8 = 15
    }

    /// A node record: flags, then the parent, the last move, the position and the
    /// metadata; a replica equal to the node's own, and empty metadata, are left out.
    static func encode(_ record: TreeNodeRecord, of node: NodeID, into writer: inout ByteWriter) {
        var flags: UInt8 = 0
        if record.parent.replica == node.replica { flags |= NodeFlag.parentReplicaIsNodes }
        if record.lastMove.replica == node.replica { flags |= NodeFlag.moveReplicaIsNodes }
        if record.lastMoveIsCreation { flags |= NodeFlag.lastMoveIsCreation }
        if !record.metadata.isEmpty { flags |= NodeFlag.hasMetadata }
        writer.write(byte: flags)
        if record.parent.replica != node.replica { writer.write(varint: record.parent.replica.rawValue) }
        writer.write(varint: record.parent.counter)
        writer.write(varint: record.lastMove.lamport)
        if record.lastMove.replica != node.replica { writer.write(varint: record.lastMove.replica.rawValue) }
        writer.write(lengthPrefixed: record.position.bytes)
        if !record.metadata.isEmpty { writer.write(lengthPrefixed: record.metadata) }
    }

    static func decodeNode(_ node: NodeID, from reader: inout ByteReader) throws(DecodingError) -> TreeNodeRecord {
        let flags = try reader.readByte("node flags")
        guard flags & ~NodeFlag.all == 0 else { throw .malformed("node flags \(flags)", at: reader.offset - 1) }
        let parentReplica = flags & NodeFlag.parentReplicaIsNodes != 0 ? node.replica : ReplicaID(try reader.readVarint("parent replica"))
        let parent = NodeID(replica: parentReplica, counter: try reader.readVarint("parent counter"))
        let lamport = try reader.readVarint("last move clock")
        let moveReplica = flags & NodeFlag.moveReplicaIsNodes != 0 ? node.replica : ReplicaID(try reader.readVarint("last move replica"))
        let position = try reader.readLengthPrefixed("position key", limit: PositionKey.maximumLength)
        let metadata = flags & NodeFlag.hasMetadata != 0
            ? try reader.readLengthPrefixed("metadata", limit: TreeOperation.maximumMetadataLength) : []
        let isCreation = flags & NodeFlag.lastMoveIsCreation != 0
        guard !isCreation || moveReplica == node.replica else {
            throw .malformed("a node's creation by another replica", at: 0)
        }
        return TreeNodeRecord(
            parent: parent, position: PositionKey(Array(position)), metadata: Array(metadata),
            lastMove: Timestamp(lamport: lamport, replica: moveReplica), lastMoveIsCreation: isCreation)
    }

    /// The node state before an operation, inside its log entry: as a node record
    /// without flags, replicas written.
    static func encodeStateBefore(_ record: TreeNodeRecord, into writer: inout ByteWriter) {
        writer.write(varint: record.parent.replica.rawValue)
        writer.write(varint: record.parent.counter)
        writer.write(varint: record.lastMove.lamport)
        writer.write(varint: record.lastMove.replica.rawValue)
        writer.write(lengthPrefixed: record.position.bytes)
        writer.write(lengthPrefixed: record.metadata)
    }

    static func decodeStateBefore(from reader: inout ByteReader) throws(DecodingError) -> TreeNodeRecord {
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
        if let old = entry.old { encodeStateBefore(old, into: &writer) }
        return writer.bytes
    }

    static func decodeLogEntry(_ bytes: [UInt8]) throws(DecodingError) -> TreeLogRecord {
        var reader = ByteReader(bytes)
        let operation = try TreeOperation.decode(from: &reader)
        let flags = try reader.readByte("log entry flags")
        guard flags < 4 else { throw DecodingError.malformed("log entry flags \(flags)", at: reader.offset - 1) }
        let old = flags & 2 != 0 ? try decodeStateBefore(from: &reader) : nil
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
        writer.write(byte: Self.layoutVersion)
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
        guard version == Self.layoutVersion else {
            throw DecodingError.malformed(
                "tree layout version \(version), this build reads version \(Self.layoutVersion)"
                    + (version == 1 ? " (layout 1 is from before compact node records; export the store with the Quire that wrote it and import it into a new one)" : ""),
                at: 0)
        }
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
                var reader = ByteReader(Array(value))
                let node = try Self.node(fromNodeKey: key)
                nodeRecords.append((node, try Self.decodeNode(node, from: &reader)))
            } catch {
                failure = error
                return .stop
            }
            return .continue
        }
        if let failure { throw TreeStoreError.corruptRecord(database: nodes.name, problem: failure.description) }
        var stored: [TreeLogRecord] = []
        try tx.scan(log) { _, value in
            do throws(DecodingError) {
                stored.append(try Self.decodeLogEntry(Array(value)))
            } catch {
                failure = error
                return .stop
            }
            return .continue
        }
        if let failure { throw TreeStoreError.corruptRecord(database: log.name, problem: failure.description) }
        let entries = Self.mergingCreations(of: nodeRecords, into: stored, after: state.truncatedThrough)
        return try ReplicatedTree(
            replica: replica, clock: state.clock, nextCounter: state.nextCounter,
            truncatedThrough: state.truncatedThrough, nodes: nodeRecords, log: entries, seed: seed)
    }

    /// The whole log, in timestamp order: the stored entries and the creations their
    /// node records hold (those after the truncation point; a stored copy wins).
    static func mergingCreations(
        of nodes: [(node: NodeID, record: TreeNodeRecord)], into stored: [TreeLogRecord], after truncation: Timestamp?
    ) -> [TreeLogRecord] {
        var creations = nodes.compactMap { node, record -> TreeLogRecord? in
            guard record.lastMoveIsCreation, truncation.map({ record.lastMove > $0 }) ?? true else { return nil }
            return record.creationEntry(of: node)
        }
        guard !creations.isEmpty else { return stored }
        creations.sort { $0.operation.timestamp < $1.operation.timestamp }
        var merged: [TreeLogRecord] = []
        merged.reserveCapacity(stored.count + creations.count)
        var next = 0
        for entry in stored {
            let timestamp = entry.operation.timestamp
            while next < creations.count, creations[next].operation.timestamp < timestamp {
                merged.append(creations[next])
                next += 1
            }
            if next < creations.count, creations[next].operation.timestamp == timestamp { next += 1 }
            merged.append(entry)
        }
        merged += creations[next...]
        return merged
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
        // Creations that stay in their node records: their log entries are not stored.
        var heldByRecords = Set<Timestamp>()
        for change in changes.nodes {
            if let before = change.before {
                try tx.removeValue(forKey: Self.childKey(change.node, before), in: children)
                if before.lastMoveIsCreation {
                    // The node moves on from its creation: the record no longer holds it.
                    try tx.put(Self.encode(before.creationEntry(of: change.node)), forKey: Self.logKey(before.lastMove), in: log)
                }
            }
            if let after = change.after {
                writer = ByteWriter()
                Self.encode(after, of: change.node, into: &writer)
                try tx.put(writer.bytes, forKey: Self.nodeKey(change.node), in: nodes)
                try tx.put([], forKey: Self.childKey(change.node, after), in: children)
                if after.lastMoveIsCreation {
                    heldByRecords.insert(after.lastMove)
                    // Back at its creation (a later move undone): drop a stored copy.
                    if change.before != nil { try tx.removeValue(forKey: Self.logKey(after.lastMove), in: log) }
                }
            } else {
                try tx.removeValue(forKey: Self.nodeKey(change.node), in: nodes)
            }
            try afterEachRecord()
        }
        for entry in changes.logEntries where !heldByRecords.contains(entry.operation.timestamp) {
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
