import QuireCore

/// The reads both kinds of store transaction offer: records, the hierarchy and texts.
///
/// Everything read reflects the transaction's view: in a ``StoreWriter``, its own
/// writes so far included.
public protocol StoreReading: ~Copyable {
    /// The store's contents; an implementation detail.
    var _state: StoreState { get }
}

/// A read transaction: a consistent view of the store while its body runs.
///
/// Noncopyable, so it cannot outlive the ``Store/read(_:)`` call that lends it.
public struct StoreReader: StoreReading, ~Copyable {
    public let _state: StoreState

    init(state: StoreState) { _state = state }
}

extension StoreReading where Self: ~Copyable {
    /// Every replica's next counter, as seen by this transaction.
    public var version: VersionVector { _state.meta.version }

    // MARK: Records

    /// The record `id` decoded as `type`, or `nil` when there is no such record. Deleted
    /// records (in the trash) are returned too; see ``isDeleted(_:)``.
    ///
    /// - Throws: ``StoreError/wrongType(_:expected:actual:)`` when the record is of
    ///   another type, ``StoreError/decodingFailed(record:type:problem:)``.
    public func get<T: Record>(_ type: T.Type, _ id: RecordID) throws(StoreError) -> T? {
        guard let record = _state.record(id) else { return nil }
        guard record.type == T.typeName else { throw .wrongType(id, expected: T.typeName, actual: record.type) }
        return try RecordFields.decode(T.self, from: record.values, id: id)
    }

    /// The record `id` decoded as `type`.
    ///
    /// - Throws: ``StoreError/recordNotFound(_:)`` when there is none, or as ``get(_:_:)``.
    public func record<T: Record>(_ type: T.Type, _ id: RecordID) throws(StoreError) -> T {
        guard let value = try get(type, id) else { throw .recordNotFound(id) }
        return value
    }

    /// All records of `type`, in ID order; records in the trash only when asked for.
    ///
    /// ```swift
    /// let poetry = try tx.all(Project.self) { $0.type == .poetry }
    ///     .sorted { $0.created < $1.created }
    /// ```
    ///
    /// All or nothing: when one record of the type does not decode (say a newer app
    /// version gave it an enum case this one lacks), the query throws for it. To list the
    /// others and learn which records did not decode, use
    /// ``allDecodable(_:includingDeleted:where:)``.
    ///
    /// - Parameters:
    ///   - type: The record type.
    ///   - includingDeleted: Include records in the trash.
    ///   - isIncluded: Keeps the records for which it returns `true`.
    /// - Throws: ``StoreError/decodingFailed(record:type:problem:)`` for the first record
    ///   (in ID order) that does not decode as `type`, or what `isIncluded` throws.
    /// - Complexity: O(*n*) for *n* records in the store.
    public func all<T: Record>(
        _ type: T.Type, includingDeleted: Bool = false, where isIncluded: (T) throws -> Bool = { _ in true }
    ) throws -> [Stored<T>] {
        var result: [Stored<T>] = []
        for (id, decoded) in decodeAll(T.self, includingDeleted: includingDeleted) {
            let value = try decoded.get()
            if try isIncluded(value) { result.append(Stored(id: id, value: value)) }
        }
        return result
    }

    /// All records of `type` that decode, and the IDs and errors of those that do not;
    /// records in the trash only when asked for.
    ///
    /// A query that one record cannot spoil: a record a newer app version wrote with
    /// something this version cannot read (a new enum case, a changed field type) is
    /// reported in ``DecodedRecords/undecodable`` instead of failing the whole query.
    ///
    /// ```swift
    /// let entries = try tx.allDecodable(Diary.self) { $0.date >= lastWeek }
    /// for entry in entries.records { print(entry.title) }
    /// for skipped in entries.undecodable { log.notice("\(skipped.id): \(skipped.error)") }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The record type.
    ///   - includingDeleted: Include records in the trash.
    ///   - isIncluded: Keeps the decodable records for which it returns `true`; it does
    ///     not see undecodable ones.
    /// - Returns: The decodable records kept by `isIncluded`, and every undecodable
    ///   record of the type, both in ID order.
    /// - Throws: Only what `isIncluded` throws.
    /// - Complexity: O(*n*) for *n* records in the store.
    public func allDecodable<T: Record>(
        _ type: T.Type, includingDeleted: Bool = false, where isIncluded: (T) throws -> Bool
    ) rethrows -> DecodedRecords<T> {
        var result = DecodedRecords<T>(records: [], undecodable: [])
        for (id, decoded) in decodeAll(T.self, includingDeleted: includingDeleted) {
            switch decoded {
            case .success(let value):
                if try isIncluded(value) { result.records.append(Stored(id: id, value: value)) }
            case .failure(let error):
                result.undecodable.append(UndecodableRecord(id: id, error: error))
            }
        }
        return result
    }

    /// All records of `type` that decode, and the IDs and errors of those that do not;
    /// records in the trash only when asked for. Never throws.
    ///
    /// ```swift
    /// let entries = tx.allDecodable(Diary.self)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The record type.
    ///   - includingDeleted: Include records in the trash.
    /// - Returns: As ``allDecodable(_:includingDeleted:where:)`` without a filter.
    /// - Complexity: O(*n*) for *n* records in the store.
    public func allDecodable<T: Record>(_ type: T.Type, includingDeleted: Bool = false) -> DecodedRecords<T> {
        allDecodable(type, includingDeleted: includingDeleted) { _ in true }
    }

    /// Every record of `type` (live, or also deleted), in ID order, decoded or not.
    private func decodeAll<T: Record>(_ type: T.Type, includingDeleted: Bool) -> [(RecordID, Result<T, StoreError>)] {
        var ids: [RecordID] = []
        for (id, record) in _state.records where record.type == T.typeName {
            guard includingDeleted ? _state.tree.contains(id.node) : _state.isLive(id) else { continue }
            ids.append(id)
        }
        return ids.sorted().map { id in
            (id, Result { () throws(StoreError) in try RecordFields.decode(T.self, from: _state.records[id]!.values, id: id) })
        }
    }

    /// All records of `type`, sorted by `key`.
    ///
    /// ```swift
    /// let byName = try tx.all(Project.self, sortedBy: \.name)
    /// ```
    public func all<T: Record, Key: Comparable>(
        _ type: T.Type, sortedBy key: KeyPath<T, Key>, ascending: Bool = true
    ) throws -> [Stored<T>] {
        try all(type).sorted { ascending ? $0.value[keyPath: key] < $1.value[keyPath: key] : $0.value[keyPath: key] > $1.value[keyPath: key] }
    }

    /// The type name of the record `id`, or `nil` when there is none.
    public func typeName(of id: RecordID) -> String? { _state.record(id)?.type }

    // MARK: Hierarchy

    /// The children of `parent` (`nil`: the top level) in sibling order.
    public func children(of parent: RecordID?) -> [RecordID] {
        _state.tree.children(of: parent?.node ?? .root).map(RecordID.init)
    }

    /// The children of `parent` that are records of `type`, in sibling order.
    public func children<T: Record>(of parent: RecordID?, ofType type: T.Type) throws -> [Stored<T>] {
        try children(of: parent).compactMap { id in
            guard _state.record(id)?.type == T.typeName else { return nil }
            return Stored(id: id, value: try record(T.self, id))
        }
    }

    /// The children of the trash: records deleted (with their subtrees), restorable.
    public var trash: [RecordID] { _state.tree.children(of: .deletedRoot).map(RecordID.init) }

    /// The parent of `id`: `nil` at the top level, in the trash or for an unknown record.
    public func parent(of id: RecordID) -> RecordID? {
        guard let parent = _state.tree.parent(of: id.node), !parent.isFixed else { return nil }
        return RecordID(parent)
    }

    /// Whether `id` is in the trash (deleted itself or inside a deleted subtree).
    public func isDeleted(_ id: RecordID) -> Bool { _state.tree.isDeleted(id.node) }

    /// The records from the top level down to `id`, `id` included.
    public func path(of id: RecordID) -> [RecordID] {
        var path = [id]
        var node = id.node
        while let parent = _state.tree.parent(of: node), !parent.isFixed {
            path.append(RecordID(parent))
            node = parent
        }
        return path.reversed()
    }

    /// `id` and everything below it, depth first, siblings in order.
    public func subtree(of id: RecordID) -> [RecordID] {
        var result: [RecordID] = []
        var stack = [id.node]
        while let node = stack.popLast() {
            result.append(RecordID(node))
            stack.append(contentsOf: _state.tree.children(of: node).reversed())
        }
        return result
    }

    /// Siblings under `parent` (`nil`: the top level) that share a
    /// ``Record/siblingNameField`` value.
    public func nameClashes(under parent: RecordID?) -> [NameClash] {
        _state.nameClashes(under: parent?.node ?? .root) { _state.siblingName(of: $0) }
    }

    // MARK: Texts

    /// The whole text; empty when it was never written.
    public func string(of text: TextID) throws -> String {
        try _state.existingText(text)?.text.string ?? ""
    }

    /// Part of the text.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - range: Offsets in `unit`s.
    ///   - unit: Unicode scalars (default), UTF-16 code units (`NSRange`) or UTF-8 bytes.
    /// - Throws: ``StoreError/text(_:_:)`` for a range outside the text or inside a character.
    /// - Complexity: O(log *n* + *k*).
    public func string(of text: TextID, in range: Range<Int>, unit: TextUnit = .unicodeScalars) throws -> String {
        guard let stored = try _state.existingText(text) else {
            if range.isEmpty && range.lowerBound == 0 { return "" }
            throw StoreError.text(text, .positionOutOfRange(range.upperBound, count: 0, unit: unit))
        }
        do { return try stored.text.string(in: range, unit: unit) } catch { throw StoreError.text(text, error) }
    }

    /// The length of the text in `unit`s. O(1).
    public func length(of text: TextID, unit: TextUnit = .unicodeScalars) throws -> Int {
        try _state.existingText(text)?.text.count(in: unit) ?? 0
    }

    /// The number of words in the text (runs of letters and digits).
    public func wordCount(of text: TextID) throws -> Int {
        try _state.existingText(text)?.text.wordCount ?? 0
    }
}
