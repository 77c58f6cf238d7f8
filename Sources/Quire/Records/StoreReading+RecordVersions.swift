import QuireCore

/// A record as it was at any version the store was at: its name before a rename, a
/// status before it changed.
///
/// The versions are store versions — ``StoreReading/version``, what
/// `quire status --version-out` writes — as for ``StoreReading/string(of:at:)``; the
/// fields are found from the record's registers and the change log (see
/// `ChangeLogReader+RecordVersions.swift`).
extension StoreReading where Self: ~Copyable {
    /// The record `id` decoded as `type` as it was when the store was at `version`, or
    /// `nil` when the version does not include its creation.
    ///
    /// ```swift
    /// let draft = try store.read { tx in tx.version }
    /// try store.write { tx in try tx.update(file, as: File.self) { $0.name = "Ode" } }
    /// try store.read { tx in try tx.get(File.self, file, at: draft)?.name }   // the name before
    /// ```
    ///
    /// Each field reads as the last-writer-wins register did at the version: the write
    /// with the greatest `(lamport, replica)` among the changes the version includes, so
    /// after concurrent writes of one field each replica's version shows its own value
    /// and the merged version the winner. A field no included change wrote is absent (an
    /// optional decodes as `nil`). Any version the store was at works, as long as it is
    /// causally closed; whether the record was in the trash then is not part of the
    /// answer (see ``isDeleted(_:)`` for now).
    ///
    /// - Parameters:
    ///   - type: The record type.
    ///   - id: The record.
    ///   - version: A store version (replica → next change counter) within ``version``.
    /// - Returns: The record then; `nil` also for a record this store does not have.
    /// - Throws: ``StoreError/versionBeyondStore(replica:counter:known:)`` for a version the
    ///   store has not reached; ``StoreError/versionPruned(replica:counter:keptFrom:)`` when
    ///   a field's value then lies in history compaction pruned (unless the current
    ///   values prove it, as when every field's last write is within the version);
    ///   ``StoreError/wrongType(_:expected:actual:)``,
    ///   ``StoreError/decodingFailed(record:type:problem:)`` as ``get(_:_:)``.
    /// - Complexity: That of ``get(_:_:)`` when the version includes every field's last
    ///   write; otherwise per replica, the change log from `version` back to that
    ///   replica's latest write of each field changed since (never past the record's
    ///   creation once it is found, nor past changes older than the writes found).
    public func get<T: Record>(_ type: T.Type, _ id: RecordID, at version: VersionVector) throws -> T? {
        _view.learnTexts(T.self)
        guard let record = _view.record(id) else {
            _ = try _view.replicasReached(by: version)  // refuses what it must
            return nil
        }
        guard record.type == T.typeName else { throw StoreError.wrongType(id, expected: T.typeName, actual: record.type) }
        guard let fields = try _view.fields(of: id, at: version, current: record) else { return nil }
        return try RecordFields.decode(T.self, from: fields, id: id)
    }
}
