import LMDB
import QuireCore

/// The LMDB databases of a store and how values are laid out in them (`docs/storage.md`).
///
/// | database | key | value |
/// |---|---|---|
/// | `meta` | `"store"` | format version, replica, store ID, Lamport clock, version, last dependencies, checkpoint |
/// | `changes` | `(replica, first counter)` | ``Change`` body, texts named by slot |
/// | `pending` | `(replica, first counter)` | a change waiting for its dependencies (``IncomingChange``) |
/// | `records` | `(record replica, record counter)` | type name and field registers |
/// | `text-slots` | `slot` | the text's ID: the change log names texts by slot |
/// | `names` | `(replica, position)` | first-use counter and a name the replica's changes used (``ReplicaNames``) |
/// | `texts` | `(record replica, record counter, field)` | text state snapshot as of the last checkpoint or later |
/// | `text-strings` | `(record replica, record counter, field)` | the characters of that snapshot, UTF-8 (``TextSnapshotStorage``) |
/// | `tree.*` | see ``TreeStorageLayout`` | the hierarchy |
///
/// A class: every read and write holds the layout, and copying a struct of a dozen
/// database handles cost each `store.read` several hundred instructions.
final class StoreLayout: Sendable {
    /// 2: the hierarchy's compact layout (``TreeStorageLayout/layoutVersion`` 2), and
    /// tree nodes without the type name their records already hold.
    /// 3: change runs in the log (``ChangeUnit``) and text snapshots in chunks
    /// (``TextSnapshotStorage``).
    /// 4: wall-clock times on changes (``Change/time``): at the end of a change's log
    /// entry, in a run entry's head, and each replica's latest in the meta record.
    /// 5: each snapshot's characters in `text-strings`, written with it. An older build
    /// would write snapshots without them and leave the strings stale, so it must refuse
    /// the store; a store of format 4 or older simply has none yet.
    static let formatVersion = 5
    /// Older formats this build reads as they are: everything a format-2 store holds is
    /// valid format 3. The meta record says 3 from its next write, after which an older
    /// build refuses the store instead of misreading a run or a chunked snapshot.
    /// Format 3 entries are format 4 entries without times, and format 4 is format 5
    /// without text strings.
    static let readableFormats: ClosedRange<UInt64> = 2...5

    let meta: Database
    let changes: Database
    let pending: Database
    let records: Database
    let texts: Database
    /// `nil` only when a store of format 4 or older is opened read-only: it has no
    /// `text-strings` database, and a read-only open cannot add one.
    let textStrings: Database?
    let textSlots: Database
    let names: Database
    let tree: TreeStorageLayout

    init(environment: Environment) throws {
        meta = try environment.openDatabase(named: "meta")
        changes = try environment.openDatabase(named: "changes")
        pending = try environment.openDatabase(named: "pending")
        records = try environment.openDatabase(named: "records")
        texts = try environment.openDatabase(named: "texts")
        textStrings = try Self.openTextStrings(in: environment, meta: meta)
        textSlots = try environment.openDatabase(named: "text-slots")
        names = try environment.openDatabase(named: "names")
        tree = try TreeStorageLayout(environment: environment, name: "tree")
    }

    /// Opens `text-strings`, which came with format 5. A store of an older format gets it
    /// here — unless it is opened read-only (`nil`: its texts are read from their
    /// snapshots), or its meta record is one this build refuses (another format, or
    /// damaged), whose file must stay as it was (`nil`, and opening throws).
    private static func openTextStrings(in environment: Environment, meta: Database) throws -> Database? {
        do {
            return try environment.openDatabase(named: "text-strings", options: [])
        } catch let error as LMDBError where error.code == .notFound {
            guard !environment.configuration.readOnly else { return nil }
            // The whole meta record, not just its format: a damaged one fails the open too.
            let opens = try environment.read { tx in
                guard let bytes = try tx.value(forKey: metaKey, in: meta) else { return true }  // a new store
                return (try? StoreMeta.decode(bytes)) != nil
            }
            guard opens else { return nil }
            return try environment.openDatabase(named: "text-strings")
        }
    }

    static let metaKey = Key("store")
    static let nameFieldsKey = Key("name-fields")

    static func encode(nameFields: [String: String]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(varint: UInt64(nameFields.count))
        for type in nameFields.keys.sorted() {
            writer.write(string: type)
            writer.write(string: nameFields[type]!)
        }
        return writer.bytes
    }

    static func decodeNameFields(_ bytes: [UInt8]) throws(DecodingError) -> [String: String] {
        var reader = ByteReader(bytes)
        let count = try reader.readCount("type count", limit: Change.maximumCount, minimumElementSize: 2)
        var result: [String: String] = [:]
        for _ in 0..<count {
            let type = try reader.readString("type name", limit: Change.maximumNameLength)
            result[type] = try reader.readString("name field", limit: Change.maximumNameLength)
        }
        return result
    }

    static func changeKey(_ id: ChangeID) -> Key { Key(id.replica.rawValue, id.counter) }
    /// A record's key, built without an array (a point read looks it up).
    static func recordKey(_ id: RecordID) -> PairKey { PairKey(id.replica.rawValue, id.counter) }
    static func textKey(_ id: TextID) -> Key { Key(id.record.replica.rawValue, id.record.counter, id.field) }
    static func slotKey(_ slot: UInt64) -> Key { Key(slot) }
    static func nameKey(_ replica: ReplicaID, _ position: Int) -> Key { Key(replica.rawValue, UInt64(position)) }

    static func encode(name: String, firstUse: UInt64) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(varint: firstUse)
        writer.write(raw: Array(name.utf8))
        return writer.bytes
    }

    static func decodeName(_ bytes: [UInt8]) throws(DecodingError) -> (name: String, firstUse: UInt64) {
        var reader = ByteReader(bytes)
        let firstUse = try reader.readVarint("first use")
        let utf8 = try reader.readBytes(reader.remaining, "name")
        guard let name = String(validating: utf8, as: UTF8.self) else { throw .malformed("name is not UTF-8", at: 0) }
        return (name, firstUse)
    }

    /// The replicas' name tables stored in `range` of the `names` database — every
    /// replica's, or one replica's with `.prefix(Key(replica.rawValue))` — each checked to
    /// run from position 0 without a gap.
    ///
    /// - Throws: ``StoreError/corrupt(database:problem:)`` for an entry that does not decode.
    func nameTables<T: ReadableTransaction & ~Copyable>(
        in tx: borrowing T, range: KeyRange = .all
    ) throws -> [ReplicaID: ReplicaNames] {
        var tables: [ReplicaID: ReplicaNames] = [:]
        var failure: StoreError?
        try tx.scan(names, range: range) { key, value in
            do throws(DecodingError) {
                guard key.count == 16 else { throw .malformed("name key of \(key.count) bytes", at: 0) }
                let node = TreeStorageLayout.nodeID(fromKey: key)  // (replica, position)
                let (name, firstUse) = try Self.decodeName(Array(value))
                var table = tables[node.replica] ?? ReplicaNames()
                guard table.count == Int(node.counter), table.note(name, firstUsedAt: firstUse) != nil else {
                    throw .malformed("name table of \(node.replica) is not contiguous", at: 0)
                }
                tables[node.replica] = table
            } catch {
                failure = .corrupt(database: names.name, problem: error.description)
                return .stop
            }
            return .continue
        }
        if let failure { throw failure }
        return tables
    }

    /// The change ID a `changes` or `pending` key holds.
    static func changeID(fromKey key: UnsafeRawBufferPointer) -> ChangeID {
        let node = TreeStorageLayout.nodeID(fromKey: key)
        return ChangeID(replica: node.replica, counter: node.counter)
    }

    static func encode(_ text: TextID) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(record: text.record)
        writer.write(string: text.field)
        return writer.bytes
    }

    static func decodeText(_ bytes: [UInt8]) throws(DecodingError) -> TextID {
        var reader = ByteReader(bytes)
        let record = try reader.readRecord()
        let field = try reader.readString("text field name", limit: Change.maximumNameLength)
        guard reader.isAtEnd else { throw .malformed("\(reader.remaining) trailing bytes", at: reader.offset) }
        return TextID(record: record, field: field)
    }
}

/// The store's identity and clocks, kept under ``StoreLayout/metaKey``.
struct StoreMeta: Hashable, Sendable {
    var replica: ReplicaID
    var storeID: StoreID
    /// The highest Lamport time seen.
    var lamport: UInt64
    /// Every replica's next counter, this one's included.
    var version: VersionVector
    /// The other replicas' counters when this replica made its last change: the next
    /// change lists as dependencies only what moved since.
    var lastDependencies: VersionVector
    /// The version at the last checkpoint: every text snapshot holds at least the
    /// operations of the changes before it.
    var checkpoint: VersionVector
    /// What each other replica had seen when it made its latest change applied here: the
    /// union of its changes' dependencies. Tells an update from a concurrent write.
    var seen: [ReplicaID: VersionVector] = [:]
    /// The wall-clock time of each replica's latest change here, when known: a delta
    /// file gives a change's time relative to its replica's previous one (format 4).
    var times: [ReplicaID: UInt64] = [:]

    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.write(varint: UInt64(StoreLayout.formatVersion))
        writer.write(replica: replica)
        writer.write(raw: storeID.bytes)
        writer.write(varint: lamport)
        for vector in [version, lastDependencies, checkpoint] {
            let counters = vector.counters.sorted { $0.key < $1.key }
            writer.write(varint: UInt64(counters.count))
            for (replica, counter) in counters {
                writer.write(replica: replica)
                writer.write(varint: counter)
            }
        }
        writer.write(varint: UInt64(seen.count))
        for (replica, vector) in seen.sorted(by: { $0.key < $1.key }) {
            writer.write(replica: replica)
            let counters = vector.counters.sorted { $0.key < $1.key }
            writer.write(varint: UInt64(counters.count))
            for (other, counter) in counters {
                writer.write(replica: other)
                writer.write(varint: counter)
            }
        }
        writer.write(varint: UInt64(times.count))
        for (replica, time) in times.sorted(by: { $0.key < $1.key }) {
            writer.write(replica: replica)
            writer.write(varint: time)
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(StoreError) -> StoreMeta {
        var reader = ByteReader(bytes)
        let format: UInt64
        do { format = try reader.readVarint("format version") } catch { throw .corrupt(database: "meta", problem: error.description) }
        guard StoreLayout.readableFormats.contains(format) else {
            throw .unsupportedFormat(found: Int(clamping: format), supported: StoreLayout.formatVersion)
        }
        do throws(DecodingError) {
            let replica = try reader.readReplica("replica")
            let storeID = StoreID(bytes: Array(try reader.readBytes(StoreID.byteCount, "store ID")))
            let lamport = try reader.readVarint("lamport")
            func readVector() throws(DecodingError) -> VersionVector {
                let count = try reader.readCount("version entries", limit: Change.maximumCount, minimumElementSize: 9)
                var counters: [ReplicaID: UInt64] = [:]
                for _ in 0..<count {
                    counters[try reader.readReplica("version replica")] = try reader.readVarint("version counter")
                }
                return VersionVector(counters)
            }
            let vectors = [try readVector(), try readVector(), try readVector()]
            var seen: [ReplicaID: VersionVector] = [:]
            let seenCount = try reader.readCount("seen entries", limit: Change.maximumCount, minimumElementSize: 9)
            for _ in 0..<seenCount {
                seen[try reader.readReplica("seen replica")] = try readVector()
            }
            var times: [ReplicaID: UInt64] = [:]
            if format >= 4 {
                let timeCount = try reader.readCount("time entries", limit: Change.maximumCount, minimumElementSize: 9)
                for _ in 0..<timeCount {
                    times[try reader.readReplica("time replica")] = try reader.readVarint("time")
                }
            }
            return StoreMeta(replica: replica, storeID: storeID, lamport: lamport, version: vectors[0], lastDependencies: vectors[1],
                checkpoint: vectors[2], seen: seen, times: times)
        } catch {
            throw .corrupt(database: "meta", problem: error.description)
        }
    }
}

/// The identity of a store's lineage: every replica of one store shares it, so delta
/// files from an unrelated store are refused.
public struct StoreID: Hashable, Sendable, CustomStringConvertible {
    static let byteCount = 16
    /// The 16 random bytes.
    public let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// A new random store ID.
    static func random() -> StoreID {
        var generator = SystemRandomNumberGenerator()
        return StoreID(bytes: (0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Lowercase hexadecimal.
    public var description: String { bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined() }
}

/// A store ID encodes as its 32 lowercase hexadecimal digits (``StoreID/description``).
///
/// ```swift
/// try JSONEncoder().encode(store.storeID)   // "5f0c…" (32 digits)
/// ```
extension StoreID: Codable {
    /// Encodes the ID as 32 lowercase hexadecimal digits.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Decodes the string ``encode(to:)`` writes.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` unless the value is 32 hexadecimal digits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        // Two halves of sixteen digits, each read as a replica ID reads its digits.
        let halves = string.utf8.count == 32
            ? [string.prefix(16), string.suffix(16)].compactMap { ReplicaID(hexadecimal: String($0))?.rawValue }
            : []
        let bytes = halves.flatMap { half in (0..<8).reversed().map { UInt8(truncatingIfNeeded: half >> ($0 * 8)) } }
        guard bytes.count == Self.byteCount else {
            throw Swift.DecodingError.dataCorruptedError(
                in: container, debugDescription: "a store ID is 32 hexadecimal digits, not \(string.debugDescription)")
        }
        self.init(bytes: bytes)
    }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
