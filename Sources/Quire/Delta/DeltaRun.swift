import QuireCore

/// Consecutive changes of one replica to one text, each depending only on its
/// predecessor (keystroke autosave makes them), as a delta file carries them: one unit
/// with the changes' text operations joined, their counters implicit (one per change),
/// their Lamport times and lengths run-length coded, and one text reference.
///
/// ```
/// run        flags (64 | 1 from the sender | 2 replica table | 4 dependencies)
///            · [replica (8 bytes LE) · first counter]        unless from the sender
///            · lamport of the first change − first counter (signed)
///            · [time of the first change (see DeltaTime)]    if flagged (128)
///            · [replicas], [dependencies of the first change] as in a change
///            · n: changes (2 ... maximumChanges); change k has counter first + k
///            · lamport steps: p, p × (step − 1 · times)      Σ times = n − 1
///            · lengths: q, q × (length − 1 · times)          Σ times = n; counters of
///                                                              text each change takes
///            · [time steps: t, t × (step · times)]           if flagged; Σ times = n − 1
///            · record · name (field)
///            · text operations of all n changes, joined (see TextOperation.concatenated),
///              sharing the replica table, counters from the replica's next counter in
///              the text; length-prefixed unless the run ends its file
/// ```
///
/// Every change of a run keeps its ID, its Lamport time and its dependencies (the first
/// change's; the others have none beyond their predecessor): ``resolved(with:textBase:)``
/// gives them back one by one, and the joined operations to integrate in one step.
struct DeltaRun: Hashable, Sendable {
    static var maximumChanges: Int { ChangeRun.maximumChanges }

    typealias Repeated = ChangeRun.Repeated

    /// The first change.
    var id: ChangeID
    /// The Lamport time of the first change.
    var lamport: UInt64
    /// The increases of the Lamport time from each change to the next (`count − 1`).
    var lamportSteps: [Repeated]
    /// When the first change was made, as sent, and the increases of the time from each
    /// change to the next (`count − 1`; empty when the time is unknown).
    var time: DeltaTime = .unknown
    var timeSteps: [Repeated] = []
    /// The counters of text each change takes (`count` of them).
    var lengths: [Repeated]
    /// The number of changes.
    var count: UInt64
    /// The first change's dependencies.
    var dependencies: VersionVector
    /// The replicas the run refers to by index, its own first.
    var table: [ReplicaID]
    var record: RecordID
    var field: NameReference
    /// The joined text operations, encoded: decoded when applied.
    var encoded: [UInt8]
    /// Counters of text at the start of ``encoded`` that belong to changes the receiver
    /// had already when the run was trimmed (see ``trimmed(toStartAt:)``); 0 as sent.
    var skippedLength: UInt64 = 0

    var endCounter: UInt64 { id.counter + count }

    /// The Lamport time of the last change.
    var lastLamport: UInt64 { lamportSteps.reduce(lamport) { $0 + $1.value * $1.times } }

    init(
        id: ChangeID, lamport: UInt64, lamportSteps: [Repeated], lengths: [Repeated], count: UInt64,
        dependencies: VersionVector, table: [ReplicaID], record: RecordID, field: NameReference, encoded: [UInt8]
    ) {
        self.id = id
        self.lamport = lamport
        self.lamportSteps = lamportSteps
        self.lengths = lengths
        self.count = count
        self.dependencies = dependencies
        self.table = table
        self.record = record
        self.field = field
        self.encoded = encoded
    }

    // MARK: From changes

    /// `units` (as a delta file lists them: the log's changes and runs) joined into the
    /// longest runs and single changes, each unit's time a step from its replica's
    /// previous change: the previous unit's, or for a replica's first unit, what
    /// `timeBefore` says of the change before it.
    static func units(
        of units: [ChangeUnit], names: (ReplicaID) -> ReplicaNames?, timeBefore: (ChangeID) -> UInt64?
    ) -> [DeltaUnit] {
        var previous: [ReplicaID: UInt64?] = [:]
        return ChangeRun.units(of: units).map { unit in
            let replica = unit.id.replica
            let before = previous[replica] ?? timeBefore(unit.id)
            previous[replica] = unit.lastTime
            switch unit {
            case .change(let change): return .change(DeltaChange(change, names: names(replica), previousTime: before))
            case .run(let run): return .run(DeltaRun(run, names: names(replica), previousTime: before))
            }
        }
    }

    /// The wire form of `run`, its field name referenced through `names`, the replica's
    /// table, when it was in use before the run, and its time as a step from
    /// `previousTime` (its replica's previous change's; `nil` when unknown).
    init(_ run: ChangeRun, names: ReplicaNames?, previousTime: UInt64?) {
        time = DeltaTime(run.time, previous: previousTime)
        timeSteps = run.time > 0 ? run.timeSteps : []
        id = run.id
        lamport = run.lamport
        count = run.count
        dependencies = run.dependencies
        record = run.text.record
        if let names, let position = names.position(of: run.text.field), names.firstUse(at: position) < run.id.counter {
            field = .position(position)
        } else {
            field = .spelled(run.text.field)
        }
        lamportSteps = run.lamportSteps
        lengths = run.lengths
        table = run.replicaTable
        encoded = TextOperationCoding.encode(run.operations, sharing: table, counterBase: run.operations[0].id.counter)
    }

    // MARK: Trimming and resolving

    /// The run without its changes before `counter` (which the receiver has already).
    ///
    /// - Precondition: `id.counter < counter < endCounter`.
    func trimmed(toStartAt counter: UInt64) -> DeltaRun {
        var run = self
        let dropped = counter - id.counter
        run.skippedLength += ChangeRun.dropFirst(dropped, from: &run.lengths)
        run.lamport += ChangeRun.dropFirst(dropped, from: &run.lamportSteps)
        // The receiver has the dropped changes: the first one kept is a step after the
        // last dropped one.
        let before = ChangeRun.dropFirst(dropped - 1, from: &run.timeSteps)
        let step = ChangeRun.dropFirst(1, from: &run.timeSteps)
        switch time {
        case .unknown: break
        case .absolute(let first): run.time = .absolute(first + before + step)
        case .after: run.time = .after(step)
        }
        run.id.counter = counter
        run.count -= dropped
        run.dependencies = VersionVector()  // the first change's, already met
        return run
    }

    /// The run as the receiver has it: names looked up in `names` (the replica's table),
    /// operations decoded from `textBase` (the replica's next counter in the text, as the
    /// receiver has it).
    ///
    /// - Throws: ``StoreError/invalidChange(_:)`` for a name the table does not have, or
    ///   operations that do not decode or do not add up to the run's lengths.
    func resolved(
        with names: ReplicaNames, previousTime: UInt64?, textBase: (TextID) throws(StoreError) -> UInt64
    ) throws(StoreError) -> ChangeRun {
        let text = try textID(names: names)
        let next = try textBase(text)
        guard next >= skippedLength else {
            throw .invalidChange("run \(id), text \(text): starts before the replica's first operation there")
        }
        return try resolved(text: text, base: next - skippedLength, previousTime: previousTime)
    }

    /// The text the run edits, its field name looked up in `names` (the replica's table).
    ///
    /// - Throws: ``StoreError/invalidChange(_:)`` for a position the table does not have.
    func textID(names: ReplicaNames) throws(StoreError) -> TextID {
        switch field {
        case .spelled(let name):
            return TextID(record: record, field: name)
        case .position(let position):
            guard position < names.count else {
                throw .invalidChange("run \(id) refers to name \(position), but replica \(id.replica) has used only \(names.count) names")
            }
            return TextID(record: record, field: names[position])
        }
    }

    /// The run, its text `text`, its operations decoded from `base` (where its first
    /// change's operations start, skipped ones included) and its time from
    /// `previousTime` (the receiver's time of the replica's previous change).
    func resolved(text: TextID, base: UInt64, previousTime: UInt64?) throws(StoreError) -> ChangeRun {
        var operations: [TextOperation]
        do {
            operations = try TextOperationCoding.decode(encoded, sharing: table, counterBase: base)
        } catch {
            throw .invalidChange("run \(id), text \(text): \(error)")
        }
        guard let first = operations.first, first.id == OperationID(replica: id.replica, counter: base) else {
            throw .invalidChange("run \(id), text \(text): its operations do not start at \(id.replica)@\(base)")
        }
        if skippedLength > 0 {
            let total = operations.reduce(0) { $0 + UInt64($1.length) }
            guard total > skippedLength, let parts = TextOperation.split(operations, lengths: [skippedLength, total - skippedLength]) else {
                throw .invalidChange("run \(id), text \(text): operations of \(total) counters, \(skippedLength) of them skipped")
            }
            operations = parts[1]
        }
        let time = time.resolved(previous: previousTime)
        return try ChangeRun(
            id: id, lamport: lamport, lamportSteps: lamportSteps, lengths: lengths, count: count,
            dependencies: dependencies, text: text, operations: operations,
            time: time, timeSteps: time > 0 ? timeSteps : [])
    }

    // MARK: Encoding

    private enum Flag {
        // Bits 1, 2 and 4 are the header's (DeltaUnitHeader.Flag).
        static let run: UInt8 = 64
    }

    /// Whether a unit starting with `flags` is a run.
    static func isRun(flags: UInt8) -> Bool { flags & Flag.run != 0 }

    /// Writes the run (see the type's documentation); a run of `sender` leaves out its
    /// replica and first counter.
    func encode(into writer: inout ByteWriter, sender: ReplicaID?, last: Bool) {
        let index = DeltaUnitHeader(id: id, lamport: lamport, table: table, dependencies: dependencies.counters, time: time)
            .encode(into: &writer, sender: sender, unitFlags: Flag.run)
        writer.write(varint: count)
        ChangeRun.writeRepeated(lamportSteps, into: &writer)
        ChangeRun.writeRepeated(lengths, into: &writer)
        if time != .unknown { ChangeRun.writeRepeated(timeSteps, minimum: 0, into: &writer) }
        writer.write(record: record, index: index)
        writer.write(name: field)
        if last {
            writer.write(raw: encoded)
        } else {
            writer.write(lengthPrefixed: encoded)
        }
    }

    /// Reads a run written by ``encode(into:sender:last:)``, checking every count and
    /// length against the bytes left and the limits before allocating.
    static func decode(
        from reader: inout ByteReader, sender: ReplicaID?, nextSenderCounter: inout UInt64, last: Bool
    ) throws(DecodingError) -> DeltaRun {
        let flagsAt = reader.offset
        let flags = try reader.readByte("run flags")
        guard flags & ~(Flag.run | DeltaUnitHeader.Flag.all) == 0 else {
            throw .malformed("unknown run flags \(flags)", at: flagsAt)
        }
        let header = try DeltaUnitHeader.decode(
            from: &reader, flags: flags, flagsAt: flagsAt, unit: "run", sender: sender, nextSenderCounter: nextSenderCounter)
        let (id, lamport, table, dependencies, lamportAt) = (header.id, header.lamport, header.table, header.dependencies, header.lamportAt)
        guard id.counter <= UInt64(Int64.max) else { throw .malformed("impossible lamport time", at: lamportAt) }
        let countAt = reader.offset
        let count = try reader.readVarint("run length")
        guard count >= 2, count <= UInt64(maximumChanges) else {
            throw .malformed("a run of \(count) changes (2 to \(maximumChanges))", at: countAt)
        }
        guard id.counter <= UInt64(Int64.max) - count else { throw .malformed("counter range of run \(id) overflows", at: countAt) }
        // Lamport times stay below 2^62 and lengths below 2^40 per change: no sum overflows.
        let steps = try ChangeRun.readRepeated(from: &reader, total: count - 1, limit: 1 << 40, what: "lamport steps")
        let lengths = try ChangeRun.readRepeated(from: &reader, total: count, limit: 1 << 40, what: "lengths")
        let lastLamport = steps.reduce(UInt64(lamport)) { $0 + $1.value * $1.times }
        guard lastLamport < 1 << 62 else { throw .malformed("impossible lamport time", at: lamportAt) }
        var timeSteps: [Repeated] = []
        if header.time != .unknown {
            let at = reader.offset
            timeSteps = try ChangeRun.readRepeated(from: &reader, total: count - 1, limit: Change.maximumTime, minimum: 0, what: "time steps")
            guard timeSteps.reduce(0, { $0 + $1.value * $1.times }) < Change.maximumTime else {
                throw .malformed("impossible time steps", at: at)
            }
        }
        let record = try reader.readRecord(in: table)
        let field = try reader.readName("text field name")
        let bytes = last
            ? try reader.readBytes(reader.remaining, "text operations")
            : try reader.readLengthPrefixed("text operations", limit: reader.remaining)
        guard !bytes.isEmpty else { throw .malformed("empty text operations", at: reader.offset) }
        if id.replica == sender, flags & DeltaUnitHeader.Flag.fromSender != 0 { nextSenderCounter = id.counter + count }
        var run = DeltaRun(
            id: id, lamport: UInt64(lamport), lamportSteps: steps, lengths: lengths, count: count,
            dependencies: VersionVector(dependencies), table: table, record: record, field: field, encoded: Array(bytes))
        run.time = header.time
        run.timeSteps = timeSteps
        return run
    }
}

/// What a delta file lists: single changes and runs of changes.
enum DeltaUnit: Hashable, Sendable {
    case change(DeltaChange)
    case run(DeltaRun)

    /// The first change.
    var id: ChangeID {
        switch self {
        case .change(let change): change.id
        case .run(let run): run.id
        }
    }

    /// The counter after the unit's last change.
    var endCounter: UInt64 {
        switch self {
        case .change(let change): change.endCounter
        case .run(let run): run.endCounter
        }
    }

    var incoming: IncomingChange {
        switch self {
        case .change(let change): .delta(change)
        case .run(let run): .run(run)
        }
    }

    func encode(into writer: inout ByteWriter, sender: ReplicaID?, last: Bool) {
        switch self {
        case .change(let change): change.encode(into: &writer, sender: sender, last: last)
        case .run(let run): run.encode(into: &writer, sender: sender, last: last)
        }
    }

    static func decode(
        from reader: inout ByteReader, sender: ReplicaID?, nextSenderCounter: inout UInt64, last: Bool
    ) throws(DecodingError) -> DeltaUnit {
        var probe = reader
        if DeltaRun.isRun(flags: try probe.readByte("change flags")) {
            return .run(try DeltaRun.decode(from: &reader, sender: sender, nextSenderCounter: &nextSenderCounter, last: last))
        }
        return .change(try DeltaChange.decode(from: &reader, sender: sender, nextSenderCounter: &nextSenderCounter, last: last))
    }
}

/// Expands one replica's units (single changes and runs), given in counter order, into
/// its changes one by one, without a store: names resolved through a table it keeps up
/// as the changes use them, and text operations decoded from per-text bases it advances
/// by each change's operations.
///
/// From counter 0 with an empty table and `freshBase` 0 the bases and names are the true
/// ones (the changes are those the replica made). From elsewhere, a text first met starts
/// at `freshBase`; counters are then shifted by one amount per text, the same for every
/// file holding the same changes from the same point (see ``restartBases()``), so two
/// files' changes can be compared, though not applied.
struct DeltaUnitExpander {
    /// The replica's names as known so far.
    var names: ReplicaNames
    /// The replica's next counter in each text met so far.
    private var bases: [TextID: UInt64] = [:]
    /// Where a text not met yet starts.
    let freshBase: UInt64
    /// The time of the replica's last change so far (`nil` unknown).
    private var lastTime: UInt64?

    init(names: ReplicaNames = ReplicaNames(), freshBase: UInt64 = 0) {
        self.names = names
        self.freshBase = freshBase
    }

    /// Forgets the text bases: the next change starts each text at `freshBase` again.
    mutating func restartBases() { bases = [:] }

    /// The changes of `unit`, the next one of the replica.
    ///
    /// - Throws: ``StoreError/invalidChange(_:)`` for a name the table does not have or
    ///   text operations that do not decode.
    mutating func changes(of unit: DeltaUnit) throws(StoreError) -> [Change] {
        let bases = self.bases, freshBase = self.freshBase
        let changes: [Change]
        switch unit {
        case .change(let change):
            changes = [try change.resolved(with: names, previousTime: lastTime) { text throws(StoreError) in bases[text] ?? freshBase }]
        case .run(let run):
            changes = try run.resolved(with: names, previousTime: lastTime) { text throws(StoreError) in bases[text] ?? freshBase }.changes
        }
        lastTime = changes.last.map(\.time)
        for change in changes {
            for case .text(let text, let operations) in change.operations {
                if let last = operations.last { self.bases[text] = last.id.counter + UInt64(last.length) }
            }
        }
        if let first = changes.first { _ = names.learn(from: first) }  // a run's changes share its first one's names
        return changes
    }
}
