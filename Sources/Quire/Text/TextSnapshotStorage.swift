import LMDB
import QuireCore

/// How the `texts` database keeps a text's snapshot: cut into chunks of one LMDB page
/// each, the first under the text's key `(record replica, record counter, field)`, the
/// others under that key plus their index (a 4-byte big-endian integer), so one prefix
/// scan reads them back in order.
///
/// Why chunks: a checkpoint rewrites the snapshots of the texts changed since. One value
/// larger than a page takes contiguous overflow pages, and the pages the previous
/// snapshot freed are never quite enough for the next, larger one, so a long typing
/// session left the file several times larger than what it holds. Pages of one chunk
/// each are reused like any other. A snapshot written whole (stores of format 2) is the
/// one-chunk case and reads the same.
///
/// Beside each snapshot, under the same keys in `text-strings`, are its characters as
/// UTF-8, in chunks too (format 5). Reading a text's string when nothing is logged since
/// the checkpoint — a store opened after it was closed — is then a read of those pages,
/// not the decoding of the text's whole history: what opening a document and showing it
/// costs.
enum TextSnapshotStorage {
    /// The bytes of one chunk: a 4,096-byte page less LMDB's 16-byte page header, so a
    /// chunk fills exactly one overflow page.
    static let chunkBytes = 4_080

    /// The key of chunk `index` of `id`'s snapshot.
    static func chunkKey(_ id: TextID, _ index: Int) -> Key {
        var key = StoreLayout.textKey(id)
        if index > 0 { key.append(UInt32(index)) }
        return key
    }

    /// Adds the writes that replace `id`'s snapshot with that of `text`, and its string,
    /// to `writes`.
    ///
    /// - Returns: The bytes of the snapshot.
    static func write(_ text: ReplicatedText, of id: TextID, into writes: inout DiskWrites, layout: StoreLayout) -> Int {
        let snapshot = text.encodedState()
        writeChunks(snapshot, of: id, into: &writes, database: layout.texts)
        if let strings = layout.textStrings { writeChunks(Array(text.string.utf8), of: id, into: &writes, database: strings) }
        return snapshot.count
    }

    /// `id`'s snapshot, its chunks joined; `nil` when it has none.
    static func read<T: ReadableTransaction & ~Copyable>(_ id: TextID, layout: StoreLayout, in tx: borrowing T) throws -> [UInt8]? {
        try readChunks(of: id, in: layout.texts, tx)
    }

    /// The characters of `id`'s snapshot, or `nil` when the store has none for it (a
    /// snapshot written before format 5, or no snapshot).
    ///
    /// - Throws: ``StoreError/corrupt(database:problem:)`` naming `text-strings` when the
    ///   bytes are not UTF-8.
    static func readString<T: ReadableTransaction & ~Copyable>(_ id: TextID, layout: StoreLayout, in tx: borrowing T) throws -> String? {
        guard let strings = layout.textStrings, let bytes = try readChunks(of: id, in: strings, tx) else { return nil }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw StoreError.corrupt(database: strings.name, problem: "text \(id): the string of its snapshot is not UTF-8")
        }
        return string
    }

    /// Adds the writes that replace `id`'s value in `database` with `bytes`, in chunks.
    private static func writeChunks(_ bytes: [UInt8], of id: TextID, into writes: inout DiskWrites, database: Database) {
        writes.removeAll(.prefix(StoreLayout.textKey(id)), database)  // the old value may have more chunks
        var index = 0
        var start = 0
        repeat {
            let end = min(bytes.count, start + chunkBytes)
            writes.put(Array(bytes[start..<end]), chunkKey(id, index), database)
            index += 1
            start = end
        } while start < bytes.count
    }

    /// `id`'s value in `database`, its chunks joined; `nil` when it has none.
    private static func readChunks<T: ReadableTransaction & ~Copyable>(of id: TextID, in database: Database, _ tx: borrowing T) throws -> [UInt8]? {
        let range = KeyRange.prefix(StoreLayout.textKey(id))
        var size = 0, chunks = 0
        try tx.scan(database, range: range) { _, value in
            size += value.count
            chunks += 1
            return .continue
        }
        guard chunks > 0 else { return nil }
        var joined: [UInt8] = []
        joined.reserveCapacity(size)  // one copy of each chunk, no regrowing
        try tx.scan(database, range: range) { _, value in
            joined.append(contentsOf: value)
            return .continue
        }
        return joined
    }

    /// The text and chunk index a key of the `texts` or `text-strings` database names.
    ///
    /// - Throws: `KeyReader.DecodingError` for a key of another shape.
    static func decodeKey(_ key: some RawBytes) throws(KeyReader.DecodingError) -> (text: TextID, chunk: Int) {
        let bytes = key.withUnsafeBytes { Array($0) }
        var reader = KeyReader(bytes)
        let replica = try reader.read(UInt64.self)
        let counter = try reader.read(UInt64.self)
        let field = try reader.read(String.self)
        var chunk = 0
        if reader.offset < bytes.count { chunk = Int(try reader.read(UInt32.self)) }
        try reader.finish()
        return (TextID(record: RecordID(replica: ReplicaID(replica), counter: counter), field: field), chunk)
    }

    /// Whether the `texts` key `key` is a snapshot's first chunk (one per text).
    static func isFirstChunk(_ key: some RawBytes) -> Bool {
        (try? decodeKey(key).chunk) == 0
    }
}
