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
///            · [replicas], [dependencies of the first change] as in a change
///            · n: changes (2 ... maximumChanges); change k has counter first + k
///            · lamport steps: p, p × (step − 1 · times)      Σ times = n − 1
///            · lengths: q, q × (length − 1 · times)          Σ times = n; counters of
///                                                              text each change takes
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
    /// The most changes in one run; longer runs are cut (a run expands to one change per
    /// counter on import, so this bounds what a few bytes can make a reader allocate).
    static let maximumChanges = 1 << 16

    /// A value and how many times in a row it occurs.
    struct Repeated: Hashable, Sendable {
        var value: UInt64
        var times: UInt64
    }

    /// The first change.
    var id: ChangeID
    /// The Lamport time of the first change.
    var lamport: UInt64
    /// The increases of the Lamport time from each change to the next (`count − 1`).
    var lamportSteps: [Repeated]
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

    /// Whether `change` can be part of a run: one text operation list of its own replica,
    /// one counter.
    private static func text(of change: Change) -> (TextID, [TextOperation])? {
        guard change.count == 1, change.operations.count == 1,
            case .text(let text, let operations) = change.operations[0], !operations.isEmpty
        else { return nil }
        return (text, operations)
    }

    /// Whether `next` continues a run that ends with `previous`.
    private static func continues(_ previous: Change, with next: Change) -> Bool {
        guard next.id.replica == previous.id.replica, next.id.counter == previous.endCounter,
            next.dependencies.counters.isEmpty, next.lamport > previous.lamport,
            let (text, operations) = Self.text(of: next), let (previousText, previousOperations) = Self.text(of: previous),
            text == previousText, let last = previousOperations.last,
            operations[0].id == last.id.advanced(by: UInt64(last.length))
        else { return false }
        return true
    }

    /// `changes` (as a delta file lists them) cut into runs and single changes.
    static func units(of changes: [Change], names: (ReplicaID) -> ReplicaNames?) -> [DeltaUnit] {
        var units: [DeltaUnit] = []
        var start = 0
        while start < changes.count {
            var end = start + 1
            if text(of: changes[start]) != nil {
                while end < changes.count, end - start < maximumChanges, continues(changes[end - 1], with: changes[end]) {
                    end += 1
                }
            }
            let replicaNames = names(changes[start].id.replica)
            if end - start >= 2 {
                units.append(.run(DeltaRun(changes[start..<end], names: replicaNames)))
            } else {
                units.append(.change(DeltaChange(changes[start], names: replicaNames)))
            }
            start = end
        }
        return units
    }

    /// The run of `changes`, which ``units(of:names:)`` found to form one; the field name
    /// referenced through `names`, the replica's table.
    private init(_ changes: ArraySlice<Change>, names: ReplicaNames?) {
        let first = changes.first!
        let (text, _) = Self.text(of: first)!
        id = first.id
        lamport = first.lamport
        count = UInt64(changes.count)
        dependencies = first.dependencies
        record = text.record
        if let names, let position = names.position(of: text.field), names.firstUse(at: position) < first.id.counter {
            field = .position(position)
        } else {
            field = .spelled(text.field)
        }
        var steps = RepeatedWriter(), lengths = RepeatedWriter()
        var previous: UInt64?
        for change in changes {
            if let previous { steps.append(change.lamport - previous) }
            previous = change.lamport
            lengths.append(Self.text(of: change)!.1.reduce(0) { $0 + UInt64($1.length) })
        }
        lamportSteps = steps.values
        self.lengths = lengths.values
        let joined = TextOperation.concatenated(changes.lazy.map { Self.text(of: $0)!.1 })
        var table = [first.id.replica]
        func note(_ replica: ReplicaID) { if !table.contains(replica) { table.append(replica) } }
        for replica in first.dependencies.counters.keys.sorted() { note(replica) }
        note(text.record.replica)
        TextOperationCoding.replicas(in: joined).forEach(note)
        self.table = table
        encoded = TextOperationCoding.encode(joined, sharing: table, counterBase: joined[0].id.counter)
    }

    // MARK: Trimming and resolving

    /// The run without its changes before `counter` (which the receiver has already).
    ///
    /// - Precondition: `id.counter < counter < endCounter`.
    func trimmed(toStartAt counter: UInt64) -> DeltaRun {
        var run = self
        let dropped = counter - id.counter
        run.skippedLength += Self.dropFirst(dropped, from: &run.lengths)
        run.lamport += Self.dropFirst(dropped, from: &run.lamportSteps)
        run.id.counter = counter
        run.count -= dropped
        run.dependencies = VersionVector()  // the first change's, already met
        return run
    }

    /// Removes the first `count` values from `values` and returns their sum.
    private static func dropFirst(_ count: UInt64, from values: inout [Repeated]) -> UInt64 {
        var left = count, sum: UInt64 = 0
        while left > 0, !values.isEmpty {
            let taken = min(left, values[0].times)
            sum += taken * values[0].value
            left -= taken
            values[0].times -= taken
            if values[0].times == 0 { values.removeFirst() }
        }
        return sum
    }

    /// The run's changes, one by one, and its text operations joined (to integrate in one
    /// step), names looked up in `names` and the operations decoded from `textBase` (the
    /// replica's next counter in the text, as the receiver has it).
    ///
    /// - Throws: ``StoreError/invalidChange(_:)`` for a name the table does not have, or
    ///   operations that do not decode or do not add up to the run's lengths.
    func resolved(
        with names: ReplicaNames, textBase: (TextID) throws(StoreError) -> UInt64
    ) throws(StoreError) -> (text: TextID, operations: [TextOperation], changes: [Change]) {
        let text = try textID(names: names)
        let next = try textBase(text)
        guard next >= skippedLength else {
            throw .invalidChange("run \(id), text \(text): starts before the replica's first operation there")
        }
        return try resolved(text: text, base: next - skippedLength)
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

    /// The run's changes and joined operations, its text `text` and its operations decoded
    /// from `base` (where its first change's operations start, skipped ones included).
    func resolved(text: TextID, base: UInt64) throws(StoreError) -> (text: TextID, operations: [TextOperation], changes: [Change]) {
        let operations: [TextOperation]
        do {
            operations = try TextOperationCoding.decode(encoded, sharing: table, counterBase: base)
        } catch {
            throw .invalidChange("run \(id), text \(text): \(error)")
        }
        var next = base
        for operation in operations {
            guard operation.id.replica == id.replica, operation.id.counter == next else {
                throw .invalidChange("run \(id), text \(text): an operation of \(operation.id), expected \(id.replica)@\(next)")
            }
            next += UInt64(operation.length)
        }
        var lengths: [UInt64] = skippedLength > 0 ? [skippedLength] : []
        let total = self.lengths.reduce(skippedLength) { $0 + $1.value * $1.times }
        guard !operations.isEmpty, total == next - base else {
            throw .invalidChange("run \(id), text \(text): operations of \(next - base) counters for changes of \(total)")
        }
        // Only now, with lengths the operations cover, expand them.
        lengths.reserveCapacity(Int(count) + 1)
        for value in self.lengths { lengths += repeatElement(value.value, count: Int(value.times)) }
        guard var pieces = TextOperation.split(operations, lengths: lengths) else {
            throw .invalidChange("run \(id), text \(text): its operations do not cut at its changes")
        }
        var joined = operations
        if skippedLength > 0 {
            joined = TextOperation.split(operations, lengths: [skippedLength, total - skippedLength])![1]
            pieces.removeFirst()
        }
        var changes: [Change] = []
        changes.reserveCapacity(pieces.count)
        var lamport = self.lamport
        var steps = lamportSteps.lazy.flatMap { repeatElement($0.value, count: Int($0.times)) }.makeIterator()
        for (offset, piece) in pieces.enumerated() {
            if offset > 0 { lamport += steps.next() ?? 0 }
            changes.append(Change(
                id: ChangeID(replica: id.replica, counter: id.counter + UInt64(offset)), count: 1, lamport: lamport,
                dependencies: offset == 0 ? dependencies : VersionVector(), operations: [.text(text, piece)]))
        }
        return (text, joined, changes)
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
        let index = DeltaUnitHeader(id: id, lamport: lamport, table: table, dependencies: dependencies.counters)
            .encode(into: &writer, sender: sender, unitFlags: Flag.run)
        writer.write(varint: count)
        for values in [lamportSteps, lengths] {
            writer.write(varint: UInt64(values.count))
            for value in values {
                writer.write(varint: value.value - 1)
                writer.write(varint: value.times)
            }
        }
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
        let steps = try readRepeated(from: &reader, total: count - 1, limit: 1 << 40, what: "lamport steps")
        let lengths = try readRepeated(from: &reader, total: count, limit: 1 << 40, what: "lengths")
        let lastLamport = steps.reduce(UInt64(lamport)) { $0 + $1.value * $1.times }
        guard lastLamport < 1 << 62 else { throw .malformed("impossible lamport time", at: lamportAt) }
        let record = try reader.readRecord(in: table)
        let field = try reader.readName("text field name")
        let bytes = last
            ? try reader.readBytes(reader.remaining, "text operations")
            : try reader.readLengthPrefixed("text operations", limit: reader.remaining)
        guard !bytes.isEmpty else { throw .malformed("empty text operations", at: reader.offset) }
        if id.replica == sender, flags & DeltaUnitHeader.Flag.fromSender != 0 { nextSenderCounter = id.counter + count }
        return DeltaRun(
            id: id, lamport: UInt64(lamport), lamportSteps: steps, lengths: lengths, count: count,
            dependencies: VersionVector(dependencies), table: table, record: record, field: field, encoded: Array(bytes))
    }

    /// Reads run-length coded values (each stored minus one) whose repeats add up to `total`.
    private static func readRepeated(
        from reader: inout ByteReader, total: UInt64, limit: UInt64, what: String
    ) throws(DecodingError) -> [Repeated] {
        let pairs = try reader.readCount("\(what) count", limit: Int(total), minimumElementSize: 2)
        var values: [Repeated] = []
        values.reserveCapacity(pairs)
        var sum: UInt64 = 0
        for _ in 0..<pairs {
            let at = reader.offset
            let value = try reader.readVarint(what)
            let times = try reader.readVarint("\(what) repeat")
            guard value < limit, times > 0, times <= total - sum else {
                throw .malformed("\(what): a value or repeat out of range", at: at)
            }
            sum += times
            values.append(Repeated(value: value + 1, times: times))
        }
        guard sum == total else { throw .malformed("\(what) cover \(sum) changes, not \(total)", at: reader.offset) }
        return values
    }
}

/// Collects values run-length coded.
private struct RepeatedWriter {
    var values: [DeltaRun.Repeated] = []

    mutating func append(_ value: UInt64) {
        if values.last?.value == value {
            values[values.count - 1].times += 1
        } else {
            values.append(DeltaRun.Repeated(value: value, times: 1))
        }
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
            changes = [try change.resolved(with: names) { text throws(StoreError) in bases[text] ?? freshBase }]
        case .run(let run):
            changes = try run.resolved(with: names) { text throws(StoreError) in bases[text] ?? freshBase }.changes
        }
        for change in changes {
            for case .text(let text, let operations) in change.operations {
                if let last = operations.last { self.bases[text] = last.id.counter + UInt64(last.length) }
            }
        }
        if let first = changes.first { _ = names.learn(from: first) }  // a run's changes share its first one's names
        return changes
    }
}
