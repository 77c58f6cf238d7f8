import QuireCore

/// A change from another replica on its way in: decoded already (from
/// ``Store/apply(_:)``), or as a delta file carries it, its names still references: a
/// single change or a run of them.
enum IncomingChange: Hashable, Sendable {
    case decoded(Change)
    case delta(DeltaChange)
    case run(DeltaRun)

    var id: ChangeID {
        switch self {
        case .decoded(let change): change.id
        case .delta(let change): change.id
        case .run(let run): run.id
        }
    }

    var count: UInt64 {
        switch self {
        case .decoded(let change): change.count
        case .delta(let change): change.count
        case .run(let run): run.count
        }
    }

    var endCounter: UInt64 { id.counter + count }

    /// The Lamport time of its last change.
    var lamport: UInt64 {
        switch self {
        case .decoded(let change): change.lamport
        case .delta(let change): change.lamport
        case .run(let run): run.lastLamport
        }
    }

    var dependencies: VersionVector {
        switch self {
        case .decoded(let change): change.dependencies
        case .delta(let change): change.dependencies
        case .run(let run): run.dependencies
        }
    }

    /// The change or run with its names resolved through the replica's table as of its
    /// first change, its time from `previousTime` (the replica's previous change's), and
    /// its text operations decoded from the replica's next counter in
    /// each text.
    func resolved(
        with names: ReplicaNames, previousTime: UInt64?, textBase: (TextID) throws(StoreError) -> UInt64
    ) throws(StoreError) -> ChangeUnit {
        switch self {
        case .decoded(let change): return .change(change)
        case .delta(let change): return .change(try change.resolved(with: names, previousTime: previousTime, textBase: textBase))
        case .run(let run): return .run(try run.resolved(with: names, previousTime: previousTime, textBase: textBase))
        }
    }

    // MARK: Pending storage

    private enum Form {
        static let decoded: UInt8 = 0
        static let delta: UInt8 = 1
        static let run: UInt8 = 2
    }

    /// How the `pending` database keeps it: a form byte, then the change. A decoded change
    /// keeps its own wire form (absolute counters, names spelled out): its delta form could
    /// not be compared with another copy of it until its text operations resolve.
    var stored: [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .decoded(let change):
            writer.write(byte: Form.decoded)
            change.encode(into: &writer)
        case .delta(let change):
            writer.write(byte: Form.delta)
            change.encode(into: &writer, sender: nil, last: true)
        case .run(let run):
            writer.write(byte: Form.run)
            writer.write(varint: run.skippedLength)
            run.encode(into: &writer, sender: nil, last: true)
        }
        return writer.bytes
    }

    static func decodeStored(_ bytes: [UInt8]) throws(StoreError) -> IncomingChange {
        guard let form = bytes.first else { throw .invalidChange("an empty pending entry") }
        switch form {
        case Form.decoded:
            return .decoded(try Change.decode(Array(bytes.dropFirst())))
        case Form.delta:
            var reader = ByteReader(Array(bytes.dropFirst()))
            var unused: UInt64 = 0
            do {
                let change = try DeltaChange.decode(from: &reader, sender: nil, nextSenderCounter: &unused, last: true)
                guard reader.isAtEnd else { throw DecodingError.malformed("\(reader.remaining) trailing bytes", at: reader.offset) }
                return .delta(change)
            } catch {
                throw .invalidChange("\(error)")
            }
        case Form.run:
            var reader = ByteReader(Array(bytes.dropFirst()))
            var unused: UInt64 = 0
            do {
                let skipped = try reader.readVarint("skipped length")
                var run = try DeltaRun.decode(from: &reader, sender: nil, nextSenderCounter: &unused, last: true)
                run.skippedLength = skipped
                return .run(run)
            } catch {
                throw .invalidChange("\(error)")
            }
        default:
            throw .invalidChange("unknown pending form \(form)")
        }
    }
}
