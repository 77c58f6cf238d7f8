import QuireCore

/// What applying changes from other replicas did.
public struct MergeReport: Hashable, Sendable {
    /// Changes applied now (including pending ones whose gap closed).
    public var applied: [ChangeID] = []
    /// Changes this store already had: skipped, nothing changed.
    public var alreadyKnown: [ChangeID] = []
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
