import QuireCore

/// The unit of replica exchange: changes one replica sends another, with a header that
/// identifies them and a checksum over everything (`docs/format.md`).
///
/// ```
/// magic      "QD" (0x51 0x44)
/// version    high 4 bits: format version (3; versions 1 and 2 are read too); low 4 bits: flags
///            1 payload deflated · 2 store ID present · 4 sections present · 8 one change
/// store ID   16 bytes, when flagged
/// sender     replica ID, 8 bytes LE
/// first      varint: the sender's first counter in the file; the sender's changes are
///            contiguous from it, in order, and leave out their ID
/// payload    as it is, or (deflated) varint raw length · raw DEFLATE stream (zlib's, level 6)
///              [sections: count · count × (kind · length · bytes)] — readers skip
///              kinds they do not know (version 1 defines none)
///              [unit count, unless one] · units: changes (see DeltaChange) and, from
///              version 2, runs of changes (see DeltaRun); the last unit runs to the end
/// checksum   CRC-32C of everything before it, 4 bytes LE
/// ```
///
/// The version range a file covers: for the sender `first ..< first + its operations`;
/// other replicas' changes carry their own IDs. Decoding checks the checksum first, then
/// every count and length against the bytes left and the limits before allocating. A file
/// whose checksum fails is reported as truncated when its declared lengths run past its
/// end (a file still being synced), and as damaged otherwise.
struct DeltaFile: Hashable, Sendable {
    static let magic: [UInt8] = [0x51, 0x44]
    /// The version written: 2 added runs of changes (``DeltaRun``), 3 wall-clock times
    /// (``DeltaTime``).
    static let formatVersion: UInt8 = 3
    /// The versions read: a version 1 file is a version 2 file without runs, a version 2
    /// file a version 3 file without times.
    static let readableVersions: ClosedRange<UInt8> = 1...3
    /// The largest payload accepted, inflated.
    static let maximumPayload = 1 << 30
    /// Payloads at least this long are deflated when that makes them smaller.
    static let deflateThreshold = 512

    private enum Flag {
        static let deflated: UInt8 = 1
        static let storeID: UInt8 = 2
        static let sections: UInt8 = 4
        static let single: UInt8 = 8
    }

    var storeID: StoreID?
    var sender: ReplicaID
    var senderFirst: UInt64
    /// Single changes and runs of changes.
    var changes: [DeltaUnit]

    /// The file's bytes.
    func encoded() -> [UInt8] {
        var payload = ByteWriter()
        if changes.count != 1 { payload.write(varint: UInt64(changes.count)) }
        for (position, change) in changes.enumerated() {
            change.encode(into: &payload, sender: sender, last: position == changes.count - 1)
        }
        var flags: UInt8 = storeID == nil ? 0 : Flag.storeID
        if changes.count == 1 { flags |= Flag.single }
        var body = payload.bytes
        if body.count >= Self.deflateThreshold, let deflated = RawDeflate.compress(body) {
            var packed = ByteWriter()
            packed.write(varint: UInt64(body.count))
            packed.write(raw: deflated)
            if packed.bytes.count < body.count {
                body = packed.bytes
                flags |= Flag.deflated
            }
        }
        var writer = ByteWriter()
        writer.write(raw: Self.magic)
        writer.write(byte: Self.formatVersion << 4 | flags)
        if let storeID { writer.write(raw: storeID.bytes) }
        writer.write(replica: sender)
        writer.write(varint: senderFirst)
        writer.write(raw: body)
        let checksum = CRC32C.checksum(writer.bytes)
        withUnsafeBytes(of: checksum.littleEndian) { writer.write(raw: $0) }
        return writer.bytes
    }

    /// Reads and checks a delta file.
    ///
    /// - Throws: ``DeltaFileError`` naming what is wrong.
    static func decode(_ bytes: [UInt8]) throws(DeltaFileError) -> DeltaFile {
        guard bytes.count >= 2, Array(bytes[0..<2]) == magic else {
            throw bytes.count < 2 && magic.starts(with: bytes) ? .truncated : .notADeltaFile
        }
        guard bytes.count >= 3 else { throw .truncated }
        let version = bytes[2] >> 4
        guard readableVersions.contains(version) else { throw .unsupportedVersion(Int(version)) }
        let flags = bytes[2] & 0x0F
        guard flags & ~(Flag.deflated | Flag.storeID | Flag.sections | Flag.single) == 0 else {
            throw .malformed("unknown header flags \(flags)")
        }
        let minimum = 3 + (flags & Flag.storeID != 0 ? StoreID.byteCount : 0) + 8 + 1 + 4
        guard bytes.count >= minimum else { throw .truncated }
        let stored = bytes[(bytes.count - 4)...].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let computed = CRC32C.checksum(bytes[..<(bytes.count - 4)])
        guard stored == computed else {
            // A file cut short (still being copied by a sync engine) also fails the
            // checksum; its declared lengths and counts run past the end, so decoding
            // all of it, as if nothing were the checksum, runs out of bytes.
            if endsEarly(content: bytes[3...], version: version, flags: flags)
                || endsInsideChecksum(bytes, version: version, flags: flags) { throw .truncated }
            throw .checksumMismatch(stored: stored, computed: computed)
        }
        do throws(DecodingError) {
            return try decodeContent(bytes[3..<(bytes.count - 4)], version: version, flags: flags)
        } catch {
            throw .malformed(error.description)
        }
    }

    /// Whether `content` (a file's bytes after the magic and version byte) ends before
    /// the lengths and counts it declares: then the file was cut short, not damaged.
    private static func endsEarly(content: ArraySlice<UInt8>, version: UInt8, flags: UInt8) -> Bool {
        let file: DeltaFile
        do throws(DecodingError) {
            file = try decodeContent(content, version: version, flags: flags)
        } catch {
            return error.endsEarly
        }
        // The last text operations of the last unit (of its last change, or a run's joined
        // ones) run to the end of the file; only their own encoding declares how long their
        // content is. Decoded with a counter base far above any real one, so that only
        // their lengths are checked, not their references.
        let encoded: [UInt8], table: [ReplicaID]
        switch file.changes.last {
        case .change(let change)?:
            guard case .text(_, _, let operations)? = change.operations.last else { return false }
            (encoded, table) = (operations, change.table)
        case .run(let run)?:
            (encoded, table) = (run.encoded, run.table)
        case nil:
            return false
        }
        do throws(TextError) {
            _ = try TextOperationCoding.decode(encoded, sharing: table, counterBase: 1 << 48)
            return false
        } catch {
            if case .malformed(let problem) = error { return problem.endsEarly }
            return false
        }
    }

    /// Whether `bytes` is a whole file but for its checksum or the last one to three
    /// bytes of it: the content before the bytes it has of the checksum decodes, and those
    /// bytes are the start of the content's checksum.
    private static func endsInsideChecksum(_ bytes: [UInt8], version: UInt8, flags: UInt8) -> Bool {
        (0...3).contains { present in
            guard bytes.count - present > 3 else { return false }
            let checksum = CRC32C.checksum(bytes[..<(bytes.count - present)]).littleEndian
            guard withUnsafeBytes(of: checksum, { Array($0.prefix(present)) }) == Array(bytes.suffix(present)) else {
                return false
            }
            return (try? decodeContent(bytes[3..<(bytes.count - present)], version: version, flags: flags)) != nil
        }
    }

    /// Decodes the content between the version byte and the checksum of a file of format
    /// `version` (runs need version 2).
    private static func decodeContent(
        _ content: ArraySlice<UInt8>, version: UInt8, flags: UInt8
    ) throws(DecodingError) -> DeltaFile {
        var reader = ByteReader(Array(content))
        do {
            var storeID: StoreID?
            if flags & Flag.storeID != 0 { storeID = StoreID(bytes: Array(try reader.readBytes(StoreID.byteCount, "store ID"))) }
            let sender = try reader.readReplica("sender")
            guard sender.rawValue != 0 else { throw DecodingError.malformed("sender replica 0 is reserved", at: reader.offset - 8) }
            var next = try reader.readVarint("sender's first counter")
            let payloadStart = reader.offset
            var payload = ByteReader(Array(try reader.readBytes(reader.remaining, "payload")))
            if flags & Flag.deflated != 0 {
                let size = try payload.readVarint("payload size")
                guard size <= UInt64(maximumPayload) else {
                    throw DecodingError.malformed("payload of \(size) bytes exceeds the limit \(maximumPayload)", at: payload.offset)
                }
                let streamStart = payloadStart + payload.offset
                let stream = try payload.readBytes(payload.remaining, "deflated payload")
                do throws(DecodingError) {
                    payload = ByteReader(try RawDeflate.decompress(stream, count: Int(size)))
                } catch {
                    throw DecodingError(offset: streamStart + error.offset, problem: "payload: \(error.problem)", endsEarly: error.endsEarly)
                }
            }
            if flags & Flag.sections != 0 {
                // Extensions of later versions; this one defines none, so it skips them all.
                let sections = try payload.readCount("section count", limit: 1 << 16, minimumElementSize: 2)
                for _ in 0..<sections {
                    _ = try payload.readVarint("section kind")
                    _ = try payload.readLengthPrefixed("section")
                }
            }
            let count = flags & Flag.single != 0
                ? 1 : try payload.readCount("change count", limit: Change.maximumCount, minimumElementSize: 3)
            var changes: [DeltaUnit] = []
            changes.reserveCapacity(count)
            for position in 0..<count {
                let unit = try DeltaUnit.decode(from: &payload, sender: sender, nextSenderCounter: &next, last: position == count - 1)
                if case .run = unit, version < 2 {
                    throw DecodingError.malformed("a run of changes in a version \(version) file", at: payload.offset)
                }
                changes.append(unit)
            }
            guard payload.isAtEnd else { throw DecodingError.malformed("\(payload.remaining) bytes after the changes", at: payload.offset) }
            let first = changes.first { $0.id.replica == sender }?.id.counter ?? next
            return DeltaFile(storeID: storeID, sender: sender, senderFirst: first, changes: changes)
        }
    }
}
