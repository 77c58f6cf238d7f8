import LMDB
import QuireCore

extension StoreState {
    /// Integrates changes from other replicas into the open session, in causal order.
    ///
    /// - Throws: ``StoreError/invalidChange(_:)``; the caller rolls the session back.
    func integrate(_ incoming: [IncomingChange]) throws(StoreError) -> MergeReport {
        var report = MergeReport()
        var version = meta.version
        var lamport = meta.lamport
        var seen = meta.seen
        session?.savedPending = pending
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
            let resolved = try change.resolved(with: names[id.replica] ?? ReplicaNames()) { text throws(StoreError) in
                try self.nextTextCounter(of: id.replica, in: text)
            }
            noteNames(of: resolved)
            try apply(resolved, knowledge: seen[id.replica]!, treeBatch: &treeBatch, texts: &incomingTexts, report: &report)
            if pending[id] != nil { session?.pendingRemoved.insert(id) }
            newlyPending.remove(id)
            version.record(OperationID(replica: id.replica, counter: id.counter), count: change.count)
            lamport = max(lamport, change.lamport)
            session?.integrated[id] = resolved
            report.applied.append(id)
        }

        // Changes in causal order (the usual case: a file from one replica) are applied as
        // they come; the others wait in the queue, with the pending ones.
        for change in incoming {
            let known = version[change.id.replica]
            if change.endCounter <= known {
                if let integrated = session?.integrated[change.id] {
                    try checkSame(change, as: integrated)  // twice in one batch
                } else {
                    try checkSameAsLogged(change)
                }
                report.alreadyKnown.append(change.id)
                continue
            }
            if change.id.replica == replica {
                throw .invalidChange("change \(change.id) claims to come from this replica, which never made it; a copy of this store is writing under its replica ID")
            }
            guard change.id.counter >= known else {
                throw .invalidChange("change \(change.id) overlaps changes \(change.id.replica) already has up to counter \(known) (a cloned replica?)")
            }
            guard change.count > 0 else { throw .invalidChange("change \(change.id) has no operations") }
            if let queued = queue[change.id] {
                guard queued == change || !queued.isSameForm(as: change) else {
                    throw .invalidChange("two different changes carry the ID \(change.id) (a cloned replica?)")
                }
                continue
            }
            if isReady(change) {
                try integrateNow(change)
            } else {
                queue[change.id] = change
                newlyPending.insert(change.id)
            }
        }

        var progress = !queue.isEmpty
        while progress {
            progress = false
            for id in queue.keys.sorted() {
                let change = queue[id]!
                guard isReady(change) else { continue }
                queue[id] = nil
                try integrateNow(change)
                progress = true
            }
        }
        if !treeBatch.isEmpty {
            willChangeTree()
            let treeReport = tree.apply(treeBatch)
            report.skippedMoves = treeReport.skipped.count
        }
        report.overlappingEdits = try overlappingEdits(incomingTexts)
        pending = queue
        session?.pendingAdded = newlyPending
        report.pending = queue.keys.sorted()
        var merged = meta
        merged.version = version
        merged.lamport = lamport
        merged.seen = seen
        session?.mergedMeta = merged
        return report
    }

    /// Refuses a change this store already has under its ID unless it is the same: two
    /// histories under one ID mean a copied replica.
    private func checkSameAsLogged(_ incoming: IncomingChange) throws(StoreError) {
        let logged: Change?
        do {
            let layout = layout
            logged = try environment.read { tx in
                try tx.withValue(forKey: StoreLayout.changeKey(incoming.id), in: layout.changes) { value in
                    try value.map { value in
                        try StoreLayout.changeKey(incoming.id).withUnsafeBytes { key in try decodeLogEntry(key: key, value: value) }
                    }
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupt(database: layout.changes.name, problem: "\(error)")
        }
        guard let logged else {
            if try isPruned(incoming.id, count: incoming.count) { return }  // compacted away: known, not comparable
            throw .invalidChange("change \(incoming.id) overlaps changes this store has from \(incoming.id.replica) at other boundaries (a cloned replica?)")
        }
        try checkSame(incoming, as: logged)
    }

    /// Refuses `incoming` unless it is `known`, the change this store has under its ID.
    private func checkSame(_ incoming: IncomingChange, as known: Change) throws(StoreError) {
        let same: Bool
        switch incoming {
        case .decoded(let decoded): same = known == decoded
        case .delta(let delta): same = DeltaChange(known, names: names[known.id.replica]) == delta
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
                    throw .invalidChange("change \(change.id), text \(id): \(error)")
                }
                if stored.text.pendingCount > 0 {
                    throw .invalidChange("change \(change.id), text \(id): operations refer to text this store does not have")
                }
                report.changedTexts.insert(id)
                var seenThen = change.dependencies
                seenThen.formUnion(VersionVector([change.id.replica: change.endCounter]))
                incomingTexts[id, default: IncomingTextEdits()].operations += operations
                incomingTexts[id, default: IncomingTextEdits()].seen.formUnion(seenThen)
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
                    var failure: StoreError?
                    try tx.scan(layout.changes, range: KeyRange(from: start, to: end)) { key, value in
                        do throws(StoreError) {
                            let change = try decodeLogEntry(key: key, value: value)
                            for case .text(let text, let operations) in change.operations {
                                guard let side = incoming[text], change.id.counter >= side.seen[replica] else { continue }
                                local[text, default: []] += operations
                            }
                        } catch {
                            failure = error
                            return .stop
                        }
                        return .continue
                    }
                    if let failure { throw failure }
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
            for overlap in stored.text.overlappingEdits(local[text]!, theirs.operations) {
                result.append(OverlappingEdit(text: text, range: overlap.range, utf16Range: overlap.utf16Range))
            }
        }
        return result
    }

    /// Sibling-name clashes under the parents of the records a merge touched.
    func nameClashes(near report: MergeReport) -> [NameClash] {
        var parents = Set<NodeID>()
        for id in report.movedNodes.union(report.changedRecords) {
            if let parent = tree.parent(of: id.node), parent != .deletedRoot { parents.insert(parent) }
        }
        return parents.sorted().flatMap { parent in
            nameClashes(under: parent) { id in self.siblingName(of: id) }
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
    func noteNames(of change: Change) {
        let replica = change.id.replica
        var table = names[replica] ?? ReplicaNames()
        let learned = table.learn(from: change)
        guard !learned.isEmpty else { return }
        if session?.savedNames == nil { session?.savedNames = names }
        names[replica] = table
        session?.learnedNames[replica, default: []] += learned
    }
}

/// The text operations a merge brings to one text, and what their changes were made on.
struct IncomingTextEdits {
    var operations: [TextOperation] = []
    var seen = VersionVector()
}

extension IncomingChange {
    /// Whether both are decoded or both delta changes (comparable as they are).
    func isSameForm(as other: IncomingChange) -> Bool {
        switch (self, other) {
        case (.decoded, .decoded), (.delta, .delta): true
        default: false
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
