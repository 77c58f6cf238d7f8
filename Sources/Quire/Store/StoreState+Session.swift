import LMDB
import QuireCore

extension StoreState {
    /// Starts recording a transaction.
    func beginSession() {
        session = WriteSession(lamport: meta.lamport + 1)
    }

    /// Starts recording changes of the tree in memory, on the transaction's first change
    /// of it (most transactions — keystrokes — never touch it), after reading the tree if
    /// no transaction has yet (see ``hierarchyToChange()``).
    ///
    /// - Throws: An error reading the hierarchy from LMDB.
    func willChangeTree() throws {
        guard session?.touchesTree == false else { return }
        _ = try hierarchyToChange()
        session?.touchesTree = true
        tree.beginChanges()
    }

    /// Notes that `id` is about to change, so a rollback can restore it.
    func willChange(_ id: RecordID) {
        if session?.savedRecords[id] == nil { session?.savedRecords[id] = .some(records[id]) }
    }

    /// Notes that the text `id` is about to change.
    func willChange(_ id: TextID, _ stored: StoredText, remotely: Bool = false) {
        session?.texts.note(id, remotely ? .version(stored.text.version) : .counter(stored.text.localCounter))
    }

    /// Undoes everything the transaction did in memory.
    func rollbackSession() {
        guard let session else { return }
        for (id, saved) in session.savedRecords { records[id] = saved }
        // Texts have no cheap undo; drop them so they are read again from disk.
        for entry in session.texts.entries { texts[entry.id] = nil }
        if let saved = session.merge?.savedPending { pending = saved }
        if let saved = session.savedNames { names = saved }
        if let saved = session.savedNameFields { nameFields = saved }
        if session.touchesTree { tree.revertChanges() }
        self.session = nil
    }

    /// Works out what the transaction writes: one change for a local write, the applied
    /// changes for a merge. Changes nothing in memory, so a failed LMDB commit can still
    /// be rolled back with ``rollbackSession()``.
    ///
    /// - Parameters:
    ///   - origin: Whether the changes are this replica's (a new change is made) or
    ///     merged from others (`applied` are written to the log).
    ///   - applied: For merges, the changes applied, in order.
    /// - Returns: What to write and, once written, to make the memory match; `nil` when
    ///   the transaction changed nothing (end it with ``endEmptySession()``).
    func prepareCommit(origin: StoreEvent.Origin, applied: ChangeIDs = ChangeIDs()) throws -> PreparedCommit? {
        guard let session else { return nil }
        // An undo that found typing still buffered, even if its body caught the request.
        if !session.typingToCommit.isEmpty { throw TypingCommitRequest(sessions: session.typingToCommit) }
        var writes = DiskWrites()
        var event = StoreEvent(origin: origin)
        var metaChange: MetaChange
        var loggedBytes = 0
        var newSlots: [TextID: UInt64] = [:]
        var writesMeta = true
        var localChange: Change?  // the change a local write makes

        // Texts: their operations go into the change, nothing else is written for them
        // (a merge's are in the units it logs, so it notes the texts it changed, no operations).
        var textOperations: [TextOperations] = []
        for entry in session.texts.entries {
            let id = entry.id
            guard let stored = texts[id] else { continue }
            let operations: [TextOperation]
            switch entry.start {
            case .counter(let counter):
                operations = stored.text.localOperations(since: counter)
            case .version(let version):
                // A merge logs the units it integrated, not these: it only needs to know
                // whether the text changed, which its version tells without collecting them.
                guard origin == .local else {
                    if stored.text.version != version {
                        textOperations.append(TextOperations(text: id, operations: []))
                        event.texts.insert(id)
                    }
                    continue
                }
                operations = stored.text.operations(since: version)
            }
            guard !operations.isEmpty else { continue }
            textOperations.append(TextOperations(text: id, operations: operations))
            event.texts.insert(id)
        }

        // Records: the new state of each touched one.
        for id in session.savedRecords.isEmpty ? [] : session.savedRecords.keys.sorted() {
            if let record = records[id] {
                writes.put(record.encoded(), Key(StoreLayout.recordKey(id)), layout.records)
            } else {
                writes.remove(Key(StoreLayout.recordKey(id)), layout.records)
            }
            if records[id] != session.savedRecords[id] ?? nil { event.records.insert(id) }
        }

        let treeChanges = session.touchesTree ? tree.pendingChanges() : session.treeEdits?.changeSet
        for node in treeChanges?.nodes ?? [] {
            let id = RecordID(node.node)
            event.nodes.insert(id)
            event.moves[id] = StoreEvent.Move(
                from: node.before.map { StoreEvent.Place($0.parent) }, to: node.after.map { StoreEvent.Place($0.parent) })
        }

        switch origin {
        case .local:
            var operations: [StoreOperation] = []
            operations.reserveCapacity(session.treeOperations.count + session.fieldWrites.count + textOperations.count)
            for operation in session.treeOperations { operations.append(.tree(operation)) }
            if !session.fieldWrites.isEmpty {
                for id in session.fieldWrites.keys.sorted() {
                    let write = session.fieldWrites[id]!
                    operations.append(.fields(record: id, type: write.type, values: write.values))
                }
            }
            for edited in textOperations { operations.append(.text(edited.text, edited.operations)) }
            guard !operations.isEmpty else { return nil }
            // Only what this replica learned since its previous change (see Change+Encoding).
            // Usually nothing (typing): then no vector is built.
            var otherCount = 0
            var learned = false
            for (other, counter) in meta.version.counters where other != replica && counter > 0 {
                otherCount += 1
                if meta.lastDependencies[other] != counter { learned = true }
            }
            let others = learned || otherCount != meta.lastDependencies.counters.count
                ? VersionVector(meta.version.counters.filter { $0.key != replica && $0.value > 0 })
                : meta.lastDependencies
            let dependencies = learned
                ? VersionVector(others.counters.filter { meta.lastDependencies[$0.key] != $0.value })
                : VersionVector()
            // Never before the replica's previous change: a replica's times only grow, so a
            // delta file gives each as a small step from the one before.
            let now = UInt64(max(1, min(clock().timeIntervalSince1970.rounded(.down), Double(Change.maximumTime - 1))))
            let change = Change(
                id: ChangeID(replica: replica, counter: meta.version[replica]), count: UInt64(operations.count),
                lamport: session.lamport, dependencies: dependencies, operations: operations,
                time: max(now, meta.times[replica] ?? 0))
            localChange = change
            let entry = logEntry(.change(change), newSlots: &newSlots, writes: &writes)
            loggedBytes += entry.count
            writes.put(entry, StoreLayout.changeKey(change.id), layout.changes)
            noteNames(of: change)
            metaChange = .local(LocalClocks(
                lamport: session.lamport, time: change.time, lastDependencies: others, change: change.id, count: change.count))
            // The stored meta record may lag behind this replica's own counter and clock:
            // opening reads those from the last change (see `StoreState.catchUp`), so a
            // keystroke writes one record less. The replica's first change with a time
            // writes it, though: it says format 4 or later before any entry with a time is
            // on disk.
            writesMeta = !dependencies.counters.isEmpty || meta.times[replica] == nil
            event.changes = [change.id]
        case .remote, .otherProcess:  // merges; another process's changes are never committed here
            event.changes = applied
            let merge = session.merging
            for replica in merge.integrated.keys.sorted() {
                // A merged run is one entry however long: written once, its pages are
                // contiguous at the end of the file, and cutting it would cost the import.
                for unit in merge.integrated[replica]! {
                    let entry = logEntry(unit, sent: merge.integratedRunBytes[unit.id], newSlots: &newSlots, writes: &writes)
                    loggedBytes += entry.count
                    writes.put(entry, StoreLayout.changeKey(unit.id), layout.changes)
                }
            }
            for id in merge.pendingRemoved { writes.remove(StoreLayout.changeKey(id), layout.pending) }
            for id in merge.pendingAdded.sorted() {
                writes.put(pending[id]!.stored, StoreLayout.changeKey(id), layout.pending)
            }
            metaChange = .replaced(merge.mergedMeta ?? meta)
            if applied.isEmpty && merge.pendingAdded.isEmpty && merge.pendingRemoved.isEmpty { return nil }
        }
        let checkpointing = changesSinceCheckpoint + 1 >= StoredText.checkpointChanges
            || bytesSinceCheckpoint + loggedBytes >= StoredText.checkpointBytesDue(lastSnapshotBytes: lastSnapshotBytes)
        var snapshotBytes = 0
        let folding = checkpointing || changesSinceFold + 1 >= StoredText.foldChanges
        // The meta record is rewritten only when it must be (a keystroke leaves it alone);
        // only then is the whole of it copied.
        if writesMeta || checkpointing || folding {
            var newMeta = metaChange.applied(to: meta)
            if checkpointing {
                snapshotBytes = try addCheckpoint(to: &writes, meta: &newMeta, including: textOperations.map(\.text), newSlots: newSlots)
            }
            // Folding: the meta record says format 3 before any run is in the log.
            if folding { try foldLoggedChanges(into: &writes, newSlots: &newSlots, including: localChange) }
            writes.put(newMeta.encoded(), StoreLayout.metaKey, layout.meta)
            metaChange = .replaced(newMeta)
        }
        for (replica, positions) in self.session?.learnedNames ?? [:] {
            let table = names[replica]!
            for position in positions {
                writes.put(StoreLayout.encode(name: table[position], firstUse: table.firstUse(at: position)),
                           StoreLayout.nameKey(replica, position), layout.names)
            }
        }
        if session.savedNameFields != nil {
            writes.put(StoreLayout.encode(nameFields: nameFields), StoreLayout.nameFieldsKey, layout.meta)
        }
        return PreparedCommit(
            writes: writes, treeChanges: treeChanges, metaChange: metaChange, newSlots: newSlots, textOperations: textOperations,
            loggedBytes: loggedBytes, checkpointing: checkpointing, snapshotBytes: snapshotBytes, folding: folding, event: event)
    }

    /// Ends a transaction that changed nothing.
    func endEmptySession() {
        if session?.touchesTree == true { tree.commitChanges() }
        // Moves refused (a cycle) leave the lists as LMDB holds them.
        if let edits = session?.treeEdits { childListsKept = edits.takeChildLists() }
        // An undo whose parts were all changed since by others still uses up its step.
        if let session, session.reverted != nil { recordUndo(session, textOperations: []) }
        session = nil
    }

    /// Adds what a committed local transaction did to the undo history (see
    /// ``UndoHistory/record(_:reverted:typing:redirects:)``).
    private func recordUndo(_ session: WriteSession, textOperations: [TextOperations]) {
        let typing = session.typingEnded || !session.undoFields.isEmpty || !session.undoMoves.isEmpty
            || textOperations.count != 1 ? nil : session.typing
        // A keystroke that types on joins the open step in place.
        if session.reverted == nil, session.undoRedirects.isEmpty, let typing,
            undoHistory.extendTyping(typing, in: textOperations[0].text, by: textOperations[0].operations)
        {
            return
        }
        var step = UndoStep()
        step.texts = textOperations.map {
            let footprint = ReplicatedText.EditFootprint($0.operations)
            // One operation (a keystroke) leaves one range of each kind: already the merged
            // form that following an empty footprint gives.
            return UndoStep.TextPart(
                id: $0.text, footprint: $0.operations.count == 1 ? footprint : ReplicatedText.EditFootprint([]).followed(by: footprint))
        }
        step.fields = session.undoFields
        step.moves = session.undoMoves
        undoHistory.record(step, reverted: session.reverted, typing: typing, redirects: session.undoRedirects)
    }

    /// Makes the memory match a commit LMDB has made durable, and ends the session.
    ///
    /// - Parameter transaction: The LMDB transaction that committed it.
    /// - Returns: The event to publish.
    func finish(_ commit: PreparedCommit, transaction: Int) -> StoreEvent {
        guard let session else { return commit.event }
        if commit.event.origin == .local { recordUndo(session, textOperations: commit.textOperations) }
        if session.touchesTree { tree.commitChanges() }
        if let edits = session.treeEdits {
            let lists = edits.takeChildLists()
            if lists.values.reduce(0, { $0 + $1.count }) <= Self.childListsLimit { childListsKept = lists }
        }
        commit.metaChange.apply(to: &meta)
        for (text, slot) in commit.newSlots {
            textSlots[text] = slot
            slotTexts[slot] = text
        }
        changesSinceFold = commit.folding ? 0 : changesSinceFold + 1
        if commit.checkpointing {
            changesSinceCheckpoint = 0
            bytesSinceCheckpoint = 0
            textsSinceCheckpoint = []
            lastSnapshotBytes = commit.snapshotBytes
        } else {
            changesSinceCheckpoint += 1
            bytesSinceCheckpoint += commit.loggedBytes
            for edited in commit.textOperations { textsSinceCheckpoint?.insert(edited.text) }
        }
        knownTransaction = transaction
        records.trim()
        self.session = nil
        return commit.event
    }
}

extension StoreState {
    // MARK: Checkpoints

    /// Counts the changes logged since the checkpoint, to know when the next one is due.
    func measureSinceCheckpoint<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws {
        for (replica, counter) in meta.version.counters where counter > meta.checkpoint[replica] {
            let start = StoreLayout.changeKey(ChangeID(replica: replica, counter: meta.checkpoint[replica]))
            let end = StoreLayout.changeKey(ChangeID(replica: replica, counter: UInt64.max))
            try tx.scan(layout.changes, range: KeyRange(from: start, to: end)) { _, value in
                changesSinceCheckpoint += 1
                bytesSinceCheckpoint += value.count
                return .continue
            }
        }
    }

    /// Adds a checkpoint to a commit: snapshots of every text changed since the last one
    /// (those of this commit included), and the new checkpoint version in `meta`.
    ///
    /// - Returns: The bytes of the snapshots.
    @discardableResult
    func addCheckpoint(to writes: inout DiskWrites, meta newMeta: inout StoreMeta, including current: [TextID], newSlots: [TextID: UInt64]) throws -> Int {
        var changed = Set(current)
        let layout = layout
        if let known = textsSinceCheckpoint {
            changed.formUnion(known)
        } else {
            try environment.read { tx in
                for text in try operationsSinceCheckpoint(in: tx).keys { changed.insert(text) }
            }
        }
        var bytes = 0
        for id in changed.sorted(by: { ($0.record, $0.field) < ($1.record, $1.field) }) {
            bytes += TextSnapshotStorage.write(try text(id).text, of: id, into: &writes, layout: layout)
        }
        newMeta.checkpoint = newMeta.version
        return bytes
    }

    /// The largest log entry of a folded run: one LMDB overflow page (4,096 bytes less
    /// its 16-byte header). A fold rewrites the last entry to top it up; a larger value
    /// would take several contiguous pages, which the pages freed as a store is used
    /// rarely provide, so the file would grow instead.
    static let maximumRunEntryBytes = 4_080

    /// Folds the changes logged since the checkpoint that continue one another (a text's
    /// keystrokes) into runs: one entry instead of one per keystroke, so the log stops
    /// growing by LMDB's overhead per entry. The entries read are those committed; the
    /// commit being prepared holds the writer lock, so no other process adds any.
    ///
    /// - Parameters:
    ///   - newSlots: Slots the commit gives new texts (see ``logEntry(_:newSlots:writes:)``).
    ///   - current: The change the commit logs, folded with those before it: otherwise
    ///     it would stay a lone entry among runs.
    func foldLoggedChanges(into writes: inout DiskWrites, newSlots: inout [TextID: UInt64], including current: Change? = nil) throws {
        let layout = layout
        var folded: [(units: [ChangeUnit], replaced: [ChangeID])] = []
        try environment.read { tx in
            for (replica, counter) in meta.version.counters.sorted(by: { $0.key < $1.key }) where counter > meta.checkpoint[replica] {
                let end = StoreLayout.changeKey(ChangeID(replica: replica, counter: UInt64.max))
                var start = StoreLayout.changeKey(ChangeID(replica: replica, counter: meta.checkpoint[replica]))
                // From the entry before the checkpoint: a run there may be topped up.
                try tx.scan(layout.changes, range: KeyRange(from: Key(replica.rawValue), to: start), reverse: true) { key, _ in
                    start = Key(bytes: Array(key))
                    return .stop
                }
                var singles: [Change] = []
                var ids: [ChangeID] = []
                // The run entry just before the singles, while it has room for more.
                var openRun: (key: [UInt8], value: [UInt8])?
                var failure: (any Error)?
                func fold() throws {
                    defer {
                        singles.removeAll()
                        ids.removeAll()
                    }
                    guard !singles.isEmpty else { return }
                    var initial: ChangeRun?
                    if let run = openRun, case .run(let open) = try run.key.withUnsafeBytes({ key in
                        try run.value.withUnsafeBytes { value in try decodeLogEntry(key: key, value: value) }
                    }) {
                        initial = open
                    }
                    // The open run is topped up in place, not expanded into its changes; the
                    // joiner holds its only copy, so its arrays grow without being copied.
                    let initialID = initial?.id
                    var joiner = ChangeRunJoiner(continuing: initial.take())
                    for change in singles { joiner.add(change) }
                    var units = joiner.finish()
                    var replaced = ids
                    if let initialID {
                        if joiner.continuedInitialRun { replaced.insert(initialID, at: 0) } else { units.removeFirst() }  // unchanged
                    }
                    if replaced.count >= 2 { folded.append((units, replaced)) }
                }
                try tx.scan(layout.changes, range: KeyRange(from: start, to: end)) { key, value in
                    do {
                        // Runs (folded before, or merged) are decoded only to be topped up.
                        if ChangeUnit.isRun(logEntry: value) {
                            try fold()
                            openRun = value.count < Self.maximumRunEntryBytes * 85 / 100 ? (Array(key), Array(value)) : nil
                            return .continue
                        }
                        guard case .change(let change) = try decodeLogEntry(key: key, value: value),
                            ChangeRun.textEdit(of: change) != nil
                        else {
                            try fold()
                            openRun = nil
                            return .continue
                        }
                        singles.append(change)
                        ids.append(change.id)
                    } catch {
                        failure = error
                        return .stop
                    }
                    return .continue
                }
                if let failure { throw failure }
                if let current, current.id.replica == replica, ChangeRun.textEdit(of: current) != nil {
                    singles.append(current)
                    ids.append(current.id)
                }
                try fold()
            }
        }
        for (units, replaced) in folded where units.count < replaced.count {
            let kept = Set(units.compactMap { unit -> ChangeID? in if case .change = unit { unit.id } else { nil } })
            for id in replaced where !kept.contains(id) { writes.remove(StoreLayout.changeKey(id), layout.changes) }
            for unit in units {
                guard case .run = unit else { continue }
                for (id, entry) in logEntries(unit, newSlots: &newSlots, writes: &writes) {
                    writes.put(entry, StoreLayout.changeKey(id), layout.changes)
                }
            }
        }
    }

    /// Writes a checkpoint on its own, when any change was logged since the last one.
    func writeCheckpoint() throws {
        guard changesSinceCheckpoint > 0, !environment.configuration.readOnly else { return }
        let written = try environment.write { tx -> (meta: StoreMeta, transaction: Int, snapshotBytes: Int)? in
            // The snapshots are of the texts as on disk, other processes' edits included.
            try refresh(in: tx, snapshot: tx.transactionID - 1)
            guard changesSinceCheckpoint > 0 else { return nil }
            var writes = DiskWrites()
            var newMeta = meta
            let snapshotBytes = try addCheckpoint(to: &writes, meta: &newMeta, including: [], newSlots: [:])
            var newSlots: [TextID: UInt64] = [:]  // stays empty: every text logged has its slot
            try foldLoggedChanges(into: &writes, newSlots: &newSlots)
            writes.put(newMeta.encoded(), StoreLayout.metaKey, layout.meta)
            try writes.perform(in: tx)
            return (newMeta, tx.transactionID, snapshotBytes)
        }
        guard let written else { return }
        meta = written.meta
        knownTransaction = written.transaction
        lastSnapshotBytes = written.snapshotBytes
        changesSinceFold = 0
        changesSinceCheckpoint = 0
        bytesSinceCheckpoint = 0
        textsSinceCheckpoint = []
    }

    /// Brings a stored meta record up to date with this replica's last change: local
    /// commits without new dependencies do not rewrite the meta record.
    static func catchUp<T: ReadableTransaction & ~Copyable>(_ meta: inout StoreMeta, layout: StoreLayout, in tx: borrowing T) throws {
        var failure: StoreError?
        let replica = meta.replica
        var latest: (end: UInt64, lamport: UInt64, time: UInt64)?
        try tx.scan(layout.changes, range: .prefix(Key(replica.rawValue)), reverse: true) { key, value in
            do {
                guard key.count == 16 else { throw DecodingError.malformed("change key of \(key.count) bytes", at: 0) }
                let id = StoreLayout.changeID(fromKey: key), bytes = Array(value)
                var reader = ByteReader(bytes)
                let (end, lamport) = try ChangeUnit.logEntryEnd(&reader, id: id)
                let time = try ChangeUnit.logEntryTime(bytes, id: id) { reader, _ in
                    _ = try reader.readVarint("text slot")  // only the time is wanted
                    return TextID(record: RecordID(replica: id.replica, counter: 0), field: "")
                }
                latest = (end, lamport, time)
            } catch {
                failure = .corrupt(database: layout.changes.name, problem: "\(error)")
            }
            return .stop
        }
        if let failure { throw failure }
        guard let latest else { return }
        if latest.end > meta.version[replica] {
            meta.version.record(OperationID(replica: replica, counter: meta.version[replica]), count: latest.end - meta.version[replica])
        }
        meta.lamport = max(meta.lamport, latest.lamport)
        meta.times[replica] = latest.time > 0 ? latest.time : nil
    }

    /// The change-log entries of `unit`, keyed by their first change: one, or for a run
    /// whose entry would exceed ``maximumRunEntryBytes``, runs that each fit.
    func logEntries(_ unit: ChangeUnit, newSlots: inout [TextID: UInt64], writes: inout DiskWrites) -> [(ChangeID, [UInt8])] {
        let entry = logEntry(unit, newSlots: &newSlots, writes: &writes)
        guard entry.count > Self.maximumRunEntryBytes, case .run(let run) = unit else { return [(unit.id, entry)] }
        // Pieces in proportion to the bytes, a little smaller so that most fit; one that
        // does not is cut again.
        let size = max(1, UInt64(Double(run.count) * Double(Self.maximumRunEntryBytes) / Double(entry.count) * 0.85))
        return run.pieces(ofChanges: size).flatMap { piece in logEntries(piece, newSlots: &newSlots, writes: &writes) }
    }

    /// The change-log form of `unit` (see `ChangeUnit+LogEncoding.swift`), texts named by
    /// slot. Texts without a slot get the next free numbers, recorded in `newSlots` and
    /// written with `writes`.
    func logEntry(
        _ unit: ChangeUnit, sent: EncodedRunOperations? = nil, newSlots: inout [TextID: UInt64], writes: inout DiskWrites
    ) -> [UInt8] {
        var writer = ByteWriter(capacity: 64)  // a keystroke's entry is about 20 bytes
        unit.encodeLogEntry(into: &writer, sent: sent) { text, writer in
            let slot: UInt64
            if let known = textSlots[text] ?? newSlots[text] {
                slot = known
            } else {
                slot = UInt64(textSlots.count + newSlots.count)
                newSlots[text] = slot
                writes.put(StoreLayout.encode(text), StoreLayout.slotKey(slot), layout.textSlots)
            }
            writer.write(varint: slot)
        }
        return writer.bytes
    }

}

/// What one commit writes, and what the memory takes on once LMDB has committed it.
///
/// A class: the commit hands it from the LMDB transaction to ``StoreState/finish(_:transaction:)``,
/// and a struct of a dozen tables is copied and destroyed there through the runtime's
/// generic witnesses, about 2,500 instructions a keystroke.
final class PreparedCommit {
    let writes: DiskWrites
    let treeChanges: TreeChangeSet?
    /// How the store's clocks and versions move on.
    let metaChange: MetaChange
    let newSlots: [TextID: UInt64]
    let textOperations: [TextOperations]
    let loggedBytes: Int
    let checkpointing: Bool
    /// The bytes of the snapshots the checkpoint writes.
    let snapshotBytes: Int
    /// Whether the commit folds the log's keystroke changes into runs.
    let folding: Bool
    let event: StoreEvent

    init(
        writes: DiskWrites, treeChanges: TreeChangeSet?, metaChange: MetaChange, newSlots: [TextID: UInt64],
        textOperations: [TextOperations], loggedBytes: Int, checkpointing: Bool, snapshotBytes: Int, folding: Bool,
        event: StoreEvent
    ) {
        self.writes = writes
        self.treeChanges = treeChanges
        self.metaChange = metaChange
        self.newSlots = newSlots
        self.textOperations = textOperations
        self.loggedBytes = loggedBytes
        self.checkpointing = checkpointing
        self.snapshotBytes = snapshotBytes
        self.folding = folding
        self.event = event
    }

    /// Writes it in `tx`. Always writes something (the log entry or the meta record), so
    /// LMDB commits it as a new transaction.
    func perform(in tx: borrowing WriteTransaction, layout: StoreLayout, replica: ReplicaID) throws {
        try writes.perform(in: tx)
        if let treeChanges { try layout.tree.write(treeChanges, replica: replica, in: tx) }
    }
}

/// The operations a local commit adds to one text (none for a merge, which logs the
/// units it integrated).
struct TextOperations {
    let text: TextID
    let operations: [TextOperation]
}

/// How a commit moves the store's clocks and versions (``StoreMeta``) on.
enum MetaChange {
    /// A local change: this replica's clock, time, dependencies and counter. Applied in
    /// place, so a keystroke copies none of the meta record's tables.
    case local(LocalClocks)
    /// The whole record after the commit: a merge's, or one the commit writes.
    case replaced(StoreMeta)

    /// `meta` moved on.
    func applied(to meta: StoreMeta) -> StoreMeta {
        var result = meta
        apply(to: &result)
        return result
    }

    /// Moves `meta` on.
    func apply(to meta: inout StoreMeta) {
        switch self {
        case .local(let clocks):
            meta.lamport = clocks.lamport
            meta.times[clocks.change.replica] = clocks.time
            meta.lastDependencies = clocks.lastDependencies
            meta.version.record(OperationID(replica: clocks.change.replica, counter: clocks.change.counter), count: clocks.count)
        case .replaced(let replacement):
            meta = replacement
        }
    }
}

/// What one local change of this replica sets in ``StoreMeta``.
struct LocalClocks {
    var lamport: UInt64
    var time: UInt64
    var lastDependencies: VersionVector
    /// The change made, and how many operations it holds.
    var change: ChangeID
    var count: UInt64
}

/// The puts and deletes of one commit, computed before the LMDB write so that its body
/// has no side effects (LMDB may run it again after growing the map).
struct DiskWrites {
    private enum Write {
        case put([UInt8], Key, Database)
        case remove(Key, Database)
        case removeAll(KeyRange, Database)
    }

    private var writes: [Write] = []

    /// Whether there is nothing to write.
    var isEmpty: Bool { writes.isEmpty }

    mutating func put(_ value: [UInt8], _ key: Key, _ database: Database) { writes.append(.put(value, key, database)) }
    mutating func remove(_ key: Key, _ database: Database) { writes.append(.remove(key, database)) }
    mutating func removeAll(_ range: KeyRange, _ database: Database) { writes.append(.removeAll(range, database)) }

    func perform(in tx: borrowing WriteTransaction) throws {
        for write in writes {
            switch write {
            case .put(let value, let key, let database): try tx.put(value, forKey: key, in: database)
            case .remove(let key, let database): _ = try tx.removeValue(forKey: key, in: database)
            case .removeAll(let range, let database): _ = try tx.removeAll(in: database, range: range)
            }
        }
    }
}
