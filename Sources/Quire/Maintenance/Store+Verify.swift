import Foundation
import LMDB
import QuireCore

extension Store {
    /// Checks everything the store keeps on disk against itself and reports each
    /// inconsistency precisely: the database, the key, what is wrong and what to do.
    ///
    /// ```swift
    /// let report = try store.verify()
    /// print(report)   // "healthy: checked 1204 changes, 0 pending, 31 records, …"
    /// ```
    ///
    /// What is checked, in one consistent read of the file (`docs/storage.md`):
    /// - **meta**: the meta record decodes; its version is at least what the change log
    ///   holds of every replica (exactly that, for other replicas), its Lamport clock at
    ///   least every logged change's, its checkpoint and pruned history within its version;
    /// - **change log**: every entry decodes (texts named by known slots); per replica the
    ///   counters cover the kept history up to the version without gaps or overlaps; every
    ///   dependency is within the version;
    /// - **pending**: every entry decodes, sits under its own ID, and still waits;
    /// - **indexes**: every record decodes and has a tree node of its type, every node a
    ///   record; text slots are numbered contiguously, each names a distinct text of an
    ///   existing record; every text snapshot decodes and has a slot; every replica's name
    ///   table is contiguous from position 0 without repeats;
    /// - **tree**: the state record belongs to this replica; every node decodes, its
    ///   parent exists, its ancestors reach the root or the trash without a cycle; the
    ///   children index holds exactly one entry per node, as its node record says; every
    ///   tree log entry decodes under its timestamp, and every node's last move is logged.
    ///
    /// - Complexity: O(*n* log *n*) in the entries of the store; it reads everything.
    /// - Returns: The problems found (none for a healthy store) and what was checked.
    /// - Throws: ``StoreError/closed``, or an `LMDBError` when the file cannot be read.
    ///   Damaged data is reported, not thrown.
    public func verify() throws -> VerifyReport {
        // Not under the store's lock: LMDB's snapshot is enough, and readers and
        // writers go on meanwhile.
        let layout = try withStateLock("store.verify") { state in
            guard !state.isClosed else { throw StoreError.closed }
            return state.layout
        }
        return try environment.read { tx in
            var verifier = StoreVerifier(layout: layout)
            try verifier.run(in: tx)
            return verifier.report
        }
    }

    /// Verifies the store in `directory` without opening it as a ``Store`` — for a store
    /// too damaged to open. Checks what ``verify()`` checks.
    ///
    /// ```swift
    /// let report = try Store.verify(directory: "/path/to/Notes.quire")
    /// ```
    ///
    /// - Parameters:
    ///   - directory: A store directory that is not open in this process.
    ///   - access: How to open it: read-only by default (verifying writes nothing);
    ///     ``Options/Access/readOnlyWithoutLock`` for a store on a read-only file system.
    /// - Returns: The problems found and what was checked.
    /// A `data.mdb` shorter than its meta pages say (truncated) is reported as one
    /// ``VerifyReport/Check/file`` problem, since nothing else can be read safely.
    ///
    /// - Throws: ``StoreError/corrupt(database:problem:)`` when the directory holds no
    ///   store, or an `LMDBError` (such as `.alreadyOpen` when this process has it open:
    ///   call ``verify()`` on that instance instead).
    public static func verify(directory: String, access: Options.Access = .readOnly) throws -> VerifyReport {
        guard FileManager.default.fileExists(atPath: directory + "/data.mdb") else {
            throw StoreError.corrupt(database: "data.mdb", problem: "\(directory) holds no store (no data.mdb)")
        }
        var configuration = Environment.Configuration()
        configuration.maxDatabases = 16
        configuration.readOnly = access.isReadOnly
        configuration.usesLockFile = access.usesLockFile
        let environment: Environment
        do {
            environment = try Environment(path: directory, configuration: configuration)
        } catch let error as LMDBError where error.code == .truncatedFile {
            var report = VerifyReport()
            report.problems.append(.init(
                check: .file, database: "data.mdb", key: "meta pages", problem: error.detail ?? error.code.explanation,
                remedy: StoreVerifier.Remedy.restore))
            return report
        }
        defer { try? environment.close() }
        let layout = try StoreLayout(environment: environment)
        return try environment.read { tx in
            var verifier = StoreVerifier(layout: layout)
            try verifier.run(in: tx)
            return verifier.report
        }
    }
}

/// The checks of ``Store/verify()``, over one read transaction.
struct StoreVerifier {
    let layout: StoreLayout
    var report = VerifyReport()

    enum Remedy {
        static let restore = "restore the store from a backup, or make a new store and import a full delta from another replica ('quire export' there, 'quire import' here)"
        static let rebuild = "the other replicas are unaffected: make a new store, import a full delta from another replica ('quire export' there), and copy over any edit only this replica has ('quire export' of it first)"
        static let stale = "harmless for reading; the entry is ignored by merges, and a new store imported from a full delta does not have it"
    }

    // What the checks learn, for the later ones.
    private var meta: StoreMeta?
    private var version = VersionVector()
    private var pruned = VersionVector()
    private var slotTexts: [UInt64: TextID] = [:]
    private var records: [RecordID: String] = [:]
    private var nodes: [NodeID: TreeNodeRecord] = [:]

    init(layout: StoreLayout) { self.layout = layout }

    private mutating func add(_ check: VerifyReport.Check, _ database: String, _ key: String, _ problem: String, _ remedy: String) {
        report.problems.append(.init(check: check, database: database, key: key, problem: problem, remedy: remedy))
    }

    mutating func run<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws {
        try readMeta(in: tx)
        try checkTextSlots(in: tx)
        try checkNames(in: tx)
        try checkChangeLog(in: tx)
        try checkPending(in: tx)
        try checkRecords(in: tx)
        try checkTree(in: tx)
        try checkTexts(in: tx)
    }

    // MARK: Meta

    private mutating func readMeta<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws {
        let database = layout.meta.name
        if let bytes = try tx.value(forKey: StoreLayout.metaKey, in: layout.meta) {
            do {
                let decoded = try StoreMeta.decode(bytes)
                meta = decoded
                version = decoded.version
            } catch {
                add(.meta, database, "store", "the meta record does not decode: \(error)", Remedy.restore)
            }
        } else {
            add(.meta, database, "store", "the meta record is missing (no replica ID, store ID or version)", Remedy.restore)
        }
        if let bytes = try tx.value(forKey: StoreLayout.nameFieldsKey, in: layout.meta) {
            do throws(DecodingError) {
                _ = try StoreLayout.decodeNameFields(bytes)
            } catch {
                add(.meta, database, "name-fields", "the sibling-name fields do not decode: \(error.description)",
                    "register the record types again (Store.Options.recordTypes) after deleting this entry, or restore from a backup")
            }
        }
        if let bytes = try tx.value(forKey: StoreLayout.prunedKey, in: layout.meta) {
            do throws(DecodingError) {
                pruned = try StoreLayout.decodePruned(bytes)
            } catch {
                add(.meta, database, "pruned", "the record of pruned history does not decode: \(error.description)", Remedy.restore)
            }
        }
    }

    // MARK: Change log

    private mutating func checkChangeLog<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws {
        let database = layout.changes.name
        var logEnds: [ReplicaID: UInt64] = [:]
        var lastLamport: [ReplicaID: UInt64] = [:]
        var entries: [(key: [UInt8], value: [UInt8])] = []
        try tx.scan(layout.changes) { key, value in
            entries.append((Array(key), Array(value)))
            return .continue
        }
        var dependencies: [(ChangeID, VersionVector)] = []
        var maximumLamport: (lamport: UInt64, change: ChangeID)?
        for (key, value) in entries {
            guard key.count == 16 else {
                report.changeCount += 1
                add(.changeLog, database, Self.hex(key), "a key of \(key.count) bytes, not 16 (replica, first counter)", Remedy.restore)
                continue
            }
            let id = key.withUnsafeBytes { StoreLayout.changeID(fromKey: $0) }
            let unit: ChangeUnit
            do {
                unit = try decodeLogEntry(id: id, value)
            } catch {
                report.changeCount += 1
                add(.changeLog, database, "\(id)", "the entry does not decode: \(error)", Remedy.restore)
                // Still count its place: the entry's first bytes give its end.
                var reader = ByteReader(value)
                if let end = try? ChangeUnit.logEntryEnd(&reader, id: id), end.end > id.counter {
                    note(id, count: end.end - id.counter, in: &logEnds)
                }
                continue
            }
            if case .run(let run) = unit { report.changeCount += Int(run.count) } else { report.changeCount += 1 }
            note(id, count: unit.count, in: &logEnds)
            lastLamport[id.replica] = unit.lastLamport
            if maximumLamport.map({ unit.lastLamport > $0.lamport }) ?? true { maximumLamport = (unit.lastLamport, id) }
            switch unit {
            case .change(let change): dependencies.append((id, change.dependencies))
            case .run(let run): dependencies.append((id, run.dependencies))
            }
        }

        guard let meta else { return }
        // Opening raises this replica's counter and clock to its last logged change: a
        // keystroke does not rewrite the meta record.
        let own = meta.replica
        if let end = logEnds[own], end > version[own] { version[own] = end }
        let lamport = max(meta.lamport, lastLamport[own] ?? 0)
        let metaDatabase = layout.meta.name
        for replica in Set(version.counters.keys).union(logEnds.keys).sorted() {
            let end = logEnds[replica] ?? pruned[replica]
            let has = version[replica]
            if has > end {
                add(.changeLog, database, "\(replica)", "the version says this store has counters 0..<\(has) of replica \(replica), but its log ends at \(end): changes \(end)..<\(has) are missing",
                    replica == own ? Remedy.rebuild : Remedy.restore)
            } else if end > has {
                add(.meta, metaDatabase, "store", "the log holds changes of replica \(replica) up to counter \(end), beyond the version's \(has): the meta record is behind", Remedy.restore)
            }
        }
        if let maximumLamport, maximumLamport.lamport > lamport {
            add(.meta, metaDatabase, "store", "the Lamport clock \(lamport) is behind change \(maximumLamport.change)'s \(maximumLamport.lamport): new changes could be ordered before older ones", Remedy.restore)
        }
        for (replica, counter) in meta.checkpoint.counters.sorted(by: { $0.key < $1.key }) where counter > version[replica] {
            add(.meta, metaDatabase, "store", "the checkpoint covers counters of replica \(replica) up to \(counter), beyond the version's \(version[replica])", Remedy.restore)
        }
        for (replica, counter) in pruned.counters.sorted(by: { $0.key < $1.key }) {
            if counter > version[replica] {
                add(.meta, metaDatabase, "pruned", "the history of replica \(replica) is pruned up to counter \(counter), beyond the version's \(version[replica])", Remedy.restore)
            } else if counter > meta.checkpoint[replica] {
                add(.meta, metaDatabase, "pruned", "the history of replica \(replica) is pruned up to counter \(counter), beyond the checkpoint's \(meta.checkpoint[replica]): text snapshots may lack pruned edits", Remedy.restore)
            }
        }
        for (id, needs) in dependencies {
            for (replica, counter) in needs.counters.sorted(by: { $0.key < $1.key }) where counter > version[replica] {
                add(.changeLog, database, "\(id)", "depends on replica \(replica)'s counters up to \(counter), but this store has only up to \(version[replica])", Remedy.restore)
            }
        }
    }

    /// Notes a change's place in its replica's counters, reporting gaps and overlaps.
    private mutating func note(_ id: ChangeID, count: UInt64, in ends: inout [ReplicaID: UInt64]) {
        let database = layout.changes.name
        let expected = ends[id.replica] ?? pruned[id.replica]
        if id.counter > expected {
            add(.changeLog, database, "\(id)", "changes \(id.replica)@\(expected)..<\(id.counter) are missing before this one: the log has a gap", Remedy.restore)
        } else if id.counter < expected {
            let what = ends[id.replica] == nil ? "lies in the pruned history (kept from counter \(expected))" : "overlaps the previous change of its replica, which ends at counter \(expected)"
            add(.changeLog, database, "\(id)", "the change (counters \(id.counter)..<\(id.counter + count)) \(what)", Remedy.restore)
        }
        ends[id.replica] = max(expected, id.counter + count)
    }

    private func decodeLogEntry(id: ChangeID, _ value: [UInt8]) throws -> ChangeUnit {
        var reader = ByteReader(value)
        let slotTexts = slotTexts
        return try ChangeUnit.decodeLogEntry(from: &reader, id: id) { reader, _ in
            let slot = try reader.readVarint("text slot")
            guard let text = slotTexts[slot] else { throw DecodingError.malformed("unknown text slot \(slot)", at: reader.offset) }
            return text
        }
    }

    // MARK: Pending

    private mutating func checkPending<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws {
        let database = layout.pending.name
        var entries: [(key: [UInt8], value: [UInt8])] = []
        try tx.scan(layout.pending) { key, value in
            entries.append((Array(key), Array(value)))
            return .continue
        }
        for (key, value) in entries {
            report.pendingCount += 1
            guard key.count == 16 else {
                add(.pending, database, Self.hex(key), "a key of \(key.count) bytes, not 16 (replica, first counter)", Remedy.restore)
                continue
            }
            let id = key.withUnsafeBytes { StoreLayout.changeID(fromKey: $0) }
            let change: IncomingChange
            do {
                change = try IncomingChange.decodeStored(value)
            } catch {
                add(.pending, database, "\(id)", "the pending change does not decode: \(error)",
                    "delete the store's pending changes by importing its replica's delta again into a new store, or restore from a backup")
                continue
            }
            if change.id != id {
                add(.pending, database, "\(id)", "the entry holds change \(change.id), not the one its key names", Remedy.restore)
            } else if meta != nil, change.endCounter <= version[id.replica] {
                add(.pending, database, "\(id)", "the change is applied already (this store has counters of \(id.replica) up to \(version[id.replica])) but is still stored as pending", Remedy.stale)
            }
        }
    }

    // MARK: Indexes

    private mutating func checkTextSlots<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws {
        let database = layout.textSlots.name
        var entries: [(key: [UInt8], value: [UInt8])] = []
        try tx.scan(layout.textSlots) { key, value in
            entries.append((Array(key), Array(value)))
            return .continue
        }
        var slotOf: [TextID: UInt64] = [:]
        var expected: UInt64 = 0
        for (key, value) in entries {
            guard key.count == 8 else {
                add(.indexes, database, Self.hex(key), "a key of \(key.count) bytes, not 8 (slot number)", Remedy.restore)
                continue
            }
            let slot = key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if slot > expected {
                add(.indexes, database, "slot \(slot)", "slots \(expected)..<\(slot) are missing: slots are numbered from 0 without gaps, so the change log names texts the store cannot find", Remedy.restore)
            }
            expected = slot + 1
            do throws(DecodingError) {
                let text = try StoreLayout.decodeText(value)
                if let other = slotOf[text] {
                    add(.indexes, database, "slot \(slot)", "names text \(text), which slot \(other) names already", Remedy.restore)
                }
                slotOf[text] = slot
                slotTexts[slot] = text
            } catch {
                add(.indexes, database, "slot \(slot)", "the text ID does not decode: \(error.description)", Remedy.restore)
            }
        }
    }

    private mutating func checkNames<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws {
        let database = layout.names.name
        var entries: [(key: [UInt8], value: [UInt8])] = []
        try tx.scan(layout.names) { key, value in
            entries.append((Array(key), Array(value)))
            return .continue
        }
        var tables: [ReplicaID: ReplicaNames] = [:]
        for (key, value) in entries {
            guard key.count == 16 else {
                add(.indexes, database, Self.hex(key), "a key of \(key.count) bytes, not 16 (replica, position)", Remedy.restore)
                continue
            }
            let node = key.withUnsafeBytes { TreeStorageLayout.nodeID(fromKey: $0) }  // (replica, position)
            let replica = node.replica, position = node.counter
            var table = tables[replica] ?? ReplicaNames()
            let name: String, firstUse: UInt64
            do throws(DecodingError) {
                (name, firstUse) = try StoreLayout.decodeName(value)
            } catch {
                add(.indexes, database, "\(replica) #\(position)", "the name does not decode: \(error.description)", Remedy.restore)
                continue
            }
            if position != UInt64(table.count) {
                add(.indexes, database, "\(replica) #\(position)", "replica \(replica)'s name table is not contiguous: position \(position) follows \(table.count) names, so changes naming fields by position would read the wrong names", Remedy.restore)
            }
            if table.note(name, firstUsedAt: firstUse) == nil {
                add(.indexes, database, "\(replica) #\(position)", "the name \(name.debugDescription) is already in replica \(replica)'s table", Remedy.restore)
            }
            tables[replica] = table
        }
    }

    private mutating func checkRecords<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws {
        let database = layout.records.name
        var entries: [(key: [UInt8], value: [UInt8])] = []
        try tx.scan(layout.records) { key, value in
            entries.append((Array(key), Array(value)))
            return .continue
        }
        for (key, value) in entries {
            report.recordCount += 1
            guard key.count == 16 else {
                add(.indexes, database, Self.hex(key), "a key of \(key.count) bytes, not 16 (record replica, counter)", Remedy.restore)
                continue
            }
            let id = RecordID(key.withUnsafeBytes { TreeStorageLayout.nodeID(fromKey: $0) })
            do throws(DecodingError) {
                records[id] = try RecordState.decode(value).type
            } catch {
                add(.indexes, database, "\(id)", "the record does not decode: \(error.description)", Remedy.restore)
                records[id] = ""
            }
        }
    }

    private mutating func checkTexts<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws {
        let database = layout.texts.name
        let slotted = Set(slotTexts.values)
        for text in slotTexts.values.sorted(by: { ($0.record, $0.field) < ($1.record, $1.field) }) where records[text.record] == nil {
            add(.indexes, layout.textSlots.name, "\(text)", "the text belongs to record \(text.record), which does not exist", Remedy.restore)
        }
        var entries: [(key: [UInt8], value: [UInt8])] = []
        try tx.scan(layout.texts) { key, value in
            entries.append((Array(key), Array(value)))
            return .continue
        }
        let replica = meta?.replica ?? ReplicaID(UInt64.max)
        // Chunks in key order: each text's first, then its others (TextSnapshotStorage).
        var snapshots: [(text: TextID, bytes: [UInt8])] = []
        for (key, value) in entries {
            let text: TextID, chunk: Int
            do throws(KeyReader.DecodingError) {
                (text, chunk) = try TextSnapshotStorage.decodeKey(key)
            } catch {
                report.textCount += 1
                add(.indexes, database, Self.hex(key), "the key does not decode as (record, field[, chunk]): \(error.description)", Remedy.restore)
                continue
            }
            if chunk == 0 {
                snapshots.append((text, value))
            } else if snapshots.last?.text == text {
                snapshots[snapshots.count - 1].bytes += value
            } else {
                add(.indexes, database, "\(text)", "snapshot chunk \(chunk) has no first chunk", Remedy.restore)
            }
        }
        // Each snapshot's string (format 5), read instead of the snapshot when nothing is
        // logged since the checkpoint: it must be the snapshot's text exactly.
        var strings: [TextID: [UInt8]] = [:]
        if let stringsDatabase = layout.textStrings {
            try tx.scan(stringsDatabase) { key, value in
                do throws(KeyReader.DecodingError) {
                    let (text, chunk) = try TextSnapshotStorage.decodeKey(key)
                    if chunk == 0 {
                        strings[text] = Array(value)
                    } else if strings[text] != nil {  // chunks come in key order
                        strings[text]! += Array(value)
                    } else {
                        add(.indexes, stringsDatabase.name, "\(text)", "string chunk \(chunk) has no first chunk", Remedy.restore)
                    }
                } catch {
                    add(.indexes, stringsDatabase.name, Self.hex(Array(key)), "the key does not decode as (record, field[, chunk]): \(error.description)", Remedy.restore)
                }
                return .continue
            }
            let snapshotTexts = Set(snapshots.map(\.text))
            for text in strings.keys.sorted(by: { ($0.record, $0.field) < ($1.record, $1.field) }) where !snapshotTexts.contains(text) {
                add(.indexes, stringsDatabase.name, "\(text)", "the text has a string but no snapshot in texts", Remedy.restore)
            }
        }
        for (text, value) in snapshots {
            report.textCount += 1
            if !slotted.contains(text) {
                add(.indexes, database, "\(text)", "the text has a snapshot but no slot in text-slots, so its logged edits cannot be found", Remedy.restore)
            }
            if records[text.record] == nil, !slotted.contains(text) {  // else reported under text-slots
                add(.indexes, database, "\(text)", "the text belongs to record \(text.record), which does not exist", Remedy.restore)
            }
            do {
                let decoded = try ReplicatedText(replica: replica, state: value)
                if let string = strings[text], let stringsDatabase = layout.textStrings {
                    let expected = Array(decoded.string.utf8)
                    if string != expected {
                        add(.indexes, stringsDatabase.name, "\(text)", "the string of the text's snapshot differs from the snapshot's text (\(string.count) bytes, not \(expected.count)), so an opened store would show the wrong text", Remedy.restore)
                    }
                }
            } catch {
                add(.indexes, database, "\(text)", "the text snapshot does not decode: \(error)", Remedy.restore)
            }
        }
    }

    // MARK: Tree

    private mutating func checkTree<T: ReadableTransaction & ~Copyable>(in tx: borrowing T) throws {
        let tree = layout.tree
        var truncatedThrough: Timestamp?
        if let bytes = try tx.value(forKey: TreeStorageLayout.stateKey, in: tree.meta) {
            do throws(DecodingError) {
                let state = try TreeStorageLayout.decodeState(bytes)
                truncatedThrough = state.truncatedThrough
                if let meta, state.replica != meta.replica {
                    add(.tree, tree.meta.name, "state", "the hierarchy belongs to replica \(state.replica), the store to \(meta.replica)", Remedy.restore)
                }
            } catch {
                add(.tree, tree.meta.name, "state", "the hierarchy's state record does not decode: \(error.description)", Remedy.restore)
            }
        } else {
            add(.tree, tree.meta.name, "state", "the hierarchy's state record is missing", Remedy.restore)
        }

        var entries: [(key: [UInt8], value: [UInt8])] = []
        try tx.scan(tree.nodes) { key, value in
            entries.append((Array(key), Array(value)))
            return .continue
        }
        for (key, value) in entries {
            report.nodeCount += 1
            let node: NodeID
            do throws(DecodingError) {
                node = try TreeStorageLayout.node(fromNodeKey: key)
            } catch {
                add(.tree, tree.nodes.name, Self.hex(key), "the key does not name a node (replica, counter): \(error.description)", Remedy.restore)
                continue
            }
            do throws(DecodingError) {
                var reader = ByteReader(value)
                nodes[node] = try TreeStorageLayout.decodeNode(node, from: &reader)
                guard reader.isAtEnd else { throw .malformed("\(reader.remaining) trailing bytes", at: reader.offset) }
            } catch {
                add(.tree, tree.nodes.name, "\(node)", "the node does not decode: \(error.description)", Remedy.restore)
            }
        }

        // Parents and reachability: every chain of parents ends at the root or the trash.
        var reach: [NodeID: Reach] = [.root: .root, .deletedRoot: .trash]
        var reported = Set<NodeID>()
        for start in nodes.keys.sorted() where reach[start] == nil {
            var path: [NodeID] = []
            var onPath = Set<NodeID>()
            var current = start
            var outcome = Reach.broken
            while true {
                if let known = reach[current] {
                    outcome = known
                    break
                }
                if onPath.contains(current) {
                    let cycle = Array(path[path.firstIndex(of: current)!...])
                    let spelled = (cycle + [current]).map(\.description).joined(separator: " → ")
                    add(.tree, tree.nodes.name, "\(current)", "the node is its own ancestor (\(spelled)): a cycle, unreachable from the root and the trash", Remedy.restore)
                    reported.formUnion(cycle)
                    break
                }
                guard let record = nodes[current] else { break }
                path.append(current)
                onPath.insert(current)
                if reach[record.parent] == nil, nodes[record.parent] == nil {
                    add(.tree, tree.nodes.name, "\(current)", "its parent \(record.parent) does not exist, so it is unreachable from the root and the trash", Remedy.restore)
                    reported.insert(current)
                    break
                }
                current = record.parent
            }
            for node in path { reach[node] = outcome }
        }
        for node in nodes.keys.sorted() where reach[node] == .broken && !reported.contains(node) {
            add(.tree, tree.nodes.name, "\(node)", "the node is unreachable from the root and the trash: one of its ancestors is broken (see the other problems)", Remedy.restore)
        }

        // The children index: exactly one entry per node, where its node record says.
        var indexKeys = Set<[UInt8]>()
        try tx.scan(tree.children) { key, _ in
            indexKeys.insert(Array(key))
            return .continue
        }
        var expected = Set<[UInt8]>()
        for node in nodes.keys.sorted() {
            let record = nodes[node]!
            let key = TreeStorageLayout.childKey(node, record).bytes
            expected.insert(key)
            if !indexKeys.contains(key) {
                add(.tree, tree.children.name, "\(node) under \(record.parent)", "node \(node) has no entry in the children index under its parent \(record.parent): it is not listed among its parent's children", Remedy.restore)
            }
        }
        for key in indexKeys.subtracting(expected).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            do throws(KeyReader.DecodingError) {
                let (parent, child, _, _) = try TreeStorageLayout.decodeChildKey(key)
                let actual = nodes[child].map { "tree.nodes places it under \($0.parent) with another position or last move" } ?? "tree.nodes has no such node"
                add(.tree, tree.children.name, "\(child) under \(parent)", "the entry lists \(child) among the children of \(parent), but \(actual)", Remedy.restore)
            } catch {
                add(.tree, tree.children.name, Self.hex(key), "the key does not decode: \(error.description)", Remedy.restore)
            }
        }

        // The log: entries decode under their timestamps; last moves are logged.
        var logged = Set<Timestamp>()
        var logEntries: [(key: [UInt8], value: [UInt8])] = []
        try tx.scan(tree.log) { key, value in
            logEntries.append((Array(key), Array(value)))
            return .continue
        }
        for (key, value) in logEntries {
            report.treeLogCount += 1
            do throws(DecodingError) {
                let entry = try TreeStorageLayout.decodeLogEntry(value)
                let timestamp = entry.operation.timestamp
                if TreeStorageLayout.logKey(timestamp).bytes != key {
                    add(.tree, tree.log.name, Self.hex(key), "the entry holds the move at \(timestamp.lamport)/\(timestamp.replica), not the one its key names", Remedy.restore)
                }
                logged.insert(timestamp)
            } catch {
                add(.tree, tree.log.name, Self.hex(key), "the entry does not decode: \(error.description)", Remedy.restore)
            }
        }
        // A creation that is still its node's last move is held by the node record.
        for record in nodes.values where record.lastMoveIsCreation && !logged.contains(record.lastMove) {
            if truncatedThrough.map({ record.lastMove > $0 }) ?? true { report.treeLogCount += 1 }
            logged.insert(record.lastMove)
        }
        for node in nodes.keys.sorted() {
            let lastMove = nodes[node]!.lastMove
            if let truncatedThrough, lastMove <= truncatedThrough { continue }
            if !logged.contains(lastMove) {
                add(.tree, tree.log.name, "\(lastMove.lamport)/\(lastMove.replica)", "node \(node)'s last move is not in the log, so a concurrent older move cannot be merged correctly", Remedy.restore)
            }
        }

        // Records and nodes describe the same records.
        for id in records.keys.sorted() {
            guard let node = nodes[id.node] else {
                add(.indexes, layout.records.name, "\(id)", "record \(id) has no tree node: it is in no folder and not in the trash", Remedy.restore)
                continue
            }
            let type = records[id]!
            // Nodes carry no type since store format 2 (the record holds it); a node from
            // an older replica's operation may still name one.
            let nodeType = String(decoding: node.metadata, as: UTF8.self)
            if !type.isEmpty, !nodeType.isEmpty, type != nodeType {
                add(.indexes, layout.records.name, "\(id)", "record \(id) is a \(type), but its tree node says \(nodeType)", Remedy.restore)
            }
        }
        for node in nodes.keys.sorted() where records[RecordID(node)] == nil {
            add(.indexes, tree.nodes.name, "\(node)", "tree node \(node) has no record in records", Remedy.restore)
        }
    }

    private enum Reach { case root, trash, broken }

    static func hex(_ bytes: [UInt8]) -> String {
        "0x" + bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}
