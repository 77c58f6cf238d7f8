import QuireCore

/// The reads both kinds of store transaction offer: records, the hierarchy and texts.
///
/// Everything read reflects the transaction's view: in a ``StoreWriter``, its own
/// writes so far included.
///
/// Write helpers generic over it to use them in reads and writes alike, taking the
/// transaction as `borrowing`:
///
/// ```swift
/// func title<Tx: StoreReading & ~Copyable>(of id: RecordID, in tx: borrowing Tx) throws -> String {
///     try tx.record(Note.self, id).title
/// }
/// let titles = try store.read { tx in try ids.map { try title(of: $0, in: tx) } }
/// ```
///
/// Never a local `func` inside a transaction body that captures `tx`: Swift 6.3.1
/// crashes compiling it (`MoveOnlyChecker`, signal 11); pass `tx` as a parameter instead.
public protocol StoreReading: ~Copyable {
    /// The store's contents as this transaction sees them; an implementation detail.
    var _contents: StoreContents { get }
}

/// What a transaction reads: opaque outside the store, and noncopyable, so it cannot be
/// taken out of the transaction that lends it (the way the `LMDB` layer seals its
/// `TransactionCore`). `store.read { $0._contents }` does not compile.
public struct StoreContents: ~Copyable {
    /// The writer's state, or a read transaction's snapshot.
    let view: any StoreView
}

extension StoreContents {
    /// ``StoreView/withRecordValues(_:of:_:)`` of the view, which stays lent meanwhile.
    func withRecordValues(
        _ id: RecordID, of type: any Record.Type, _ body: (FieldValues) throws(StoreError) -> Void
    ) throws(StoreError) -> Bool {
        try view.withRecordValues(id, of: type, body)
    }
}

extension StoreReading where Self: ~Copyable {
    /// The view behind ``StoreReading/_contents``, for the store's own code.
    var _view: any StoreView { _contents.view }
}

/// A read transaction: a consistent view of the store while its body runs.
///
/// It reads an LMDB snapshot — the last commit before ``Store/read(_:)`` began — on
/// demand, without waiting for writers (see ``Store/read(_:)``). Noncopyable, so it
/// cannot outlive the call that lends it.
public struct StoreReader: StoreReading, ~Copyable {
    public let _contents: StoreContents

    /// A reader of `view`: a snapshot (``Store/read(_:)``), or the writer's state read
    /// under the store's lock (observations, whose values must match their events).
    init(view: any StoreView) { _contents = StoreContents(view: view) }
}

extension StoreReading where Self: ~Copyable {
    /// Every replica's next counter, as seen by this transaction.
    public var version: VersionVector { _view.meta.version }

    // MARK: Records

    /// The record `id` decoded as `type`, or `nil` when there is no such record. Deleted
    /// records (in the trash) are returned too; see ``isDeleted(_:)``.
    ///
    /// - Throws: ``StoreError/wrongType(_:expected:actual:)`` when the record is of
    ///   another type, ``StoreError/decodingFailed(record:type:problem:)``.
    @inlinable
    public func get<T: Record>(_ type: T.Type, _ id: RecordID) throws(StoreError) -> T? {
        // Inlinable, so that the caller's module specializes it for its record type: the
        // value is decoded, while the view lends the record's bytes, straight into a local
        // optional. (Code generic over the record type pays two metadata lookups for it.)
        var value: T?
        try _withRecordValues(id, of: T.self) { values throws(StoreError) in
            value = try RecordFields.decode(T.self, from: values, id: id)
        }
        return value
    }

    /// Lends `body` the field values of the record `id` when it is a record of `type`
    /// (see ``StoreView/withRecordValues(_:of:_:)``), after noting `type`'s texts.
    @usableFromInline
    func _withRecordValues(
        _ id: RecordID, of type: any Record.Type, _ body: (FieldValues) throws(StoreError) -> Void
    ) throws(StoreError) {
        // Called on the lent contents: `_view` would copy the view out (a retain and a release).
        _ = try _contents.withRecordValues(id, of: type, body)
    }

    /// The record `id` decoded as `type`.
    ///
    /// - Throws: ``StoreError/recordNotFound(_:)`` when there is none, or as ``get(_:_:)``.
    @inlinable
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
        let view = _view
        view.learnTexts(T.self)
        let kept = view.records(ofType: T.typeName).filter { id, _ in
            view.contains(id.node) && (includingDeleted || !view.isDeleted(id.node))
        }
        return kept.sorted { $0.id < $1.id }.map { id, record in
            (id, Result { () throws(StoreError) in try RecordFields.decode(T.self, from: record.values, id: id) })
        }
    }

    /// All records of `type` kept by `isIncluded`, sorted by `key`; records in the trash
    /// only when asked for.
    ///
    /// ```swift
    /// let byName = try tx.all(Project.self, sortedBy: \.name)
    /// let newestPoetry = try tx.all(Project.self, sortedBy: \.created, ascending: false) { $0.type == .poetry }
    /// let caseless = try tx.all(Project.self, sortedBy: \.name.localizedLowercase)
    /// ```
    ///
    /// The sort is stable: records with equal keys stay in ID order. Any key path to a
    /// `Comparable` value works, computed properties included (map an optional field to a
    /// non-optional one in a computed property to sort by it).
    ///
    /// - Parameters:
    ///   - type: The record type.
    ///   - includingDeleted: Include records in the trash.
    ///   - key: What to sort by.
    ///   - ascending: Smallest key first (default), or largest first.
    ///   - isIncluded: Keeps the records for which it returns `true`.
    /// - Returns: The kept records, sorted.
    /// - Throws: As ``all(_:includingDeleted:where:)``.
    /// - Complexity: O(*n* + *k* log *k*) for *n* records in the store and *k* kept.
    public func all<T: Record, Key: Comparable>(
        _ type: T.Type, includingDeleted: Bool = false, sortedBy key: KeyPath<T, Key>, ascending: Bool = true,
        where isIncluded: (T) throws -> Bool = { _ in true }
    ) throws -> [Stored<T>] {
        Self.sorted(try all(type, includingDeleted: includingDeleted, where: isIncluded), by: key, ascending: ascending)
    }

    /// `records` sorted by `key`, ties in their given order.
    private static func sorted<T: Record, Key: Comparable>(
        _ records: [Stored<T>], by key: KeyPath<T, Key>, ascending: Bool
    ) -> [Stored<T>] {
        let keyed = records.enumerated().map { (place: $0.offset, key: $0.element.value[keyPath: key], record: $0.element) }
        return keyed.sorted { a, b in
            if a.key != b.key { return ascending ? a.key < b.key : b.key < a.key }
            return a.place < b.place
        }.map(\.record)
    }

    /// The type name of the record `id`, or `nil` when there is none.
    public func typeName(of id: RecordID) -> String? { _view.record(id)?.type }

    // MARK: Hierarchy

    /// The children of `parent` (`nil`: the top level) in sibling order.
    public func children(of parent: RecordID?) -> [RecordID] {
        _view.children(of: parent?.node ?? .root).map(RecordID.init)
    }

    /// The first `limit` children of `parent` (`nil`: the top level) in sibling order: a
    /// page of a large folder, without listing the rest.
    ///
    /// ```swift
    /// let firstPage = try store.read { tx in
    ///     try tx.children(of: inbox, limit: 100).compactMap { try tx.get(File.self, $0) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - parent: The parent record; `nil` for the top level.
    ///   - limit: How many children at most; 0 or less gives none.
    /// - Returns: The first `limit` children (all of them when there are fewer).
    /// - Complexity: O(log *n* + `limit`) in a read transaction, which reads that many
    ///   entries of the children index; O(*k*) in a write, which copies the list.
    public func children(of parent: RecordID?, limit: Int) -> [RecordID] {
        _view.children(of: parent?.node ?? .root, limit: limit).map(RecordID.init)
    }

    /// The children of `parent` that are records of `type` and that `isIncluded` keeps, in
    /// sibling order.
    ///
    /// ```swift
    /// let folders = try tx.children(of: project, ofType: Folder.self)
    /// let drafts = try tx.children(of: folder, ofType: File.self) { $0.status == "draft" }
    /// ```
    ///
    /// Children of other types are left out. The children of a deleted record are listed
    /// too (they are in the trash with it); the trash's own children are ``trash``.
    ///
    /// - Parameters:
    ///   - parent: The parent record; `nil` for the top level.
    ///   - type: The record type.
    ///   - isIncluded: Keeps the records for which it returns `true`.
    /// - Returns: The kept children, in sibling order.
    /// - Throws: ``StoreError/decodingFailed(record:type:problem:)`` for a child of the
    ///   type that does not decode, or what `isIncluded` throws.
    /// - Complexity: O(*k*) for *k* children.
    public func children<T: Record>(
        of parent: RecordID?, ofType type: T.Type, where isIncluded: (T) throws -> Bool = { _ in true }
    ) throws -> [Stored<T>] {
        _view.learnTexts(T.self)
        var result: [Stored<T>] = []
        for id in children(of: parent) {
            guard let stored = _view.record(id), stored.type == T.typeName else { continue }
            let value = try RecordFields.decode(T.self, from: stored.values, id: id)
            if try isIncluded(value) { result.append(Stored(id: id, value: value)) }
        }
        return result
    }

    /// The children of `parent` that are records of `type` and that `isIncluded` keeps,
    /// sorted by `key`.
    ///
    /// ```swift
    /// let byName = try tx.children(of: draft, ofType: File.self, sortedBy: \.name)
    /// let unrated = try tx.children(of: draft, ofType: File.self, sortedBy: \.name) { $0.rating == nil }
    /// ```
    ///
    /// The sort is stable: children with equal keys stay in sibling order. The stored
    /// sibling order is untouched (use ``StoreWriter/reorder(_:to:)`` to change it).
    ///
    /// - Parameters:
    ///   - parent: The parent record; `nil` for the top level.
    ///   - type: The record type.
    ///   - key: What to sort by.
    ///   - ascending: Smallest key first (default), or largest first.
    ///   - isIncluded: Keeps the records for which it returns `true`.
    /// - Returns: The kept children, sorted.
    /// - Throws: As ``children(of:ofType:where:)``.
    /// - Complexity: O(*k* log *k*) for *k* children.
    public func children<T: Record, Key: Comparable>(
        of parent: RecordID?, ofType type: T.Type, sortedBy key: KeyPath<T, Key>, ascending: Bool = true,
        where isIncluded: (T) throws -> Bool = { _ in true }
    ) throws -> [Stored<T>] {
        Self.sorted(try children(of: parent, ofType: type, where: isIncluded), by: key, ascending: ascending)
    }

    /// The children of the trash: records deleted (with their subtrees), restorable.
    public var trash: [RecordID] { _view.children(of: .deletedRoot).map(RecordID.init) }

    /// The parent of `id`: `nil` at the top level, in the trash or for an unknown record.
    public func parent(of id: RecordID) -> RecordID? {
        guard let parent = _view.parent(of: id.node), !parent.isFixed else { return nil }
        return RecordID(parent)
    }

    /// Where a record in the trash was deleted from: its parent then and its index among
    /// that parent's children now. ``StoreWriter/restore(_:)`` puts it back there.
    ///
    /// ```swift
    /// try store.write { tx in try tx.delete(chapter) }
    /// try store.read { tx in tx.deletedFrom(chapter) }   // RecordPlace(parent: draft, index: 2)
    /// ```
    ///
    /// Read from the hierarchy's move log (the move before the delete), so it holds on
    /// every replica after a merge and after reopening. The index is where the record's
    /// old sibling position falls among the parent's current children: the old index when
    /// the siblings are unchanged, and still between its old neighbours when others were
    /// added, removed or restored since.
    ///
    /// - Parameter id: A record in the trash, deleted itself (one of ``trash``).
    /// - Returns: `nil` when `id` is not itself in the trash (live, unknown, or inside a
    ///   deleted record: ask about that one), or was created there.
    /// - Complexity: O(log *n* + *k*) for *n* hierarchy operations and *k* children of the
    ///   old parent.
    public func deletedFrom(_ id: RecordID) -> RecordPlace? {
        guard let place = _view.placeBeforeDeletion(of: id.node) else { return nil }
        return RecordPlace(parent: place.parent == .root ? nil : RecordID(place.parent), index: place.index)
    }

    /// The place ``StoreWriter/restore(_:)`` puts `id` back: ``deletedFrom(_:)`` with the
    /// old position key.
    func placeBeforeDeletion(of id: RecordID) -> (parent: NodeID, position: PositionKey)? {
        guard let place = _view.placeBeforeDeletion(of: id.node) else { return nil }
        return (place.parent, place.position)
    }

    /// Whether `id` is in the trash (deleted itself or inside a deleted subtree).
    public func isDeleted(_ id: RecordID) -> Bool { _view.isDeleted(id.node) }

    /// The records from the top level down to `id`, `id` included.
    public func path(of id: RecordID) -> [RecordID] {
        var path = [id]
        var node = id.node
        while let parent = _view.parent(of: node), !parent.isFixed {
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
            stack.append(contentsOf: _view.children(of: node).reversed())
        }
        return result
    }

    /// Siblings under `parent` (`nil`: the top level) that share a
    /// ``Record/siblingNameField`` value.
    public func nameClashes(under parent: RecordID?) -> [NameClash] {
        _view.nameClashes(under: parent?.node ?? .root)
    }

    // MARK: Texts

    /// The whole text; empty when it was never written.
    ///
    /// - Throws: ``StoreError/undeclaredText(_:type:declared:)`` when the record's type
    ///   declares its ``Record/texts`` and this is not one of them (so do the other reads
    ///   and every edit of a text).
    public func string(of text: TextID) throws -> String {
        try _view.checkDeclared(text)
        // A text opened and shown: one read when its snapshot is all of it.
        if let string = try _view.checkpointedString(of: text) { return string }
        return try _view.withText(text) { $0?.string ?? "" }
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
        try withDeclaredText(text) { replicated in
            guard let replicated else {
                if range.isEmpty && range.lowerBound == 0 { return "" }
                throw StoreError.text(text, .positionOutOfRange(range.upperBound, count: 0, unit: unit))
            }
            do throws(TextError) { return try replicated.string(in: range, unit: unit) } catch { throw StoreError.text(text, error) }
        }
    }

    /// The length of the text in `unit`s. O(1).
    public func length(of text: TextID, unit: TextUnit = .unicodeScalars) throws -> Int {
        try withDeclaredText(text) { $0?.count(in: unit) ?? 0 }
    }

    /// `body`'s answer from the text (`nil` when it was never written), after checking
    /// its name against its record type's ``Record/texts``.
    private func withDeclaredText<R>(_ text: TextID, _ body: (ReplicatedText?) throws -> R) throws -> R {
        try _view.checkDeclared(text)
        return try _view.withText(text, body)
    }

    /// The number of words in the text (runs of letters and digits).
    public func wordCount(of text: TextID) throws -> Int {
        try withDeclaredText(text) { $0?.wordCount ?? 0 }
    }
}
