import QuireCore

/// What applying changes from other replicas did.
public struct MergeReport: Hashable, Sendable {
    /// Changes applied now (including pending ones whose gap closed).
    public var applied = ChangeIDs()
    /// Changes this store already had: skipped, nothing changed.
    public var alreadyKnown = ChangeIDs()
    /// Changes kept as pending because a change they depend on has not arrived.
    public var pending: [ChangeID] = []
    /// Records whose fields changed.
    public var changedRecords: Set<RecordID> = []
    /// Texts that changed.
    public var changedTexts: Set<TextID> = []
    /// Hierarchy nodes that moved, appeared or were deleted.
    public var movedNodes: Set<RecordID> = []
    /// Field values that lost to a concurrent write of the same field.
    public var overwritten: [OverwrittenValue] = []
    /// Siblings that share a name after the merge.
    public var nameClashes: [NameClash] = []
    /// Passages of texts that this store and the merged changes both changed since their
    /// common version, in the merged text: concurrent rewrites of one sentence merge
    /// character by character, so flag these for review (see ``OverlappingEdit``).
    public var overlappingEdits: [OverlappingEdit] = []
    /// Tree moves kept in the log but not in effect (they would have made a cycle).
    public var skippedMoves = 0

    /// Creates an empty report.
    public init() {}
}

/// A field value that lost to a later concurrent write: `(lamport, replica)` decides.
public struct OverwrittenValue: Hashable, Sendable, CustomStringConvertible {
    /// The record.
    public var record: RecordID
    /// The field.
    public var field: String
    /// The losing value, as JSON text.
    public var value: String
    /// The Lamport time and replica of the losing write.
    public var timestamp: Timestamp

    /// Creates a description of a losing value.
    public init(record: RecordID, field: String, value: String, timestamp: Timestamp) {
        self.record = record
        self.field = field
        self.value = value
        self.timestamp = timestamp
    }

    struct Loser {
        var field: String
        var value: [UInt8]
        var timestamp: Timestamp
    }

    public var description: String { "\(record).\(field) lost \(value) (written at \(timestamp))" }
}

/// Two or more siblings with one ``Record/siblingName``: all are kept, none is renamed.
public struct NameClash: Hashable, Sendable, CustomStringConvertible {
    /// The common parent; `nil` for the top level.
    public var parent: RecordID?
    /// The shared name.
    public var name: String
    /// The clashing records, in sibling order.
    public var records: [RecordID]

    /// Creates a clash description.
    public init(parent: RecordID?, name: String, records: [RecordID]) {
        self.parent = parent
        self.name = name
        self.records = records
    }

    public var description: String { "\(records.count) records named \(name.debugDescription) under \(parent.map(String.init(describing:)) ?? "the top level")" }
}

/// A passage of a text that both sides of a merge changed concurrently: this store since
/// the common version, and the changes merged. Nothing is lost, but the two edits are
/// interleaved (two rewrites of one sentence read as a mix of both), so an app should
/// flag the passage for review, as it flags a ``NameClash``.
///
/// ```swift
/// let report = try laptop.importDelta(fromPhone)
/// for edit in report.overlappingEdits {
///     highlight(NSRange(location: edit.utf16Range.lowerBound, length: edit.utf16Range.count), in: edit.text)
/// }
/// ```
///
/// What counts as overlapping (`docs/semantics.md`, "Overlapping edits"): each side
/// *changed* the characters it inserted and the ones it deleted since the common version.
/// In the merged text, with the characters either side deleted still in their places,
/// the changed characters form passages with no unchanged character inside; a passage
/// overlaps when both sides changed something in it and some of it is still visible.
/// Two rewrites of one sentence, two inserts at one place, and an insert where the
/// other side deleted overlap; edits with an unchanged character between them do not,
/// and neither do two deletions of the same words. The common version is what the
/// merged changes of the text were made on.
public struct OverlappingEdit: Hashable, Sendable, CustomStringConvertible {
    /// The text.
    public var text: TextID
    /// The passage in the merged text, in Unicode scalars.
    public var range: Range<Int>
    /// The same passage in UTF-16 code units (`NSRange`).
    public var utf16Range: Range<Int>

    /// Creates a description of an overlap.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - range: The passage, in Unicode scalars.
    ///   - utf16Range: The passage, in UTF-16 code units.
    public init(text: TextID, range: Range<Int>, utf16Range: Range<Int>) {
        self.text = text
        self.range = range
        self.utf16Range = utf16Range
    }

    public var description: String { "\(text) \(range.lowerBound)..<\(range.upperBound) changed on both sides" }
}
