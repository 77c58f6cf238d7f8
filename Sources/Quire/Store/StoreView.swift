import QuireCore

/// What a store transaction reads: records, the hierarchy, texts and the change log.
///
/// Two kinds of reader provide it. A write transaction reads the writer's in-memory
/// ``StoreState`` (its own writes included); a read transaction reads a
/// ``StoreSnapshot``, an LMDB read transaction that never waits for a writer. The public
/// reads of ``StoreReading`` are written once, against this protocol.
///
/// The reads that cannot throw (``parent(of:)``, ``children(of:)``, …) cannot fail on
/// the in-memory state; a snapshot that meets a damaged entry answers as if it were
/// absent and notes the error, which ``Store/read(_:)`` throws after the body returns.
protocol StoreView: ChangeLogReader {
    var replica: ReplicaID { get }
    /// The record `id`, or `nil` when there is none.
    func record(_ id: RecordID) -> RecordState?
    /// Lends `body` the field values of the record `id` (what decoding it needs), valid
    /// only during the call, after noting `type`'s declared texts (``learnTexts(_:)``).
    ///
    /// - Returns: `false`, without calling `body`, when there is no such record.
    /// - Throws: ``StoreError/wrongType(_:expected:actual:)`` when the record is not of
    ///   `type`, or what `body` throws.
    func withRecordValues(
        _ id: RecordID, of type: any Record.Type, _ body: (FieldValues) throws(StoreError) -> Void
    ) throws(StoreError) -> Bool
    /// Every record of the type named `type`, in any order, with the trash's.
    func records(ofType type: String) -> [(id: RecordID, record: RecordState)]
    /// The parent of `node`, or `nil` for the fixed nodes and nodes not in the tree.
    func parent(of node: NodeID) -> NodeID?
    /// The children of `node` in sibling order; only the first `limit` when given.
    func children(of node: NodeID, limit: Int?) -> [NodeID]
    /// Whether `node` is in the tree: a fixed node, or one with a parent.
    func contains(_ node: NodeID) -> Bool
    /// Whether `node` is inside the deleted-root's subtree.
    func isDeleted(_ node: NodeID) -> Bool
    /// Where a node directly in the trash was before its deletion (see
    /// `ReplicatedTree.placeBeforeDeletion(of:)`).
    func placeBeforeDeletion(of node: NodeID) -> (parent: NodeID, index: Int, position: PositionKey)?
    /// The value of the record's ``Record/siblingNameField``, if its type has one.
    func siblingName(of id: RecordID) -> String?
    /// The text `id`, read on first use; `nil` when it was never written.
    func existingText(_ id: TextID) throws -> StoredText?
    /// Runs `body` with the text `id` (`nil`: never written) for an answer computed
    /// there and then; cheaper than ``existingText(_:)`` where a reader can borrow a text
    /// already in memory.
    func withText<R>(_ id: TextID, _ body: (ReplicatedText?) throws -> R) throws -> R
    /// The characters of the text `id` read without its history — its snapshot's string,
    /// when nothing is logged since the checkpoint (see ``TextSnapshotStorage``) — or
    /// `nil` when they must be read from the text itself.
    func checkpointedString(of id: TextID) throws -> String?
    /// The texts the record types used in this process declare.
    var declarations: TextDeclarations { get }
}

extension StoreView {
    func withRecordValues(
        _ id: RecordID, of type: any Record.Type, _ body: (FieldValues) throws(StoreError) -> Void
    ) throws(StoreError) -> Bool {
        learnTexts(type)
        let expected = type.typeName
        guard let record = record(id) else { return false }
        guard record.type == expected else { throw .wrongType(id, expected: expected, actual: record.type) }
        try FieldValues.withDictionary(record.values, body)
        return true
    }

    /// The children of `node` in sibling order.
    func children(of node: NodeID) -> [NodeID] { children(of: node, limit: nil) }

    /// Whether `id` is a record in the tree and not in the trash.
    func isLive(_ id: RecordID) -> Bool {
        contains(id.node) && !isDeleted(id.node) && record(id) != nil
    }

    /// Notes `type`'s declared texts (see ``Record/texts``).
    func learnTexts(_ type: any Record.Type) { declarations.learn(type) }

    /// Throws when `text`'s record is of a type that declares its texts and `text` is not
    /// one of them.
    func checkDeclared(_ text: TextID) throws(StoreError) {
        guard let type = record(text.record)?.type, let declared = declarations.declared(forType: type),
            !declared.contains(text.field)
        else { return }
        throw .undeclaredText(text, type: type, declared: declared.sorted())
    }

    /// The siblings under `parent` that share a ``Record/siblingName``.
    func nameClashes(under parent: NodeID) -> [NameClash] {
        var byName: [String: [RecordID]] = [:]
        var order: [String] = []
        for child in children(of: parent) {
            let id = RecordID(child)
            guard let name = siblingName(of: id) else { continue }
            if byName[name] == nil { order.append(name) }
            byName[name, default: []].append(id)
        }
        let parentID = parent == .root ? nil : RecordID(parent)
        return order.compactMap { name in
            let ids = byName[name]!
            return ids.count > 1 ? NameClash(parent: parentID, name: name, records: ids) : nil
        }
    }
}
