import QuireCore

/// A run's text operations as a delta file encoded them, with the replica table they
/// index: what the log keeps of a run an import brought whole.
struct EncodedRunOperations {
    var table: [ReplicaID]
    var operations: [UInt8]
}

/// The change log's form of a unit: a change as its body (``Change/encodeBody(into:writeText:)``),
/// a run as below. The key holds the replica and first counter in both.
///
/// ```
/// run entry  0 — a change's body starts with its operation count, never 0
///            · [0 · time of the first · time steps: t, t × (step · times)]
///              when the times are known (from store format 4; Σ times = n − 1)
///            · n: changes (never 0) · lamport of the first
///            · lamport steps: p, p × (step − 1 · times)      Σ times = n − 1
///            · lengths: q, q × (length − 1 · times)          Σ times = n
///            · replicas: k, k × replica (8 bytes LE)          index 0, the run's own, not written
///              (ChangeRun.replicaTable, or the table of the delta file that brought the
///              run: any table with the run's own replica first and no repeats reads)
///            · dependencies of the first change: d, d × (replica index · counter)
///            · text (the store's slot number) · first text counter
///            · text operations of all n changes, joined, sharing the replica table,
///              counters from the first text counter (the rest of the entry)
/// ```
///
/// Keystroke autosave logs one change per keystroke, so a durable keystroke writes only
/// its own small entry; each checkpoint folds the changes logged since into runs
/// (``StoreState/foldLoggedChanges(into:)``), and a merge logs a run it integrates as
/// one entry. The log then costs what its operations cost, not LMDB's overhead per entry.
extension ChangeUnit {
    private static let runMarker: UInt8 = 0
    /// After the run marker, where a run's count (never 0) would be: times follow.
    private static let timesMarker: UInt8 = 0

    /// Writes the log entry; `writeText` names the text (by slot). A run's text
    /// operations are `sent` when given: the replica table and operation bytes of the
    /// delta file that brought the run whole (operations encoded from the run's first
    /// text counter, as here), so an import logs a run without encoding it again.
    func encodeLogEntry(
        into writer: inout ByteWriter, sent: EncodedRunOperations? = nil, writeText: (TextID, inout ByteWriter) -> Void
    ) {
        switch self {
        case .change(let change):
            change.encodeBody(into: &writer) { text, _, writer in writeText(text, &writer) }
        case .run(let run):
            let table = sent?.table ?? run.replicaTable
            writer.write(byte: Self.runMarker)
            if run.time > 0 {
                writer.write(byte: Self.timesMarker)
                writer.write(varint: run.time)
                ChangeRun.writeRepeated(run.timeSteps, minimum: 0, into: &writer)
            }
            writer.write(varint: run.count)
            writer.write(varint: run.lamport)
            ChangeRun.writeRepeated(run.lamportSteps, into: &writer)
            ChangeRun.writeRepeated(run.lengths, into: &writer)
            writer.write(replicaTable: table, dependencies: run.dependencies)
            writeText(run.text, &writer)
            let base = run.operations[0].id.counter
            writer.write(varint: base)
            writer.write(raw: sent?.operations ?? TextOperationCoding.encode(run.operations, sharing: table, counterBase: base))
        }
    }

    /// Reads a log entry written by ``encodeLogEntry(into:writeText:)`` that fills `reader`.
    ///
    /// - Throws: ``StoreError/invalidChange(_:)`` naming what does not decode.
    static func decodeLogEntry(
        from reader: inout ByteReader, id: ChangeID, readText: (inout ByteReader, [ReplicaID]) throws -> TextID
    ) throws(StoreError) -> ChangeUnit {
        guard reader.remaining > 0 else { throw .invalidChange("change \(id): an empty log entry") }
        var probe = reader
        guard (try? probe.readByte("entry kind")) == runMarker else {
            let change = try Change.decodeBody(from: &reader, id: id, readText: readText)
            guard reader.isAtEnd else { throw .invalidChange("change \(id): \(reader.remaining) trailing bytes") }
            return .change(change)
        }
        reader = probe
        do {
            let head = try readRunHead(from: &reader, id: id)
            let (table, dependencies) = try reader.readReplicaTable(of: id.replica)
            let text = try readText(&reader, table)
            let base = try reader.readVarint("first text counter")
            let operations = try TextOperationCoding.decode(
                Array(try reader.readBytes(reader.remaining, "text operations")), sharing: table, counterBase: base)
            return .run(try ChangeRun(
                id: id, lamport: head.lamport, lamportSteps: head.steps, lengths: head.lengths, count: head.count,
                dependencies: VersionVector(dependencies), text: text, operations: operations,
                time: head.time, timeSteps: head.timeSteps))
        } catch let error as StoreError {
            throw error
        } catch {
            throw .invalidChange("run \(id): \(error)")
        }
    }

    /// The counter after the entry's last change and that change's Lamport time, read
    /// from the entry's first bytes only (opening reads this of the replica's last entry).
    static func logEntryEnd(_ reader: inout ByteReader, id: ChangeID) throws(DecodingError) -> (end: UInt64, lamport: UInt64) {
        var probe = reader
        guard try probe.readByte("entry kind") == runMarker else {
            let count = try reader.readVarint("operation count")
            return (id.counter + count, try reader.readVarint("lamport time"))
        }
        let head = try readRunHead(from: &probe, id: id)
        return (id.counter + head.count, head.steps.reduce(head.lamport) { $0 + $1.value * $1.times })
    }

    /// The wall-clock time of the entry's change at `counter` (its last when `nil`; 0
    /// unknown): a run's is in its head, so its operations are not decoded; a single
    /// change's is at the end of its body.
    static func logEntryTime(
        _ bytes: [UInt8], id: ChangeID, ofChangeAt counter: UInt64? = nil,
        readText: (inout ByteReader, [ReplicaID]) throws -> TextID
    ) throws(StoreError) -> UInt64 {
        var reader = ByteReader(bytes)
        var probe = reader
        if (try? probe.readByte("entry kind")) == runMarker {
            do {
                let head = try readRunHead(from: &probe, id: id)
                guard head.time > 0 else { return 0 }
                var steps = head.timeSteps
                let before = min(counter.map { $0 - min($0, id.counter) } ?? head.count - 1, head.count - 1)
                return head.time + ChangeRun.dropFirst(before, from: &steps)
            } catch {
                throw .invalidChange("run \(id): \(error)")
            }
        }
        return try decodeLogEntry(from: &reader, id: id, readText: readText).lastTime
    }

    /// Whether the log entry `value` is a run.
    static func isRun(logEntry value: UnsafeRawBufferPointer) -> Bool { value.first == runMarker }

    /// How many changes the log entry `value` holds: 1 for a change, n for a run (0 for
    /// a run whose head does not decode).
    static func changeCount(ofLogEntry value: UnsafeRawBufferPointer) -> Int {
        guard value.first == runMarker else { return 1 }
        var reader = ByteReader(Array(value.dropFirst()))
        return (try? readRunHead(from: &reader, id: ChangeID(replica: ReplicaID(1), counter: 0))).map { Int($0.count) } ?? 0
    }

    /// Reads a run entry's count, Lamport time, steps and lengths (after its marker).
    private static func readRunHead(
        from reader: inout ByteReader, id: ChangeID
    ) throws(DecodingError) -> (
        count: UInt64, lamport: UInt64, steps: [ChangeRun.Repeated], lengths: [ChangeRun.Repeated],
        time: UInt64, timeSteps: [ChangeRun.Repeated]
    ) {
        var time: UInt64 = 0, timeSteps: [ChangeRun.Repeated] = []
        var timed = reader
        let timesAt = reader.offset
        if try timed.readByte("run length") == timesMarker {
            reader = timed
            time = try reader.readVarint("time")
            guard time > 0, time < Change.maximumTime else { throw .malformed("impossible time \(time)", at: timesAt) }
            // The steps' total is checked against the count below, once it is read.
            timeSteps = try ChangeRun.readRepeated(
                from: &reader, total: UInt64(ChangeRun.maximumChanges), limit: Change.maximumTime, minimum: 0,
                what: "time steps", exact: false)
            guard timeSteps.reduce(time, { $0 + $1.value * $1.times }) < Change.maximumTime else {
                throw .malformed("impossible time", at: timesAt)
            }
        }
        let countAt = reader.offset
        let count = try reader.readVarint("run length")
        guard count >= 1, count <= UInt64(ChangeRun.maximumChanges), id.counter <= UInt64(Int64.max) - count else {
            throw .malformed("a run of \(count) changes (1 to \(ChangeRun.maximumChanges))", at: countAt)
        }
        let lamportAt = reader.offset
        let lamport = try reader.readVarint("lamport time")
        // Lamport times stay below 2^62 and lengths below 2^40 per change: no sum overflows.
        guard lamport < 1 << 62 else { throw .malformed("impossible lamport time", at: lamportAt) }
        let steps = try ChangeRun.readRepeated(from: &reader, total: count - 1, limit: 1 << 40, what: "lamport steps")
        let lengths = try ChangeRun.readRepeated(from: &reader, total: count, limit: 1 << 40, what: "lengths")
        guard steps.reduce(lamport, { $0 + $1.value * $1.times }) < 1 << 62 else {
            throw .malformed("impossible lamport time", at: lamportAt)
        }
        guard time == 0 || timeSteps.reduce(0, { $0 + $1.times }) == count - 1 else {
            throw .malformed("time steps for \(timeSteps.reduce(0) { $0 + $1.times }) changes in a run of \(count)", at: timesAt)
        }
        return (count, lamport, steps, lengths, time, timeSteps)
    }
}
