import LMDB
import QuireCore

/// A read transaction's view of the store: an LMDB read transaction, read on demand.
///
/// It sees the last commit before it began — of this process or another — and never
/// waits for a writer: no lock of the store is taken, so a read runs while an import,
/// a checkpoint or `verify` holds the writer's state. Records and tree nodes are read
/// from LMDB as the body asks for them (a ``StoreReading/get(_:_:)`` is one `mdb_get` and
/// a decode), the children of a node with one prefix scan of `tree.children`, a text
/// from its snapshot and the log since the checkpoint — or, when the writer's state
/// reflects exactly this commit and is not being written, from the text it holds in
/// memory.
///
/// Each thread keeps one per store it reads (``ThreadReads``), reused from read to read:
/// ``Store/read(_:)`` opens it on a new read transaction (``reading(_:_:)``) and closes it
/// when the body returns, so a point read allocates no snapshot. What it read is kept for
/// the rest of the body and dropped when the body returns; nothing outlives it.
final class StoreSnapshot: StoreView {
    var layout: StoreLayout { store.layout }
    var replica: ReplicaID { store.replica }
    /// The store's: unowned, as the store is (it owns them for good). `Unmanaged`, for
    /// a point read learns its type's texts without retaining them.
    private let unownedDeclarations: Unmanaged<TextDeclarations>
    var declarations: TextDeclarations { unownedDeclarations.takeUnretainedValue() }
    /// The LMDB transaction whose commit the snapshot sees.
    private(set) var transactionID = 0
    /// The first error a read that cannot throw met; ``Store/read(_:)`` throws it.
    private(set) var failure: (any Error)?
    /// Whether a read body of this thread reads the snapshot now.
    var isOpen: Bool { openTransaction != nil }

    /// The transaction a read lent the snapshot, while it is open.
    private var openTransaction: UnsafePointer<ReadTransaction>?
    private var transaction: ReadTransaction {
        unsafeAddress { openTransaction.unsafelyUnwrapped }
    }
    /// The store. Unowned, and never read while the snapshot is closed: the snapshot
    /// lives in its thread's cache, possibly longer than the store, but it is open only
    /// inside a read of the store, whose caller holds the store.
    private unowned(unsafe) let store: Store
    /// What the snapshot read and keeps for the rest of the body; made on first use, so a
    /// point read neither builds nor frees its tables.
    private var cacheIfMade: Cache?
    private var cache: Cache {
        if let cacheIfMade { return cacheIfMade }
        let made = Cache()
        cacheIfMade = made
        return made
    }

    private final class Cache {
        var meta: StoreMeta?
        var nameFields: [String: String]?
        var slotTexts: [UInt64: TextID] = [:]
        var nameTables: [ReplicaID: ReplicaNames?] = [:]
        var loadedTexts: [TextID: StoredText] = [:]
        var absentTexts: Set<TextID> = []
    }

    /// A closed snapshot of `store`, for the calling thread's reads of it.
    init(store: Store) {
        self.store = store
        unownedDeclarations = .passUnretained(store.lockedState.declarations)
    }

    /// Runs `body` with the snapshot open on `transaction`, then closes it: forgets the
    /// transaction, what it read and the error it noted.
    ///
    /// - Throws: What `body` throws, or else the first error a read of the snapshot noted
    ///   (a damaged entry).
    func reading<R>(_ transaction: borrowing ReadTransaction, _ body: () throws -> R) throws -> R {
        try withUnsafePointer(to: transaction) { pointer in
            openTransaction = pointer
            transactionID = pointer.pointee.transactionID
            defer {
                openTransaction = nil
                failure = nil
                cacheIfMade = nil
            }
            let result = try body()
            if let failure { throw failure }
            return result
        }
    }

    /// Keeps the first error met by a read that cannot throw.
    private func note(_ error: any Error) {
        if failure == nil { failure = error }
    }

    /// `body`'s result, or `fallback` after noting what it threw.
    private func noting<R>(_ fallback: R, _ body: () throws -> R) -> R {
        do { return try body() } catch {
            note(error)
            return fallback
        }
    }

    // MARK: ChangeLogReader

    var meta: StoreMeta {
        if let cached = cache.meta { return cached }
        let meta = noting(StoreMeta(
            replica: replica, storeID: StoreID(bytes: Array(repeating: 0, count: StoreID.byteCount)), lamport: 0,
            version: VersionVector(), lastDependencies: VersionVector(), checkpoint: VersionVector()
        )) {
            guard let bytes = try transaction.value(forKey: StoreLayout.metaKey, in: layout.meta) else {
                throw StoreError.corrupt(database: layout.meta.name, problem: "the store's meta record disappeared")
            }
            var meta = try StoreMeta.decode(bytes)
            try StoreState.catchUp(&meta, layout: layout, in: transaction)
            return meta
        }
        cache.meta = meta
        return meta
    }

    func text(inSlot slot: UInt64) -> TextID? {
        if let known = cache.slotTexts[slot] { return known }
        let text = noting(nil) { () throws -> TextID? in
            guard let bytes = try transaction.value(forKey: StoreLayout.slotKey(slot), in: layout.textSlots) else { return nil }
            do { return try StoreLayout.decodeText(bytes) } catch {
                throw StoreError.corrupt(database: layout.textSlots.name, problem: "\(error)")
            }
        }
        if let text { cache.slotTexts[slot] = text }
        return text
    }

    func nameTable(of replica: ReplicaID) -> ReplicaNames? {
        if let known = cache.nameTables[replica] { return known }
        let table = noting(nil) {
            try layout.nameTables(in: transaction, range: .prefix(Key(replica.rawValue)))[replica]
        }
        cache.nameTables[replica] = table
        return table
    }

    func withLogTransaction<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        try body(transaction)
    }

    // MARK: Records

    func record(_ id: RecordID) -> RecordState? {
        noting(nil) {
            guard let bytes = try transaction.value(forKey: StoreLayout.recordKey(id), in: layout.records) else { return nil }
            return try decodeRecord(bytes)
        }
    }

    /// Reads the record in place, inside `mdb_get`'s lending of LMDB's bytes: nothing is
    /// copied but what `body` decodes. A damaged record is noted and answers as absent.
    func withRecordValues(
        _ id: RecordID, of type: any Record.Type, _ body: (FieldValues) throws(StoreError) -> Void
    ) throws(StoreError) -> Bool {
        unownedDeclarations._withUnsafeGuaranteedRef { $0.learn(type) }
        let expected = type.typeName
        var failure: StoreError?  // the type check's or body's, thrown once LMDB's bytes are given back
        let found = noting(false) {
            try transaction.withValue(forKey: StoreLayout.recordKey(id), in: layout.records) { stored -> Bool in
                guard let stored else { return false }
                do {
                    try FieldValues.withStoredRecord(stored.assumingMemoryBound(to: UInt8.self)) { type, values in
                        guard utf8(type, equals: expected) else {
                            failure = .wrongType(id, expected: expected, actual: String(decoding: type, as: UTF8.self))
                            return
                        }
                        do throws(StoreError) { try body(values) } catch { failure = error }
                    }
                } catch {
                    throw StoreError.corrupt(database: layout.records.name, problem: "\(error)")
                }
                return true
            }
        }
        if let failure { throw failure }
        return found
    }

    func records(ofType type: String) -> [(id: RecordID, record: RecordState)] {
        noting([]) {
            var result: [(id: RecordID, record: RecordState)] = []
            try transaction.scan(layout.records) { key, value in
                guard key.count == 16 else {
                    throw StoreError.corrupt(database: layout.records.name, problem: "record key of \(key.count) bytes")
                }
                let record = try decodeRecord(Array(value))
                if record.type == type { result.append((RecordID(TreeStorageLayout.nodeID(fromKey: key)), record)) }
                return .continue
            }
            return result
        }
    }

    private func decodeRecord(_ bytes: [UInt8]) throws(StoreError) -> RecordState {
        do { return try RecordState.decode(bytes) } catch {
            throw .corrupt(database: layout.records.name, problem: "\(error)")
        }
    }

    func siblingName(of id: RecordID) -> String? {
        guard let record = record(id), let field = nameFields[record.type], let value = record.fields[field]?.value else {
            return nil
        }
        return JSONObjectScanner.string(from: value)
    }

    /// Record type name → its sibling-name field, as stored.
    private var nameFields: [String: String] {
        if let cached = cache.nameFields { return cached }
        let fields = noting([:]) { () throws -> [String: String] in
            guard let bytes = try transaction.value(forKey: StoreLayout.nameFieldsKey, in: layout.meta) else { return [:] }
            do { return try StoreLayout.decodeNameFields(bytes) } catch {
                throw StoreError.corrupt(database: layout.meta.name, problem: "\(error)")
            }
        }
        cache.nameFields = fields
        return fields
    }

    // MARK: Hierarchy

    func parent(of node: NodeID) -> NodeID? { noting(nil) { try storedNode(node)?.parent } }

    func contains(_ node: NodeID) -> Bool { node.isFixed || noting(false) { try storedNode(node) != nil } }

    func isDeleted(_ node: NodeID) -> Bool { noting(false) { try storedIsDeleted(node) } }

    /// From the writer's tree when it reflects this snapshot (a list in memory, where a
    /// large folder's index scan costs a key decode per child); else one prefix scan.
    func children(of node: NodeID, limit: Int?) -> [NodeID] {
        if let borrowed = borrowingWriter({ $0.loadedTree.map { StoreState.children(of: node, limit: limit, in: $0) } }),
            let borrowed {
            return borrowed
        }
        return noting([]) { try storedChildren(of: node, limit: limit) }
    }

    func placeBeforeDeletion(of node: NodeID) -> (parent: NodeID, index: Int, position: PositionKey)? {
        noting(nil) { try storedPlaceBeforeDeletion(of: node) }
    }

    // MARK: Texts

    func existingText(_ id: TextID) throws -> StoredText? {
        if let loaded = cache.loadedTexts[id] { return loaded }
        guard !cache.absentTexts.contains(id) else { return nil }
        guard let loaded = try StoredText.load(id, from: self, replica: replica, in: transaction) else {
            cache.absentTexts.insert(id)
            return nil
        }
        cache.loadedTexts[id] = loaded
        return loaded
    }

    /// Borrows the writer's copy of the text when the writer's state reflects this
    /// snapshot and holds the text already (see ``borrowingWriter(_:)``); otherwise reads
    /// the text from the snapshot.
    func withText<R>(_ id: TextID, _ body: (ReplicatedText?) throws -> R) throws -> R {
        if cache.loadedTexts[id] == nil && !cache.absentTexts.contains(id) {
            let answer = borrowingWriter { state -> Result<R, any Error>? in
                guard let held = state.texts[id] else { return nil }
                return Result { try body(held.text) }
            }
            if let answer = answer ?? nil { return try answer.get() }
        }
        return try body(existingText(id)?.text)
    }

    /// The snapshot's string of `id` when the snapshot is all of the text: nothing is
    /// logged since the checkpoint (the store was closed, or checkpointed, since its last
    /// change). A text already read in this transaction answers from memory instead.
    func checkpointedString(of id: TextID) throws -> String? {
        guard cache.loadedTexts[id] == nil, meta.version == meta.checkpoint else { return nil }
        return try TextSnapshotStorage.readString(id, layout: layout, in: transaction)
    }

    // MARK: The writer's state as a cache

    /// `body`'s answer from the writer's in-memory state, when that state is a cache of
    /// exactly this snapshot's commit — its known transaction is this one's, so neither
    /// this process nor another has committed since — and no write is under way. The
    /// store's lock is taken only if it is free, never waited for; `nil` otherwise, and
    /// the caller reads LMDB.
    private func borrowingWriter<R>(_ body: (StoreState) throws -> R) rethrows -> R? {
        var answer: R?
        let transactionID = transactionID
        try store.state.withLockIfAvailable { state in
            guard state.knownTransaction == transactionID, state.session == nil, !state.isClosed else { return }
            answer = try body(state)
        }
        return answer
    }
}

extension StoreSnapshot: StoredHierarchy {
    func storedNode(_ node: NodeID) throws -> TreeNodeRecord? { try layout.tree.nodeRecord(node, in: transaction) }

    func storedChildren(of node: NodeID, limit: Int?) throws -> [NodeID] {
        try layout.tree.children(of: node, limit: limit, in: transaction)
    }

    func storedChildEntries(of node: NodeID) throws -> [StoredChild] { try layout.tree.childEntries(of: node, in: transaction) }

    func storedLogEntry(at timestamp: Timestamp) throws -> TreeLogRecord? { try layout.tree.logEntry(at: timestamp, in: transaction) }

    var nodesDatabaseName: String { layout.tree.nodes.name }
}
