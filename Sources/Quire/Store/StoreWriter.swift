import QuireCore

/// A write transaction: reads (its own writes included) and changes, committed together
/// as one ``Change`` when the body of ``Store/write(_:)`` returns.
///
/// Noncopyable, so it cannot outlive the call that lends it.
public struct StoreWriter: StoreReading, ~Copyable {
    public let _contents: StoreContents
    /// The writer's state, which ``_contents`` lends to the reads.
    let _state: StoreState

    init(state: StoreState) {
        _contents = StoreContents(view: state)
        _state = state
    }

    /// The ID the change being made will have: events of this change carry it, so a
    /// writer can recognise its own changes.
    public var changeID: ChangeID { ChangeID(replica: _state.replica, counter: _state.meta.version[_state.replica]) }

    // MARK: Records

    /// Inserts a new record under `parent` (`nil`: the top level).
    ///
    /// ```swift
    /// let project = try tx.insert(Project(name: "My Poetry", type: .poetry))
    /// let folder = try tx.insert(Folder(name: "Drafts"), under: project)
    /// ```
    ///
    /// - Parameters:
    ///   - record: The record; it is validated first.
    ///   - parent: The parent record; `nil` for the top level.
    ///   - index: The position among the parent's children; `nil` for the end.
    /// - Returns: The new record's ID, the same on every replica.
    /// - Throws: ``StoreError/validationFailed(type:problem:)`` (or the error `validate`
    ///   throws), ``StoreError/hierarchy(_:)`` for an unknown parent.
    @discardableResult
    public func insert<T: Record>(_ record: T, under parent: RecordID? = nil, at index: Int? = nil) throws -> RecordID {
        _state.learn(T.self)
        try validate(record)
        let fields = try RecordFields.encode(record)
        let move = try hierarchy(.create(under: parent?.node ?? .root, at: index))
        let id = RecordID(move.node)
        _state.records.noteNew(id)
        writeFields(fields, of: id, type: T.typeName)
        return id
    }

    /// Changes a record through a closure; only the fields whose values changed are
    /// written, so concurrent edits of other fields on other replicas survive.
    ///
    /// ```swift
    /// try tx.update(project, as: Project.self) { $0.name = "Poems" }
    /// ```
    ///
    /// Fields `type` does not know (added by a newer app version, or removed in this
    /// one) are never written: an older app updating a record keeps what a newer one
    /// added. See ``replace(_:with:)``.
    ///
    /// - Throws: ``StoreError/recordNotFound(_:)``, ``StoreError/wrongType(_:expected:actual:)``,
    ///   ``StoreError/decodingFailed(record:type:problem:)`` when the record does not
    ///   decode as `type`, a validation error, or what `body` throws.
    public func update<T: Record>(_ id: RecordID, as type: T.Type, _ body: (inout T) throws -> Void) throws {
        var value = try record(T.self, id)
        try body(&value)
        try replace(id, with: value)
    }

    /// Replaces a record's value; only the fields that differ are written.
    ///
    /// ```swift
    /// try tx.replace(task, with: Task(title: "Call Ada", dueDate: nil))   // clears dueDate
    /// ```
    ///
    /// A field is one of `T`'s when `T`'s `init(from:)` asks for its key (`decode`,
    /// `decodeIfPresent`, `contains` …); a synthesized conformance asks for every stored
    /// property. Such a field that `value` does not encode — an optional set to `nil`,
    /// which synthesized `encode(to:)` skips — is written as `null`. Stored fields `T`
    /// never asks for (a newer app version's, a removed property's) are left as they are,
    /// so replacing a record with an older type loses nothing a newer type wrote. A type
    /// whose `init(from:)` does not decode a keyed container at the top level clears no
    /// fields: write `null` explicitly (`container.encodeNil(forKey:)`) to clear one.
    ///
    /// - Parameters:
    ///   - id: The record.
    ///   - value: Its new value; it is validated first.
    /// - Throws: ``StoreError/recordNotFound(_:)``, ``StoreError/wrongType(_:expected:actual:)``,
    ///   ``StoreError/encodingFailed(type:problem:)``, or a validation error.
    public func replace<T: Record>(_ id: RecordID, with value: T) throws {
        _state.learn(T.self)
        guard let current = _state.record(id) else { throw StoreError.recordNotFound(id) }
        guard current.type == T.typeName else { throw StoreError.wrongType(id, expected: T.typeName, actual: current.type) }
        try validate(value)
        let fields = try RecordFields.write(value, over: current.values, id: id)
        let changed = fields.filter { current.fields[$0.key]?.value != $0.value }
        if !changed.isEmpty { writeFields(changed, of: id, type: T.typeName) }
    }

    /// Moves a record (and its subtree) under `parent` (`nil`: the top level).
    ///
    /// - Parameters:
    ///   - id: The record to move.
    ///   - parent: The new parent.
    ///   - index: The position among the new siblings; `nil` for the end.
    /// - Throws: ``StoreError/hierarchy(_:)`` for a move into its own subtree or an
    ///   unknown record.
    public func move(_ id: RecordID, to parent: RecordID?, at index: Int? = nil) throws {
        try hierarchy(.move(id.node, to: parent?.node ?? .root, at: index))
    }

    /// Moves a record to position `index` among its current siblings.
    public func reorder(_ id: RecordID, to index: Int) throws {
        guard let parent = _state.parent(of: id.node) else { throw StoreError.recordNotFound(id) }
        try hierarchy(.move(id.node, to: parent, at: index))
    }

    /// Moves a record and its subtree to the trash. Nothing is destroyed: its fields and
    /// texts stay, edits made concurrently inside it survive, and ``restore(_:to:at:)``
    /// brings it back.
    public func delete(_ id: RecordID) throws {
        try hierarchy(.move(id.node, to: .deletedRoot, at: nil))
    }

    /// Puts a record in the trash back where it was deleted from: under its old parent, at
    /// its old index (see ``StoreReading/deletedFrom(_:)``).
    ///
    /// ```swift
    /// try store.write { tx in try tx.delete(chapter) }
    /// try store.write { tx in try tx.restore(chapter) }   // back in Draft, where it was
    /// ```
    ///
    /// - Parameter id: A record deleted itself (one of ``StoreReading/trash``).
    /// - Throws: ``StoreError/notRestorable(_:reason:)`` when `id` is not itself in the
    ///   trash (live, unknown, or inside a deleted record: restore that one), was created
    ///   there, or was deleted from a record that is in the trash itself (restore that
    ///   first, or give a destination with ``restore(_:to:at:)``).
    public func restore(_ id: RecordID) throws {
        guard let place = placeBeforeDeletion(of: id) else {
            let reason: String
            if _state.parent(of: id.node) == .deletedRoot {
                reason = "it was created in the trash, so it has no place to go back to; give one: restore(\(id), to: parent)"
            } else if isDeleted(id), let deleted = path(of: id).first(where: { _state.parent(of: $0.node) == .deletedRoot }) {
                reason = "it is inside the deleted record \(deleted); restore that one"
            } else if _state.contains(id.node) {
                reason = "it is not in the trash"
            } else {
                reason = "there is no such record in this store"
            }
            throw StoreError.notRestorable(id, reason: reason)
        }
        if place.parent != .root, isDeleted(RecordID(place.parent)) {
            throw StoreError.notRestorable(
                id, reason: "it was deleted from \(RecordID(place.parent)), which is in the trash itself; restore that first, or give another parent: restore(\(id), to: parent)")
        }
        // Its old position key puts it back between its old neighbours, wherever they are now.
        try hierarchy(.place(id.node, under: place.parent, position: place.position))
    }

    /// Moves a record out of the trash under `parent` (`nil`: the top level).
    ///
    /// - Parameters:
    ///   - id: The record to restore.
    ///   - parent: The new parent; `nil` for the top level.
    ///   - index: The position among the new siblings; `nil` for the end.
    /// - Throws: ``StoreError/hierarchy(_:)`` for an unknown record or parent.
    public func restore(_ id: RecordID, to parent: RecordID?, at index: Int? = nil) throws {
        try hierarchy(.move(id.node, to: parent?.node ?? .root, at: index))
    }

    // MARK: Texts

    /// Inserts `string` into a text at `position`.
    ///
    /// ```swift
    /// try tx.insert("Hello", at: 0, in: file.text("content"))
    /// try tx.insert("!", at: range.location, unit: .utf16, in: content)   // from an NSRange
    /// ```
    ///
    /// - Parameters:
    ///   - string: The text to insert.
    ///   - position: An offset in `unit`s, `0...length`.
    ///   - unit: Unicode scalars (default), UTF-16 code units or UTF-8 bytes.
    ///   - text: A text of an existing record; created empty on first edit.
    /// - Throws: ``StoreError/recordNotFound(_:)``, ``StoreError/text(_:_:)``,
    ///   ``StoreError/undeclaredText(_:type:declared:)`` for a name the record's type does
    ///   not declare in ``Record/texts``.
    /// - Complexity: O(log *n*) in the text's runs.
    public func insert(_ string: String, at position: Int, unit: TextUnit = .unicodeScalars, in text: TextID) throws {
        let typing = TypingRun(text: text, replacing: position..<position, with: string, unit: unit)
        try editText(text, typing: typing) { replicated throws(TextError) in try replicated.insert(string, at: position, unit: unit) }
    }

    /// Deletes `range` (in `unit`s) from a text.
    public func delete(_ range: Range<Int>, unit: TextUnit = .unicodeScalars, in text: TextID) throws {
        let typing = TypingRun(text: text, replacing: range, with: "", unit: unit)
        try editText(text, typing: typing) { replicated throws(TextError) in try replicated.delete(range, unit: unit) }
    }

    /// Replaces `range` (in `unit`s) of a text with `string`.
    public func replace(_ range: Range<Int>, with string: String, unit: TextUnit = .unicodeScalars, in text: TextID) throws {
        let typing = TypingRun(text: text, replacing: range, with: string, unit: unit)
        try editText(text, typing: typing) { replicated throws(TextError) in try replicated.replace(range, with: string, unit: unit) }
    }

    /// Makes a text read `string` with the smallest single edit: the common prefix and
    /// suffix stay, only the middle is replaced (so concurrent edits elsewhere survive).
    public func setString(_ string: String, in text: TextID) throws {
        let current = Array(try self.string(of: text).unicodeScalars)
        let target = Array(string.unicodeScalars)
        var prefix = 0
        while prefix < current.count, prefix < target.count, current[prefix] == target[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < current.count - prefix, suffix < target.count - prefix,
            current[current.count - 1 - suffix] == target[target.count - 1 - suffix]
        {
            suffix += 1
        }
        let removed = prefix..<(current.count - suffix)
        var inserted = String.UnicodeScalarView()
        inserted.append(contentsOf: target[prefix..<(target.count - suffix)])
        if removed.isEmpty && inserted.isEmpty { return }
        try replace(removed, with: String(inserted), in: text)
    }

    // MARK: Internals

    private func validate<T: Record>(_ record: T) throws {
        do {
            try record.validate()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.validationFailed(type: T.typeName, problem: "\(error)")
        }
    }

    func writeFields(_ values: [String: [UInt8]], of id: RecordID, type: String) {
        _state.willChange(id)
        let timestamp = Timestamp(lamport: _state.session!.lamport, replica: _state.replica)
        let existed = _state.records[id] != nil
        var record = _state.records[id] ?? RecordState(type: type, fields: [:])
        let counter = _state.meta.version[_state.replica]
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            // Undo restores what was there; a new record's fields go with its creation.
            if existed, !_state.session!.undoFields.contains(where: { $0.record == id && $0.name == name }) {
                _state.session!.undoFields.append(.init(
                    record: id, type: type, name: name, previous: record.fields[name]?.value, written: timestamp))
            }
            record.fields[name] = FieldRegister(value: value, timestamp: timestamp, counter: counter)
        }
        _state.session!.typingEnded = true
        _state.records[id] = record
        _state.session!.fieldWrites[id, default: (type, [:])].values.merge(values) { $1 }
    }

    /// Makes a local change of the hierarchy and notes where the node was, for undo.
    @discardableResult
    func hierarchy(_ move: StoreState.LocalMove) throws -> TreeOperation {
        let previous = move.node.flatMap { node in
            _state.parent(of: node).flatMap { parent in _state.placement(of: node).map { (parent: parent, position: $0.position) } }
        }
        let operation = try _state.moveLocally(move)
        _state.session!.treeOperations.append(operation)
        _state.session!.typingEnded = true
        if let index = _state.session!.undoMoveIndex[operation.node] {
            _state.session!.undoMoves[index].moved = operation.timestamp
        } else {
            _state.session!.undoMoveIndex[operation.node] = _state.session!.undoMoves.count
            _state.session!.undoMoves.append(.init(node: operation.node, previous: previous, moved: operation.timestamp))
        }
        return operation
    }

    /// Edits a text; `typing` is what the edit typed or erased, for undo grouping (`nil`
    /// for anything else).
    func editText(_ id: TextID, typing: TypingRun?, _ body: (ReplicatedText) throws(TextError) -> Void) throws {
        guard _state.record(id.record) != nil else { throw StoreError.recordNotFound(id.record) }
        try _state.checkDeclared(id)
        // The change log names a text by its field name, which it reads back only this long.
        guard id.field.utf8.count <= Change.maximumNameLength else {
            throw StoreError.invalidName(id.field, reason: "a text's field name is at most \(Change.maximumNameLength) bytes of UTF-8")
        }
        let stored = try _state.text(id)
        _state.willChange(id, stored)
        do {
            try body(stored.text)
        } catch {
            throw StoreError.text(id, error)
        }
        noteTyping(typing)
    }

    /// Extends the transaction's typing run by one edit, or ends it.
    private func noteTyping(_ typing: TypingRun?) {
        guard let typing, !_state.session!.typingEnded else {
            _state.session!.typingEnded = true
            return
        }
        if let run = _state.session!.typing {
            // Within one transaction (a coalesced burst) a space does not split the step.
            if run.isContinued(by: typing, breakingAtSpace: false) {
                _state.session!.typing = run.extended(by: typing)
            } else {
                _state.session!.typingEnded = true
            }
        } else {
            _state.session!.typing = typing
        }
    }
}
