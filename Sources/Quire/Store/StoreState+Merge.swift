import LMDB
import QuireCore

extension StoreState {
    /// Integrates changes from other replicas into the open session, in causal order.
    ///
    /// A run of changes (``DeltaRun``) is integrated as one step: its text operations,
    /// joined, in one apply, its version in one record, and one entry in the log.
    /// What the store has of a run already is compared with the log and trimmed off.
    ///
    /// - Throws: ``StoreError/invalidChange(_:)``; the caller rolls the session back.
    func integrate(_ incoming: [IncomingChange]) throws(StoreError) -> MergeReport {
        var report = MergeReport()
        var version = meta.version
        var lamport = meta.lamport
        var seen = meta.seen
        var times = meta.times
        session?.merging.savedPending = pending
        var queue = pending
        var newlyPending: Set<ChangeID> = []

        var treeBatch: [TreeOperation] = []
        var incomingTexts: [TextID: IncomingTextEdits] = [:]
        func isReady(_ change: IncomingChange) -> Bool {
            change.id.counter == version[change.id.replica]
                && change.dependencies.counters.allSatisfy { version[$0.key] >= $0.value }
        }
        func integrateNow(_ change: IncomingChange) throws(StoreError) {
            let id = change.id
            seen[id.replica, default: VersionVector()].formUnion(change.dependencies)
            let unit = try change.resolved(with: names[id.replica] ?? ReplicaNames(), previousTime: times[id.replica]) {
                text throws(StoreError) in try self.nextTextCounter(of: id.replica, in: text)
            }
            // A step is checked only against the limit, not against the time it is added
            // to: the sum must stay below it too, or the log entry would not read back.
            guard unit.lastTime < Change.maximumTime else {
                throw .invalidChange("change \(id): a time of \(unit.lastTime) s, beyond the limit of \(Change.maximumTime - 1)")
            }
            times[id.replica] = unit.lastTime > 0 ? unit.lastTime : nil
            noteNames(of: unit)
            switch unit {
            case .run(let run):
                try applyText(run.text, run.operations, of: id, seenThen: madeOn(run.dependencies, id.replica, run.endCounter), texts: &incomingTexts, report: &report)
                if case .run(let sent) = change, sent.skippedLength == 0 {
                    session?.merging.integratedRunBytes[run.id] = EncodedRunOperations(table: sent.table, operations: sent.encoded)
                }
                report.applied.append(replica: id.replica, counters: run.id.counter..<run.endCounter)
            case .change(let single):
                try apply(single, knowledge: seen[id.replica]!, treeBatch: &treeBatch, texts: &incomingTexts, report: &report)
                report.applied.append(single.id)
            }
            if pending[id] != nil { session?.merging.pendingRemoved.insert(id) }
            newlyPending.remove(id)
            version.record(OperationID(replica: id.replica, counter: id.counter), count: change.count)
            lamport = max(lamport, change.lamport)
            session?.merging.integrated[id.replica, default: []].append(unit)
        }
        /// `change` without what the store has of it already (compared with the log), or
        /// `nil` when it has all of it.
        func admitted(_ change: IncomingChange) throws(StoreError) -> IncomingChange? {
            let known = version[change.id.replica]
            guard change.id.counter < known else { return change }
            let end = min(known, change.endCounter)
            if case .run(let run) = change {
                try checkSameAsKnown(run, upTo: end)
                report.alreadyKnown.append(replica: run.id.replica, counters: run.id.counter..<end)
                return end < run.endCounter ? .run(run.trimmed(toStartAt: end)) : nil
            }
            guard change.endCounter <= known else {
                throw .invalidChange("change \(change.id) overlaps changes \(change.id.replica) already has up to counter \(known) (a cloned replica?)")
            }
            try checkSameAsKnown(change)
            report.alreadyKnown.append(change.id)
            return nil
        }
        func dequeue(_ id: ChangeID) {
            queue[id] = nil
            if pending[id] != nil { session?.merging.pendingRemoved.insert(id) }
            newlyPending.remove(id)
        }
        func enqueue(_ change: IncomingChange) {
            queue[change.id] = change
            newlyPending.insert(change.id)
        }

        // Changes in causal order (the usual case: a file from one replica) are applied as
        // they come; the others wait in the queue, with the pending ones.
        for original in incoming {
            guard let change = try admitted(original) else { continue }
            if change.id.replica == replica {
                throw .invalidChange("change \(change.id) claims to come from this replica, which never made it; a copy of this store is writing under its replica ID")
            }
            guard change.count > 0 else { throw .invalidChange("change \(change.id) has no operations") }
            if let queued = queue[change.id] {
                switch (queued, change) {
                case (.run, .run), (.run, .delta), (.delta, .run):
                    // Two cuts of one history: keep the longer; the other's part is compared
                    // with it once one of them is integrated.
                    if change.endCounter > queued.endCounter { enqueue(change) }
                default:
                    guard queued.isSame(as: change) || !queued.isSameForm(as: change) else {
                        throw .invalidChange("two different changes carry the ID \(change.id) (a cloned replica?)")
                    }
                }
                continue
            }
            if isReady(change) {
                try integrateNow(change)
            } else {
                enqueue(change)
            }
        }

        var progress = !queue.isEmpty
        while progress {
            progress = false
            for id in queue.keys.sorted() {
                guard var change = queue[id] else { continue }
                if change.id.counter < version[change.id.replica] {
                    // Overtaken by a run or another cut of the same history.
                    dequeue(id)
                    progress = true
                    guard let rest = try admitted(change) else { continue }
                    change = rest
                    guard isReady(change) else {
                        enqueue(change)
                        continue
                    }
                } else {
                    guard isReady(change) else { continue }
                    dequeue(id)
                }
                try integrateNow(change)
                progress = true
            }
        }
        if !treeBatch.isEmpty {
            do { try willChangeTree() } catch let error as StoreError { throw error } catch {
                records.note(error)  // what the transaction throws: the cause, as read
                throw .corrupt(database: layout.tree.nodes.name, problem: "\(error)")
            }
            let treeReport = tree.apply(treeBatch)
            report.skippedMoves = treeReport.skipped.count
        }
        report.overlappingEdits = try overlappingEdits(incomingTexts)
        pending = queue
        session?.merging.pendingAdded = newlyPending
        report.pending = queue.keys.sorted()
        var merged = meta
        merged.version = version
        merged.lamport = lamport
        merged.seen = seen
        merged.times = times
        session?.merging.mergedMeta = merged
        return report
    }

    /// Refuses a change this store already has under its ID (integrated in this session
    /// or logged) unless it is the same: two histories under one ID mean a copied replica.
    private func checkSameAsKnown(_ incoming: IncomingChange) throws(StoreError) {
        guard let unit = try knownUnit(covering: incoming.id) else {
            if try isPruned(incoming.id, count: incoming.count) { return }  // compacted away: known, not comparable
            throw .invalidChange("change \(incoming.id) overlaps changes this store has from \(incoming.id.replica) at other boundaries (a cloned replica?)")
        }
        guard case .change(let known)? = unit.clamped(to: incoming.id.counter..<incoming.endCounter), known.id == incoming.id else {
            throw .invalidChange("change \(incoming.id) overlaps changes this store has from \(incoming.id.replica) at other boundaries (a cloned replica?)")
        }
        try checkSame(incoming, as: known)
    }

    /// Refuses a run whose changes before `end` differ from those this store has under
    /// their IDs (integrated in this session or logged).
    private func checkSameAsKnown(_ run: DeltaRun, upTo end: UInt64) throws(StoreError) {
        let replica = run.id.replica
        guard let known = try knownChanges(of: replica, from: run.id.counter, to: end) else { return }  // compacted away
        let clone = StoreError.invalidChange(
            "two different changes carry the ID \(run.id): this store has another history under it, so two histories share one replica ID (a cloned replica?)")
        guard case .text(let text, let operations)? = known.first?.operations.first, known.first?.operations.count == 1,
            let first = operations.first, first.id.counter >= run.skippedLength,
            (try? run.textID(names: names[replica] ?? ReplicaNames())) == text
        else { throw clone }
        let resolved: [Change]
        do {
            resolved = try run.resolved(text: text, base: first.id.counter - run.skippedLength, previousTime: nil).changes
        } catch {
            throw clone
        }
        guard known.count <= resolved.count, zip(known, resolved).allSatisfy({ $0.isSame(as: $1) }) else { throw clone }
    }

    /// The changes of `replica` covering `from ..< to` exactly, from this session or the
    /// log; `nil` when compaction pruned them.
    private func knownChanges(of replica: ReplicaID, from: UInt64, to: UInt64) throws(StoreError) -> [Change]? {
        let boundaries = StoreError.invalidChange(
            "run \(replica)@\(from) overlaps changes this store has from \(replica) at other boundaries (a cloned replica?)")
        var result: [Change] = []
        var counter = from
        while counter < to {
            guard let unit = try knownUnit(covering: ChangeID(replica: replica, counter: counter)) else {
                if try isPruned(ChangeID(replica: replica, counter: from), count: to - from) { return nil }
                throw boundaries
            }
            guard let part = unit.clamped(to: counter..<to), part.id.counter == counter else { throw boundaries }
            result += part.changes
            counter = part.endCounter
        }
        guard counter == to else { throw boundaries }
        return result
    }

    /// The unit (change or run) this store has that covers `id`'s counter: integrated in
    /// this session, or logged.
    private func knownUnit(covering id: ChangeID) throws(StoreError) -> ChangeUnit? {
        if let units = session?.merge?.integrated[id.replica] {
            // Integrated in counter order: the last one starting at or before the counter.
            var low = 0, high = units.count
            while low < high {
                let middle = (low + high) / 2
                if units[middle].id.counter <= id.counter { low = middle + 1 } else { high = middle }
            }
            if low > 0, units[low - 1].endCounter > id.counter { return units[low - 1] }
        }
        do {
            return try environment.read { tx in try loggedUnit(covering: id, in: tx) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupt(database: layout.changes.name, problem: "\(error)")
        }
    }

    /// Refuses `incoming` unless it is `known`, the change this store has under its ID.
    private func checkSame(_ incoming: IncomingChange, as known: Change) throws(StoreError) {
        let same: Bool
        switch incoming {
        case .decoded(let decoded): same = known.isSame(as: decoded)
        case .delta(let delta):
            same = DeltaChange(known, names: names[known.id.replica], previousTime: nil).isSame(as: delta)
        case .run(let run):
            try checkSameAsKnown(run, upTo: run.endCounter)
            return
        }
        guard same else {
            throw .invalidChange("two different changes carry the ID \(known.id): this store has another one under it, so two histories share one replica ID (a cloned replica?)")
        }
    }

    private func apply(
        _ change: Change, knowledge: VersionVector, treeBatch: inout [TreeOperation],
        texts incomingTexts: inout [TextID: IncomingTextEdits], report: inout MergeReport
    ) throws(StoreError) {
        for operation in change.operations {
            switch operation {
            case .tree(let move):
                guard move.id.replica == change.id.replica else {
                    throw .invalidChange("change \(change.id) carries a tree operation of replica \(move.id.replica)")
                }
                treeBatch.append(move)
                report.movedNodes.insert(RecordID(move.node))
            case .fields(let id, let type, let values):
                willChange(id)
                var record = records[id] ?? RecordState(type: type, fields: [:])
                guard record.type == type else {
                    throw .invalidChange("change \(change.id) writes record \(id) as a \(type), but it is a \(record.type)")
                }
                let losers = record.merge(values, at: change.timestamp, counter: change.id.counter) { replica, counter in
                    knowledge[replica] > counter
                }
                if records[id] != record { report.changedRecords.insert(id) }
                records[id] = record
                report.overwritten += losers.map {
                    OverwrittenValue(record: id, field: $0.field, value: String(decoding: $0.value, as: UTF8.self), timestamp: $0.timestamp)
                }
            case .text(let id, let operations):
                try applyText(id, operations, of: change.id, seenThen: madeOn(change.dependencies, change.id.replica, change.endCounter), texts: &incomingTexts, report: &report)
            }
        }
        // No valid replica places in the hierarchy a record it has not got, or under one:
        // the node's record exists (this change may create it), and so does its parent.
        for case .tree(let move) in change.operations {
            guard records[RecordID(move.node)] != nil else {
                throw .invalidChange("change \(change.id) places \(RecordID(move.node)) in the hierarchy, but there is no such record")
            }
            guard move.parent.isFixed || records[RecordID(move.parent)] != nil else {
                throw .invalidChange("change \(change.id) moves \(RecordID(move.node)) under \(RecordID(move.parent)), but there is no such record")
            }
        }
    }

    /// Applies text operations of the change (or run) `change` to the text `id`.
    /// What a change (or run) was made on: its dependencies, and its own replica's changes
    /// up to its end.
    private func madeOn(_ dependencies: VersionVector, _ replica: ReplicaID, _ end: UInt64) -> VersionVector {
        var version = dependencies
        version.formUnion(VersionVector([replica: end]))
        return version
    }

    /// `seenThen`: what the operations were made on, noted for the overlapping-edits report.
    private func applyText(
        _ id: TextID, _ operations: [TextOperation], of change: ChangeID, seenThen: VersionVector,
        texts incomingTexts: inout [TextID: IncomingTextEdits], report: inout MergeReport
    ) throws(StoreError) {
        let stored: StoredText
        do {
            stored = try text(id)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupt(database: layout.texts.name, problem: "\(error)")
        }
        willChange(id, stored, remotely: true)
        do {
            try stored.text.apply(operations)
        } catch {
            throw .invalidChange("change \(change), text \(id): \(error)")
        }
        if stored.text.pendingCount > 0 {
            throw .invalidChange("change \(change), text \(id): operations refer to text this store does not have")
        }
        report.changedTexts.insert(id)
        incomingTexts[id, default: IncomingTextEdits()].operations.append(operations)
        incomingTexts[id, default: IncomingTextEdits()].seen.formUnion(seenThen)
    }

    /// The passages of each text that the merged changes and this store's own changes
    /// since their common version both changed (see ``OverlappingEdit``).
    ///
    /// This store's side is the text operations of the logged changes the incoming side
    /// had not seen (`seen`: the union of what the incoming changes of the text were made
    /// on, their own replicas' earlier changes included); the log is scanned once, from
    /// the oldest such version.
    private func overlappingEdits(_ incoming: [TextID: IncomingTextEdits]) throws(StoreError) -> [OverlappingEdit] {
        guard !incoming.isEmpty else { return [] }
        // Per replica, the lowest counter any text's incoming side had not seen.
        var from: [ReplicaID: UInt64] = [:]
        for (replica, next) in meta.version.counters {
            let lowest = incoming.values.map { $0.seen[replica] }.min() ?? next
            if lowest < next { from[replica] = lowest }
        }
        var local: [TextID: [TextOperation]] = [:]
        let layout = layout
        do {
            try environment.read { tx in
                for (replica, first) in from.sorted(by: { $0.key < $1.key }) {
                    let start = StoreLayout.changeKey(ChangeID(replica: replica, counter: first))
                    let end = StoreLayout.changeKey(ChangeID(replica: replica, counter: UInt64.max))
                    try forEachLoggedChange(in: KeyRange(from: start, to: end), of: tx) { change in
                        for case .text(let text, let operations) in change.operations {
                            guard let side = incoming[text], change.id.counter >= side.seen[replica] else { continue }
                            local[text, default: []] += operations
                        }
                    }
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupt(database: layout.changes.name, problem: "\(error)")
        }
        var result: [OverlappingEdit] = []
        for text in local.keys.sorted(by: { ($0.record, $0.field) < ($1.record, $1.field) }) {
            guard let stored = texts[text], let theirs = incoming[text] else { continue }
            for overlap in stored.text.overlappingEdits(local[text]!, Array(theirs.operations.joined())) {
                result.append(OverlappingEdit(text: text, range: overlap.range, utf16Range: overlap.utf16Range))
            }
        }
        return result
    }

    /// Sibling-name clashes under the parents of the records a merge touched.
    func nameClashes(near report: MergeReport) -> [NameClash] {
        var parents = Set<NodeID>()
        for id in report.movedNodes.union(report.changedRecords) {
            if let parent = parent(of: id.node), parent != .deletedRoot { parents.insert(parent) }
        }
        return parents.sorted().flatMap { parent in
            nameClashes(under: parent)
        }
    }

    /// The value of the record's ``Record/siblingNameField``, if its type has one.
    func siblingName(of id: RecordID) -> String? {
        guard let record = records[id], let field = nameFields[record.type],
            let value = record.fields[field]?.value
        else { return nil }
        return JSONObjectScanner.string(from: value)
    }
}

extension StoreState {
    /// Adds the names `change` uses to its replica's table, remembering the new ones for
    /// the commit (and the tables before, for a rollback).
    func noteNames(of change: Change) { noteNames(of: .change(change)) }

    /// Adds the names `unit` uses to its replica's table (see ``noteNames(of:)-change``).
    func noteNames(of unit: ChangeUnit) {
        let replica = unit.id.replica
        if names[replica]?.knowsEveryName(in: unit) == true { return }
        var table = names[replica] ?? ReplicaNames()
        let learned = table.learn(from: unit)
        guard !learned.isEmpty else { return }
        if session?.savedNames == nil { session?.savedNames = names }
        names[replica] = table
        session?.learnedNames[replica, default: []] += learned
    }
}

/// The text operations a merge brings to one text, and what their changes were made on.
struct IncomingTextEdits {
    /// Each change's or run's operations, kept as they came (joined only when compared).
    var operations: [[TextOperation]] = []
    var seen = VersionVector()
}

extension IncomingChange {
    /// Whether both are decoded or both delta changes (comparable as they are).
    func isSameForm(as other: IncomingChange) -> Bool {
        switch (self, other) {
        case (.decoded, .decoded), (.delta, .delta), (.run, .run): true
        default: false
        }
    }

    /// Whether `other` is this single change in the same form, times aside (see
    /// ``Change/isSame(as:)``): a delta file sends a time as a step or absolute, depending
    /// on what its sender knew of the change before.
    func isSame(as other: IncomingChange) -> Bool {
        switch (self, other) {
        case (.decoded(let change), .decoded(let copy)): return change.isSame(as: copy)
        case (.delta(let change), .delta(let copy)): return change.isSame(as: copy)
        default: return false  // two runs are compared change by change (checkSameAsKnown)
        }
    }
}

extension StoreState {
    /// `replica`'s next counter in `text`: where its next operations there start.
    func nextTextCounter(of replica: ReplicaID, in text: TextID) throws(StoreError) -> UInt64 {
        do {
            return try self.text(text).text.nextCounter(of: replica)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupt(database: layout.texts.name, problem: "\(error)")
        }
    }
}
