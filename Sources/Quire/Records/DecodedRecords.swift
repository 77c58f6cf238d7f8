/// The records of one type that decode, and the ones that do not, from
/// ``StoreReading/allDecodable(_:includingDeleted:where:)``.
///
/// A record stops decoding as an app's type when a newer app version on another device
/// writes something this version cannot read, such as a new enum case. One such record
/// should not hide the others: list ``records`` and report or skip ``undecodable``.
///
/// ```swift
/// let diaries = try tx.allDecodable(Diary.self)
/// show(diaries.records)
/// if !diaries.undecodable.isEmpty { showUpdateHint(count: diaries.undecodable.count) }
/// ```
public struct DecodedRecords<Value: Record>: Sendable {
    /// The records that decode (and that the query's filter kept), in ID order.
    public var records: [Stored<Value>]
    /// The records of the type that do not decode, in ID order. The query's filter did
    /// not see them.
    public var undecodable: [UndecodableRecord]

    /// Creates a query result.
    ///
    /// - Parameters:
    ///   - records: The records that decode.
    ///   - undecodable: The records that do not.
    public init(records: [Stored<Value>], undecodable: [UndecodableRecord]) {
        self.records = records
        self.undecodable = undecodable
    }
}

/// A stored record that does not decode as the type it was read as, with the reason.
///
/// The record is intact in the store, and other replicas (say, newer app versions) read
/// it as before; this version cannot decode it until it knows what it holds.
public struct UndecodableRecord: Hashable, Sendable, Identifiable, CustomStringConvertible {
    /// The record.
    public var id: RecordID
    /// Why it does not decode: a ``StoreError/decodingFailed(record:type:problem:)``
    /// naming the record, the type and `JSONDecoder`'s error.
    public var error: StoreError

    /// Creates the description of an undecodable record.
    ///
    /// - Parameters:
    ///   - id: The record.
    ///   - error: Why it does not decode.
    public init(id: RecordID, error: StoreError) {
        self.id = id
        self.error = error
    }

    /// The error's description.
    public var description: String { error.description }
}
