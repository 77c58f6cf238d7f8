import LMDB
import QuireCore

extension Store {
    /// A delta file with the changes a replica at `version` lacks (all of them for an
    /// empty version), or `nil` when it lacks nothing.
    ///
    /// ```swift
    /// if let delta = try laptop.exportDelta(since: phoneVersion) {
    ///     try delta.write(to: url)                 // carried by any file-sync engine
    /// }
    /// let report = try phone.importDelta(bytes)   // on the other device
    /// ```
    ///
    /// The file carries the store ID when it may be the first the receiver sees of this
    /// replica (its first change, or changes of other replicas); otherwise it is compact:
    /// a keystroke's delta is about 32 bytes.
    ///
    /// It reads an LMDB snapshot of the latest commit, of this process or another, and
    /// takes no lock of the store: an export never waits for a write or an import.
    ///
    /// - Throws: ``StoreError/closed``, ``StoreError/corrupt(database:problem:)``.
    public func exportDelta(since version: VersionVector = VersionVector()) throws -> [UInt8]? {
        try withSnapshot("store.exportDelta") { snapshot in
            let units = try snapshot.storedUnits(since: version)
            guard !units.isEmpty else { return nil }
            return snapshot.deltaFile(of: units).encoded()
        }
    }

    /// A delta file with one change of this store's log (its own or another replica's).
    ///
    /// - Throws: ``StoreError/recordNotFound(_:)``-like ``StoreError/invalidChange(_:)``
    ///   when the log has no such change.
    public func exportDelta(change id: ChangeID) throws -> [UInt8] {
        try withSnapshot("store.exportDelta") { snapshot in
            var from = snapshot.meta.version  // only `id.replica`'s log is read
            from[id.replica] = id.counter
            let candidates = try snapshot.storedChanges(since: from).filter { $0.id == id }
            guard let change = candidates.first else { throw StoreError.invalidChange("this store has no change \(id)") }
            return snapshot.deltaFile(of: [.change(change)]).encoded()
        }
    }

    /// Imports a delta file in one write transaction: all or nothing, idempotent.
    ///
    /// The checksum and header are checked first, then every count and length; the
    /// changes are applied in causal order; those waiting for changes not yet here are
    /// kept as pending and applied by a later import.
    ///
    /// - Returns: What happened (see ``MergeReport``).
    /// - Throws: ``DeltaFileError`` for a file that is damaged, malformed, from another
    ///   store or from an unknown replica; ``StoreError/invalidChange(_:)`` for changes
    ///   that contradict this store. The store is then unchanged.
    @discardableResult
    public func importDelta(_ bytes: [UInt8]) throws -> MergeReport {
        try importDelta(decoded: DeltaFile.decode(bytes))
    }

    /// Checks that `bytes` are a whole, undamaged delta file this build can read, without
    /// a store: what a tool does before creating a store to import a file into.
    ///
    /// ```swift
    /// try Store.checkDelta(bytes)       // throws .truncated for a file still being copied
    /// let store = try Store(directory: path)
    /// ```
    ///
    /// Whether the file fits a given store (its store ID, its sender) is only known to
    /// ``importDelta(_:)``.
    ///
    /// - Parameter bytes: The file's bytes.
    /// - Throws: ``DeltaFileError`` naming what is wrong.
    public static func checkDelta(_ bytes: [UInt8]) throws(DeltaFileError) {
        _ = try DeltaFile.decode(bytes)
    }

    /// Imports a delta file, and lets a store that has only its own changes join the
    /// file's store: for a device that wrote before its first sync.
    ///
    /// A new store joins the lineage (``storeID``) of the first full delta file it
    /// imports. One that already wrote is a store of its own, and ``importDelta(_:)``
    /// refuses another store's file with ``DeltaFileError/otherStoreJoinable(file:store:operations:)``.
    /// With `joiningLineage`, such a store takes the file's lineage instead and merges
    /// the file as usual: its own changes, made on nothing but each other, are concurrent
    /// with the other store's and merge like any offline edits; its later delta files
    /// carry the new store ID, so the other store's replicas accept them.
    ///
    /// ```swift
    /// do {
    ///     try phone.importDelta(fromLaptop)
    /// } catch DeltaFileError.otherStoreJoinable {
    ///     if userAgreesToMerge { try phone.importDelta(fromLaptop, joiningLineage: true) }
    /// }
    /// ```
    ///
    /// Joining is refused, as without it, for a store that holds changes of other
    /// replicas (or pending ones): it has a lineage with other devices already. Files this
    /// store exported or synced before joining keep its old store ID and are refused by
    /// the other store's replicas; join only a store whose changes stayed on the device.
    ///
    /// - Parameters:
    ///   - bytes: The delta file.
    ///   - joiningLineage: Let a store with only its own changes join the file's store.
    /// - Returns: What happened (see ``MergeReport``).
    /// - Throws: As ``importDelta(_:)``; ``DeltaFileError/otherStore(file:store:)`` for a
    ///   file of another store when this store has other replicas' changes.
    @discardableResult
    public func importDelta(_ bytes: [UInt8], joiningLineage: Bool) throws -> MergeReport {
        try importDelta(decoded: DeltaFile.decode(bytes), joiningLineage: joiningLineage)
    }

    /// Imports a delta file already decoded and checked (the sync folder checks a file
    /// against its name first).
    func importDelta(decoded file: DeltaFile, joiningLineage: Bool = false) throws -> MergeReport {
        try commitTransaction(origin: .remote) { state in
            var adopted: StoreID?
            if let storeID = file.storeID, storeID != state.meta.storeID {
                // A new, empty store joins the lineage of the first store it hears from; one
                // with only its own changes when asked to.
                if !state.isPristine {
                    guard state.hasOnlyOwnChanges else { throw DeltaFileError.otherStore(file: storeID, store: state.meta.storeID) }
                    guard joiningLineage else {
                        throw DeltaFileError.otherStoreJoinable(file: storeID, store: state.meta.storeID, operations: state.meta.version[state.replica])
                    }
                }
                adopted = storeID
            }
            if file.storeID == nil, file.sender != state.replica, !state.hasMet(file.sender) {
                throw DeltaFileError.unknownSender(file.sender)
            }
            var report = try state.integrate(file.changes.map(\.incoming))
            if let adopted { state.session?.merging.mergedMeta?.storeID = adopted }
            report.nameClashes = state.nameClashes(near: report)
            return (report, report.applied)
        }
    }
}

extension StoreState {
    /// Whether the store has no change at all yet: it may still join another lineage.
    var isPristine: Bool { meta.version.counters.values.allSatisfy { $0 == 0 } && pending.isEmpty }

    /// Whether every change the store has is its own: nothing merged, nothing pending.
    var hasOnlyOwnChanges: Bool {
        pending.isEmpty && meta.version.counters.allSatisfy { $0.key == replica || $0.value == 0 }
    }

    /// Whether this store has changes (applied or pending) from `replica`.
    func hasMet(_ replica: ReplicaID) -> Bool {
        meta.version[replica] > 0 || pending.keys.contains { $0.replica == replica }
    }
}
