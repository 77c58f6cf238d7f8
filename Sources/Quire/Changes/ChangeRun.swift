import QuireCore

/// Consecutive changes of one replica to one text, each depending only on its
/// predecessor — what keystroke autosave makes — kept as one unit: the changes' text
/// operations joined, their counters implicit (one per change), their Lamport times,
/// wall-clock times and lengths run-length coded.
///
/// A run is how the change log stores such changes, how an import integrates them (one
/// text apply, one log entry) and, as ``DeltaRun``, how a delta file carries them. Every
/// change of a run keeps its ID, Lamport time and dependencies (the first change's; the
/// others have none beyond their predecessor): ``changes`` gives them back one by one.
struct ChangeRun: Hashable, Sendable {
    /// The most changes in one run; longer runs are cut (a run expands to one change per
    /// counter, so this bounds what a few bytes of a file can make a reader allocate).
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
    /// The wall-clock time of the first change (``Change/time``; 0 unknown).
    var time: UInt64 = 0
    /// The increases of the wall-clock time from each change to the next (`count − 1`
    /// values, 0 allowed), or empty when the run's times are unknown (``time`` 0).
    var timeSteps: [Repeated] = []
    /// The counters of text each change takes (`count` of them).
    var lengths: [Repeated]
    /// The number of changes.
    var count: UInt64
    /// The first change's dependencies.
    var dependencies: VersionVector
    /// The text every change edits.
    var text: TextID
    /// The changes' text operations, joined; contiguous counters of the run's replica.
    var operations: [TextOperation]

    var endCounter: UInt64 { id.counter + count }

    /// The replicas the run's encodings refer to by index — its own first, then its
    /// dependencies', its text's record's and its operations' — in the delta file and in
    /// the log alike, so a run's encoded operations are the same bytes in both.
    var replicaTable: [ReplicaID] {
        var table = [id.replica]
        for replica in dependencies.counters.keys.sorted() { ReplicaIndex.add(replica, to: &table) }
        ReplicaIndex.add(text.record.replica, to: &table)
        TextOperationCoding.addReplicas(of: operations, to: &table)
        return table
    }

    /// The Lamport time of the last change.
    var lastLamport: UInt64 { lamportSteps.reduce(lamport) { $0 + $1.value * $1.times } }

    /// The wall-clock time of the last change.
    var lastTime: UInt64 { timeSteps.reduce(time) { $0 + $1.value * $1.times } }

    /// The counters of text the run's changes take in all.
    var totalLength: UInt64 { lengths.reduce(0) { $0 + $1.value * $1.times } }

    /// A run as decoded, checked: its operations are contiguous counters of its replica
    /// and add up to its lengths, so ``changes`` can always cut them.
    ///
    /// - Throws: ``StoreError/invalidChange(_:)`` naming the problem.
    init(
        id: ChangeID, lamport: UInt64, lamportSteps: [Repeated], lengths: [Repeated], count: UInt64,
        dependencies: VersionVector, text: TextID, operations: [TextOperation],
        time: UInt64 = 0, timeSteps: [Repeated] = []
    ) throws(StoreError) {
        guard let first = operations.first else { throw .invalidChange("run \(id), text \(text): no operations") }
        var next = first.id.counter
        for operation in operations {
            guard operation.id.replica == id.replica, operation.id.counter == next, operation.length > 0 else {
                throw .invalidChange("run \(id), text \(text): an operation of \(operation.id), expected \(id.replica)@\(next)")
            }
            next += UInt64(operation.length)
        }
        let steps = lamportSteps.reduce(0) { $0 + $1.times }, changes = lengths.reduce(0) { $0 + $1.times }
        guard count >= 1, steps == count - 1, changes == count, lengths.allSatisfy({ $0.value > 0 }) else {
            throw .invalidChange("run \(id): \(count) changes with \(steps) lamport steps and \(changes) lengths")
        }
        self.id = id
        self.lamport = lamport
        self.lamportSteps = lamportSteps
        self.lengths = lengths
        self.count = count
        self.dependencies = dependencies
        self.text = text
        self.operations = operations
        guard time == 0 ? timeSteps.isEmpty : timeSteps.reduce(0, { $0 + $1.times }) == count - 1 else {
            throw .invalidChange("run \(id): \(count) changes with \(timeSteps.reduce(0) { $0 + $1.times }) time steps")
        }
        self.time = time
        self.timeSteps = timeSteps
        guard totalLength == next - first.id.counter else {
            throw .invalidChange("run \(id), text \(text): operations of \(next - first.id.counter) counters for changes of \(totalLength)")
        }
    }

    // MARK: From changes

    /// The text and operations of `change` when it can be part of a run: one text
    /// operation list, one counter.
    static func textEdit(of change: Change) -> (TextID, [TextOperation])? {
        guard change.count == 1, change.operations.count == 1,
            case .text(let text, let operations) = change.operations[0], !operations.isEmpty
        else { return nil }
        return (text, operations)
    }

    /// `changes` (in counter order per replica) cut into runs and single changes: each
    /// longest stretch of changes that continue one another (up to ``maximumChanges``)
    /// becomes one run.
    static func units(of changes: some Sequence<Change>) -> [ChangeUnit] {
        var joiner = ChangeRunJoiner()
        for change in changes { joiner.add(change) }
        return joiner.finish()
    }

    /// `units` (single changes and runs, in counter order per replica) joined as
    /// ``units(of:)-([Change])`` joins their changes, a run taken whole: runs that continue one
    /// another become one, up to ``maximumChanges``.
    static func units(of units: some Sequence<ChangeUnit>) -> [ChangeUnit] {
        var joiner = ChangeRunJoiner()
        for unit in units { joiner.add(unit) }
        return joiner.finish()
    }

    /// A run of the one change `change`, a text edit (see ``textEdit(of:)``), to be
    /// continued.
    fileprivate init(startingWith change: Change, text: TextID, operations: [TextOperation]) {
        id = change.id
        lamport = change.lamport
        lamportSteps = []
        time = change.time
        lengths = [Repeated(value: operations.reduce(0) { $0 + UInt64($1.length) }, times: 1)]
        count = 1
        dependencies = change.dependencies
        self.text = text
        self.operations = operations
    }

    // MARK: Cutting and expanding

    /// The run's changes, one by one.
    ///
    /// - Complexity: O(count + operations).
    var changes: [Change] {
        var lengths: [UInt64] = []
        lengths.reserveCapacity(Int(count))
        for value in self.lengths { lengths += repeatElement(value.value, count: Int(value.times)) }
        // The initializer checked that the operations are contiguous and cover `lengths`.
        let pieces = TextOperation.split(operations, lengths: lengths)!
        var changes: [Change] = []
        changes.reserveCapacity(pieces.count)
        var lamport = self.lamport, time = self.time
        var steps = lamportSteps.lazy.flatMap { repeatElement($0.value, count: Int($0.times)) }.makeIterator()
        var timeSteps = self.timeSteps.lazy.flatMap { repeatElement($0.value, count: Int($0.times)) }.makeIterator()
        for (offset, piece) in pieces.enumerated() {
            if offset > 0 {
                lamport += steps.next() ?? 0
                time += timeSteps.next() ?? 0
            }
            changes.append(Change(
                id: ChangeID(replica: id.replica, counter: id.counter + UInt64(offset)), count: 1, lamport: lamport,
                dependencies: offset == 0 ? dependencies : VersionVector(), operations: [.text(text, piece)], time: time))
        }
        return changes
    }

    /// The run cut into consecutive pieces of `size` changes (the last may be shorter),
    /// each a run, or a single change when it has one.
    ///
    /// - Complexity: O(count + operations): the operations are cut in one pass.
    func pieces(ofChanges size: UInt64) -> [ChangeUnit] {
        precondition(size >= 1)
        var lengths = self.lengths, steps = lamportSteps, timeSteps = self.timeSteps
        var heads: [(id: ChangeID, lamport: UInt64, time: UInt64, count: UInt64, steps: [Repeated], timeSteps: [Repeated], lengths: [Repeated])] = []
        var totals: [UInt64] = []
        var counter = id.counter, lamport = self.lamport, time = self.time
        while counter < endCounter {
            let n = min(size, endCounter - counter)
            let pieceLengths = Self.takeFirst(n, from: &lengths)
            let pieceSteps = Self.takeFirst(n - 1, from: &steps)
            let pieceTimeSteps = Self.takeFirst(n - 1, from: &timeSteps)
            heads.append((ChangeID(replica: id.replica, counter: counter), lamport, time, n, pieceSteps, pieceTimeSteps, pieceLengths))
            totals.append(pieceLengths.reduce(0) { $0 + $1.value * $1.times })
            lamport = pieceSteps.reduce(lamport) { $0 + $1.value * $1.times }
            time = pieceTimeSteps.reduce(time) { $0 + $1.value * $1.times }
            counter += n
            if counter < endCounter {
                lamport += Self.dropFirst(1, from: &steps)
                time += Self.dropFirst(1, from: &timeSteps)
            }
        }
        // The initializer checked that the operations are contiguous and cover `lengths`.
        let operationPieces = TextOperation.split(operations, lengths: totals)!
        return zip(heads, operationPieces).map { head, operations in
            var piece = self
            piece.id = head.id
            piece.lamport = head.lamport
            piece.count = head.count
            piece.lamportSteps = head.steps
            piece.time = head.time
            piece.timeSteps = head.timeSteps
            piece.lengths = head.lengths
            piece.operations = operations
            if head.id != id { piece.dependencies = VersionVector() }  // the first change's, met before
            return piece.count == 1 ? .change(piece.changes[0]) : .run(piece)
        }
    }

    /// Removes the first `count` values from `values` and returns them.
    static func takeFirst(_ count: UInt64, from values: inout [Repeated]) -> [Repeated] {
        var taken: [Repeated] = []
        var left = count
        while left > 0, !values.isEmpty {
            let times = min(left, values[0].times)
            taken.append(Repeated(value: values[0].value, times: times))
            left -= times
            values[0].times -= times
            if values[0].times == 0 { values.removeFirst() }
        }
        return taken
    }

    /// The run without its changes before `counter`, a single change when one is left.
    ///
    /// - Precondition: `id.counter < counter < endCounter`.
    func suffix(from counter: UInt64) -> ChangeUnit {
        var run = self
        let dropped = counter - id.counter
        let droppedLength = Self.dropFirst(dropped, from: &run.lengths)
        run.lamport += Self.dropFirst(dropped, from: &run.lamportSteps)
        run.time += Self.dropFirst(dropped, from: &run.timeSteps)
        run.id.counter = counter
        run.count -= dropped
        run.dependencies = VersionVector()  // the first change's, met by the dropped ones
        run.operations = TextOperation.split(operations, lengths: [droppedLength, totalLength - droppedLength])![1]
        return run.count == 1 ? .change(run.changes[0]) : .run(run)
    }

    /// Removes the first `count` values from `values` and returns their sum.
    static func dropFirst(_ count: UInt64, from values: inout [Repeated]) -> UInt64 {
        takeFirst(count, from: &values).reduce(0) { $0 + $1.value * $1.times }
    }
}

extension [ChangeRun.Repeated] {
    /// Appends `value` to values run-length coded.
    mutating func appendRepeated(_ value: UInt64) {
        appendRepeated(ChangeRun.Repeated(value: value, times: 1))
    }

    /// Appends `repeated` times its value, joining the last value when it is the same.
    mutating func appendRepeated(_ repeated: ChangeRun.Repeated) {
        if last?.value == repeated.value {
            self[count - 1].times += repeated.times
        } else {
            append(repeated)
        }
    }
}

/// Cuts changes, given one at a time in counter order per replica, into runs and single
/// changes (see ``ChangeRun/units(of:)``), growing each run in place: a change costs its
/// own operations, whatever the length of the run it joins.
///
/// The change log's fold starts one from the run the log ends with, to top it up with
/// the keystrokes logged since (see `StoreState.foldLoggedChanges`).
struct ChangeRunJoiner {
    /// The run being grown, with what continuing it needs: its last change's Lamport and
    /// wall-clock times (computing them from the run is O(its steps)), and its one change
    /// while it has only one (to give it back as a single change).
    private var open: (run: ChangeRun, lastLamport: UInt64, lastTime: UInt64, single: Change?)?
    private var units: [ChangeUnit] = []
    /// The run this joiner was started from, until a change continues it or it is closed.
    private var initialRun: ChangeID?
    /// Whether a change continued the run this joiner was started from.
    private(set) var continuedInitialRun = false

    /// A joiner whose first changes may continue `run`.
    init(continuing run: ChangeRun? = nil) {
        guard let run else { return }
        open = (run, run.lastLamport, run.lastTime, nil)
        initialRun = run.id
    }

    /// Adds the next change: joined onto the open run when it continues it, otherwise
    /// closing that run and starting the next unit.
    mutating func add(_ change: Change) {
        guard let edit = ChangeRun.textEdit(of: change) else {
            close()
            units.append(.change(change))
            return
        }
        guard var current = open, current.run.count < ChangeRun.maximumChanges, Self.continues(current, with: change, edit) else {
            close()
            open = (ChangeRun(startingWith: change, text: edit.0, operations: edit.1), change.lamport, change.time, change)
            return
        }
        open = nil  // so `current` holds the only reference to the run's arrays
        if current.run.id == initialRun { continuedInitialRun = true }
        current.run.lamportSteps.appendRepeated(change.lamport - current.lastLamport)
        if current.run.time > 0 { current.run.timeSteps.appendRepeated(change.time - current.lastTime) }
        current.run.lengths.appendRepeated(edit.1.reduce(0) { $0 + UInt64($1.length) })
        current.run.count += 1
        TextOperation.append(edit.1, joiningOnto: &current.run.operations)
        current.lastLamport = change.lamport
        current.lastTime = change.time
        current.single = nil
        open = current
    }

    /// Adds the next unit: a change as ``add(_:)-(Change)``, a run as ``add(_:)-(ChangeRun)``.
    mutating func add(_ unit: ChangeUnit) {
        switch unit {
        case .change(let change): add(change)
        case .run(let run): add(run)
        }
    }

    /// Adds the next run, whole: joined onto the open run when its first change continues
    /// it, otherwise closing that run and opening this one. A run that would grow the open
    /// one past ``ChangeRun/maximumChanges`` is cut there, as its changes one by one would
    /// be. What an export does with the log's runs: O(the run's steps and operations), not
    /// a step per change.
    mutating func add(_ run: ChangeRun) {
        guard var current = open, Self.continues(current, with: run) else {
            close()
            open = (run, run.lastLamport, run.lastTime, nil)
            return
        }
        let room = UInt64(ChangeRun.maximumChanges) - current.run.count
        if run.count > room {
            let cut = run.id.counter + room
            if room > 0, let head = ChangeUnit.run(run).clamped(to: run.id.counter..<cut) { add(head) }
            close()
            if let tail = ChangeUnit.run(run).clamped(to: cut..<UInt64.max) { add(tail) }
            return
        }
        let runLastLamport = run.lastLamport, runLastTime = run.lastTime
        open = nil  // so `current` holds the only reference to the run's arrays
        if current.run.id == initialRun { continuedInitialRun = true }
        current.run.lamportSteps.appendRepeated(run.lamport - current.lastLamport)
        for step in run.lamportSteps { current.run.lamportSteps.appendRepeated(step) }
        if current.run.time > 0 {
            current.run.timeSteps.appendRepeated(run.time - current.lastTime)
            for step in run.timeSteps { current.run.timeSteps.appendRepeated(step) }
        }
        for length in run.lengths { current.run.lengths.appendRepeated(length) }
        current.run.count += run.count
        TextOperation.append(run.operations, joiningOnto: &current.run.operations)
        current.lastLamport = runLastLamport
        current.lastTime = runLastTime
        current.single = nil
        open = current
    }

    /// The units, in order.
    mutating func finish() -> [ChangeUnit] {
        close()
        return units
    }

    private mutating func close() {
        guard let current = open else { return }
        open = nil
        initialRun = nil
        if let single = current.single {
            units.append(.change(single))
        } else {
            units.append(current.run.count == 1 ? .change(current.run.changes[0]) : .run(current.run))
        }
    }

    /// Whether `next`, whose text edit is `edit`, continues `open`: one more change of
    /// the run's replica to its text, its operations following the run's, depending on
    /// nothing but its predecessor, its clocks not going back.
    private static func continues(
        _ open: (run: ChangeRun, lastLamport: UInt64, lastTime: UInt64, single: Change?),
        with next: Change, _ edit: (TextID, [TextOperation])
    ) -> Bool {
        continues(open, id: next.id, dependencies: next.dependencies, lamport: next.lamport, time: next.time,
                  text: edit.0, firstOperation: edit.1[0].id)
    }

    /// Whether `next`'s first change continues `open`, as ``continues(_:with:_:)`` asks of a change.
    private static func continues(
        _ open: (run: ChangeRun, lastLamport: UInt64, lastTime: UInt64, single: Change?), with next: ChangeRun
    ) -> Bool {
        continues(open, id: next.id, dependencies: next.dependencies, lamport: next.lamport, time: next.time,
                  text: next.text, firstOperation: next.operations[0].id)
    }

    /// Whether a change `id` with these dependencies, clocks, text and first operation continues `open`.
    private static func continues(
        _ open: (run: ChangeRun, lastLamport: UInt64, lastTime: UInt64, single: Change?),
        id: ChangeID, dependencies: VersionVector, lamport: UInt64, time: UInt64, text: TextID, firstOperation: OperationID
    ) -> Bool {
        let run = open.run
        guard id.replica == run.id.replica, id.counter == run.endCounter,
            dependencies.counters.isEmpty, lamport > open.lastLamport,
            time >= open.lastTime, (open.lastTime == 0) == (time == 0),
            text == run.text, let last = run.operations.last,
            firstOperation == last.id.advanced(by: UInt64(last.length))
        else { return false }
        return true
    }
}

/// What the change log holds under one key, and what a merge integrates in one step: a
/// single change or a run of them.
enum ChangeUnit: Hashable, Sendable {
    case change(Change)
    case run(ChangeRun)

    /// The first change.
    var id: ChangeID {
        switch self {
        case .change(let change): change.id
        case .run(let run): run.id
        }
    }

    /// The counters it covers.
    var count: UInt64 {
        switch self {
        case .change(let change): change.count
        case .run(let run): run.count
        }
    }

    var endCounter: UInt64 { id.counter + count }

    /// The Lamport time of its last change.
    var lastLamport: UInt64 {
        switch self {
        case .change(let change): change.lamport
        case .run(let run): run.lastLamport
        }
    }

    /// Its first change's dependencies (the others have none beyond their predecessor).
    var dependencies: VersionVector {
        switch self {
        case .change(let change): change.dependencies
        case .run(let run): run.dependencies
        }
    }

    /// The wall-clock time of its last change (0 unknown).
    var lastTime: UInt64 {
        switch self {
        case .change(let change): change.time
        case .run(let run): run.lastTime
        }
    }

    /// Its changes one by one.
    var changes: [Change] {
        switch self {
        case .change(let change): [change]
        case .run(let run): run.changes
        }
    }

    /// Its changes that lie in `range` of its replica's counters, cut from it as a unit
    /// (the part of a run, a change whole), or `nil` when none does.
    ///
    /// A single change is never cut: it is kept whole when any of its counters is in range.
    func clamped(to range: Range<UInt64>) -> ChangeUnit? {
        guard range.lowerBound < endCounter, id.counter < range.upperBound else { return nil }
        guard case .run(let run) = self else { return self }
        var unit = self
        if range.lowerBound > id.counter { unit = run.suffix(from: range.lowerBound) }
        if range.upperBound < endCounter, case .run(var cut) = unit {
            let kept = range.upperBound - cut.id.counter
            var lengths = cut.lengths, steps = cut.lamportSteps, timeSteps = cut.timeSteps
            let droppedLength = ChangeRun.dropLast(cut.count - kept, from: &lengths)
            _ = ChangeRun.dropLast(cut.count - kept, from: &steps)
            _ = ChangeRun.dropLast(cut.count - kept, from: &timeSteps)
            cut.lengths = lengths
            cut.lamportSteps = steps
            cut.timeSteps = timeSteps
            cut.count = kept
            cut.operations = TextOperation.split(cut.operations, lengths: [cut.totalLength, droppedLength])![0]
            unit = kept == 1 ? .change(cut.changes[0]) : .run(cut)
        }
        return unit
    }
}

extension ChangeRun {
    /// Removes the last `count` values from `values` and returns their sum.
    static func dropLast(_ count: UInt64, from values: inout [Repeated]) -> UInt64 {
        var left = count, sum: UInt64 = 0
        while left > 0, let last = values.last {
            let taken = min(left, last.times)
            sum += taken * last.value
            left -= taken
            values[values.count - 1].times -= taken
            if values[values.count - 1].times == 0 { values.removeLast() }
        }
        return sum
    }
}

extension ChangeRun {
    /// Reads run-length coded values (each stored minus `minimum`, 1 unless the values
    /// may be 0) whose repeats add up to `total` (at most `total`, unless `exact`).
    static func readRepeated(
        from reader: inout ByteReader, total: UInt64, limit: UInt64, minimum: UInt64 = 1, what: String, exact: Bool = true
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
            values.append(Repeated(value: value + minimum, times: times))
        }
        guard sum == total || !exact else { throw .malformed("\(what) cover \(sum) changes, not \(total)", at: reader.offset) }
        return values
    }

    /// Writes values run-length coded (each minus `minimum`), as ``readRepeated`` reads them.
    static func writeRepeated(_ values: [Repeated], minimum: UInt64 = 1, into writer: inout ByteWriter) {
        writer.write(varint: UInt64(values.count))
        for value in values {
            writer.write(varint: value.value - minimum)
            writer.write(varint: value.times)
        }
    }
}
