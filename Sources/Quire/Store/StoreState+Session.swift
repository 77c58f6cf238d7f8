import LMDB
import QuireCore

extension StoreState {
    /// Starts recording a transaction.
    func beginSession() {
        session = WriteSession(lamport: meta.lamport + 1)
        tree.beginChanges()
    }

    /// Notes that `id` is about to change, so a rollback can restore it.
    func willChange(_ id: RecordID) {
        if session?.savedRecords[id] == nil { session?.savedRecords[id] = .some(records[id]) }
    }

    /// Notes that the text `id` is about to change.
    func willChange(_ id: TextID, _ stored: StoredText) {
        guard session?.textVersions[id] == nil else { return }
        session?.textVersions[id] = stored.text.version
        session?.textOrder.append(id)
    }

    /// Undoes everything the transaction did in memory.
    func rollbackSession() {
        guard let session else { return }
        for (id, saved) in session.savedRecords { records[id] = saved }
        // Texts have no cheap undo; drop them so they are read again from disk.
        for id in session.textOrder { texts[id] = nil }
        if let saved = session.savedPending { pending = saved }
        tree.revertChanges()
        self.session = nil
    }

    /// Writes the transaction as one change in one LMDB write and ends it.
    ///
    /// - Parameters:
    ///   - origin: Whether the changes are this replica's (a new change is made) or
    ///     merged from others (`applied` are written to the log).
    ///   - applied: For merges, the changes applied, in order.
    /// - Returns: The event to publish, or `nil` when nothing changed.
    func commitSession(origin: StoreEvent.Origin, applied: [ChangeID] = []) throws -> StoreEvent? {
        guard let session else { return nil }
        var writes = DiskWrites()
        var event = StoreEvent(origin: origin)
        var newMeta = meta
        var textUpdates: [(StoredText, tailCount: Int, tailBytes: Int, snapshotBytes: Int?)] = []
        var newSlots: [TextID: UInt64] = [:]

        // Texts: an operation entry, or a fresh snapshot when the entries have grown.
        var textOperations: [(TextID, [TextOperation])] = []
        for id in session.textOrder {
            guard let stored = texts[id], let before = session.textVersions[id] else { continue }
            let operations = stored.text.operations(since: before)
            guard !operations.isEmpty else { continue }
            textOperations.append((id, operations))
            event.texts.insert(id)
            let encoded = TextOperationCoding.encode(operations)
            if let snapshotBytes = stored.snapshotBytes, stored.tailCount < StoredText.maximumTailCount,
                stored.tailBytes + encoded.count <= StoredText.compactionThreshold(snapshotBytes: snapshotBytes)
            {
                writes.put(encoded, StoreLayout.textOperationKey(id, sequence: stored.tailCount), layout.textOperations)
                textUpdates.append((stored, stored.tailCount + 1, stored.tailBytes + encoded.count, snapshotBytes))
            } else {
                let snapshot = stored.text.encodedState()
                writes.put(snapshot, StoreLayout.textKey(id), layout.texts)
                writes.removeAll(.prefix(StoreLayout.textKey(id)), layout.textOperations)
                textUpdates.append((stored, 0, 0, snapshot.count))
            }
        }

        // Records: the new state of each touched one.
        for id in session.savedRecords.keys.sorted() {
            if let record = records[id] {
                writes.put(record.encoded(), StoreLayout.recordKey(id), layout.records)
            } else {
                writes.remove(StoreLayout.recordKey(id), layout.records)
            }
            if records[id] != session.savedRecords[id] ?? nil { event.records.insert(id) }
        }

        let treeChanges = tree.pendingChanges()
        for node in treeChanges.nodes { event.nodes.insert(RecordID(node.node)) }

        switch origin {
        case .local:
            var operations = session.treeOperations.map(StoreOperation.tree)
            for id in session.fieldWrites.keys.sorted() {
                let write = session.fieldWrites[id]!
                operations.append(.fields(record: id, type: write.type, values: write.values))
            }
            operations += textOperations.map { StoreOperation.text($0.0, $0.1) }
            guard !operations.isEmpty else {
                tree.commitChanges()
                self.session = nil
                return nil
            }
            // Only what this replica learned since its previous change (see Change+Encoding).
            let others = VersionVector(meta.version.counters.filter { $0.key != replica && $0.value > 0 })
            let dependencies = VersionVector(others.counters.filter { meta.lastDependencies[$0.key] != $0.value })
            let change = Change(
                id: ChangeID(replica: replica, counter: meta.version[replica]), count: UInt64(operations.count),
                lamport: session.lamport, dependencies: dependencies, operations: operations)
            writes.put(logEntry(change, newSlots: &newSlots, writes: &writes), StoreLayout.changeKey(change.id), layout.changes)
            newMeta.lamport = session.lamport
            newMeta.lastDependencies = others
            newMeta.version.record(OperationID(replica: replica, counter: change.id.counter), count: change.count)
            event.changes = [change.id]
        case .remote:
            event.changes = applied
            for id in applied {
                if let change = session.integrated[id] {
                    writes.put(logEntry(change, newSlots: &newSlots, writes: &writes), StoreLayout.changeKey(id), layout.changes)
                }
            }
            for id in session.pendingRemoved { writes.remove(StoreLayout.changeKey(id), layout.pending) }
            for id in session.pendingAdded.sorted() {
                writes.put(pending[id]!.encoded, StoreLayout.changeKey(id), layout.pending)
            }
            newMeta = session.mergedMeta ?? meta
            if applied.isEmpty && session.pendingAdded.isEmpty && session.pendingRemoved.isEmpty {
                tree.commitChanges()
                self.session = nil
                return nil
            }
        }
        writes.put(newMeta.encoded(), StoreLayout.metaKey, layout.meta)

        let layout = layout
        let ownReplica = replica
        try environment.write { tx in
            try writes.perform(in: tx)
            try layout.tree.write(treeChanges, replica: ownReplica, in: tx)
        }
        // Committed: make the memory match.
        if origin == .local {
            for (id, operations) in textOperations {
                undoHistories[id, default: TextUndoHistory()].record(
                    .init(operations), as: session.undoActions[id], redirects: session.undoRedirects[id] ?? [])
            }
        }
        tree.commitChanges()
        meta = newMeta
        for (text, slot) in newSlots {
            textSlots[text] = slot
            slotTexts[slot] = text
        }
        for (stored, tailCount, tailBytes, snapshotBytes) in textUpdates {
            stored.tailCount = tailCount
            stored.tailBytes = tailBytes
            stored.snapshotBytes = snapshotBytes
        }
        self.session = nil
        return event
    }

    /// The stored changes a replica at `version` lacks.
    func storedChanges(since version: VersionVector) throws -> [Change] {
        let layout = layout
        let replicas = meta.version.counters.keys.sorted()
        return try environment.read { tx in
            var result: [Change] = []
            for replica in replicas where version[replica] < meta.version[replica] {
                var failure: StoreError?
                try tx.scan(layout.changes, range: .prefix(Key(replica.rawValue))) { key, value in
                    do throws(StoreError) {
                        let change = try decodeLogEntry(key: key, value: value)
                        if change.endCounter > version[replica] { result.append(change) }
                    } catch {
                        failure = .corrupt(database: layout.changes.name, problem: error.description)
                        return .stop
                    }
                    return .continue
                }
                if let failure { throw failure }
            }
            return result
        }
    }
}

extension StoreState {
    /// The change-log form of `change`: its body, texts named by slot. Texts without a
    /// slot get the next free numbers, recorded in `newSlots` and written with `writes`.
    func logEntry(_ change: Change, newSlots: inout [TextID: UInt64], writes: inout DiskWrites) -> [UInt8] {
        var writer = ByteWriter()
        change.encodeBody(into: &writer) { text, _, writer in
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

    /// Reads a change-log entry.
    func decodeLogEntry(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(StoreError) -> Change {
        guard key.count == 16 else { throw .corrupt(database: layout.changes.name, problem: "change key of \(key.count) bytes") }
        var reader = ByteReader(Array(value))
        let slotTexts = slotTexts
        do throws(StoreError) {
            let change = try Change.decodeBody(from: &reader, id: StoreLayout.changeID(fromKey: key)) { reader, _ in
                let slot = try reader.readVarint("text slot")
                guard let text = slotTexts[slot] else { throw DecodingError.malformed("unknown text slot \(slot)", at: reader.offset) }
                return text
            }
            guard reader.isAtEnd else { throw StoreError.invalidChange("\(reader.remaining) trailing bytes") }
            return change
        } catch {
            throw .corrupt(database: layout.changes.name, problem: error.description)
        }
    }
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
