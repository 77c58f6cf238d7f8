extension TreeOperation {
    /// The largest metadata accepted when decoding, in bytes.
    public static let maximumMetadataLength = 1 << 20

    /// Appends the operation's binary encoding: varints for the IDs and the clock,
    /// length-prefixed position and metadata.
    ///
    /// - Parameter writer: Receives the bytes.
    /// - Complexity: O(size of position and metadata).
    public func encode(into writer: inout ByteWriter) {
        writer.write(varint: id.replica.rawValue)
        writer.write(varint: id.counter)
        writer.write(varint: lamport)
        writer.write(varint: node.replica.rawValue)
        writer.write(varint: node.counter)
        writer.write(varint: parent.replica.rawValue)
        writer.write(varint: parent.counter)
        writer.write(lengthPrefixed: position.bytes)
        writer.write(lengthPrefixed: metadata)
    }

    /// The operation's binary encoding, as ``encode(into:)`` writes it.
    public var encoded: [UInt8] {
        var writer = ByteWriter()
        encode(into: &writer)
        return writer.bytes
    }

    /// Reads an operation written by ``encode(into:)``, checking every length against
    /// the bytes left and the limits (``PositionKey/maximumLength``,
    /// ``maximumMetadataLength``) before allocating.
    ///
    /// ```swift
    /// var reader = ByteReader(bytesFromPeer)
    /// let operation = try TreeOperation.decode(from: &reader)
    /// ```
    ///
    /// - Parameter reader: The input, advanced past the operation.
    /// - Returns: The operation.
    /// - Throws: ``DecodingError`` for truncated, overlong or malformed input.
    /// - Complexity: O(size of the operation).
    public static func decode(from reader: inout ByteReader) throws(DecodingError) -> TreeOperation {
        let replica = ReplicaID(try reader.readVarint("operation replica"))
        let counter = try reader.readVarint("operation counter")
        let lamport = try reader.readVarint("Lamport clock")
        let node = NodeID(replica: ReplicaID(try reader.readVarint("node replica")), counter: try reader.readVarint("node counter"))
        let parent = NodeID(replica: ReplicaID(try reader.readVarint("parent replica")), counter: try reader.readVarint("parent counter"))
        let position = try reader.readLengthPrefixed("position key", limit: PositionKey.maximumLength)
        let metadata = try reader.readLengthPrefixed("metadata", limit: maximumMetadataLength)
        return TreeOperation(
            id: OperationID(replica: replica, counter: counter), lamport: lamport,
            node: node, parent: parent, position: PositionKey(Array(position)), metadata: Array(metadata))
    }
}
