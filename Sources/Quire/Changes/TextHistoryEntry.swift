import Foundation

/// Characters one change inserted into and deleted from a text, counted in Unicode
/// scalars (the text's own unit).
///
/// Counted from the change's operations, not from a comparison of the text before and
/// after: a character typed and deleted in one change counts once in each.
public struct TextEditCount: Hashable, Sendable {
    /// Characters inserted.
    public var inserted: Int
    /// Characters deleted.
    public var deleted: Int

    /// Creates a count.
    public init(inserted: Int = 0, deleted: Int = 0) {
        self.inserted = inserted
        self.deleted = deleted
    }
}

/// One change in the history of a text (see ``StoreReading/history(of:)-(TextID)``): who
/// made it, when, and how many characters it inserted and deleted.
public struct TextHistoryEntry: Hashable, Sendable {
    /// The change.
    public var change: ChangeID
    /// Its Lamport time: the history's order, with ``replica``.
    public var lamport: UInt64
    /// When it was made: seconds since 1970-01-01 UTC by its replica's clock; 0 when
    /// unknown (see ``Change/time``).
    public var time: UInt64
    /// What it did to the text.
    public var edit: TextEditCount

    /// The replica that made it.
    public var replica: ReplicaID { change.replica }
    /// ``time`` as a date, `nil` when unknown.
    public var date: Date? { Date(changeTime: time) }
    /// Characters it inserted.
    public var inserted: Int { edit.inserted }
    /// Characters it deleted.
    public var deleted: Int { edit.deleted }
}

extension Date {
    /// A change's ``Change/time`` as a date, `nil` for 0 (unknown).
    init?(changeTime time: UInt64) {
        guard time != 0 else { return nil }
        self.init(timeIntervalSince1970: TimeInterval(time))
    }
}
