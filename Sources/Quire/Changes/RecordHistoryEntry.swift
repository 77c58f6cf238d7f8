import Foundation
import QuireCore

/// One change in the history of a record (see ``StoreReading/history(of:)-(RecordID)``):
/// which of its fields it wrote, how it moved the record in the hierarchy, and what it did
/// to the record's texts.
///
/// ```swift
/// for entry in try store.read({ tx in try tx.history(of: chapter) }) {
///     if let name = try entry.value(of: "name", as: String.self) { print("named '\(name)'") }
///     for move in entry.moves where move.destination == .trash { print("to the trash") }
///     if let edit = entry.texts["content"] { print("+\(edit.inserted) −\(edit.deleted)") }
/// }
/// ```
public struct RecordHistoryEntry: Hashable, Sendable {
    /// The change.
    public var change: ChangeID
    /// Its Lamport time: the history's order, with ``replica``.
    public var lamport: UInt64
    /// When it was made: seconds since 1970-01-01 UTC by its replica's clock; 0 when
    /// unknown (see ``Change/time``).
    public var time: UInt64
    /// The fields it wrote, each with its value's JSON text (a record's encoding, see
    /// ``Record``); empty when it wrote none.
    var fields: [String: [UInt8]] = [:]
    /// Its moves of the record's node, in the order it made them (usually one).
    public var moves: [RecordMove] = []
    /// What it did to the record's texts, by text name (``TextID/field``).
    public var texts: [String: TextEditCount] = [:]

    init(change: ChangeID, lamport: UInt64, time: UInt64) {
        self.change = change
        self.lamport = lamport
        self.time = time
    }

    /// The replica that made it.
    public var replica: ReplicaID { change.replica }
    /// ``time`` as a date, `nil` when unknown.
    public var date: Date? { Date(changeTime: time) }
    /// The names of the fields it wrote, sorted.
    public var writtenFields: [String] { fields.keys.sorted() }
    /// Whether it created the record: its move placed the node first (the record's ID is
    /// that move's).
    public var isCreation: Bool { moves.contains(where: \.isCreation) }

    /// The value this change wrote to `field`, decoded as `type`; `nil` when it did not
    /// write the field (or wrote `null`, an optional cleared).
    ///
    /// - Throws: `DecodingError` when the value does not decode as `type`.
    public func value<T: Decodable>(of field: String, as type: T.Type = T.self) throws -> T? {
        guard let json = fields[field] else { return nil }
        return try JSONDecoder().decode(T?.self, from: Data(json))
    }
}

/// A move of a record in the hierarchy, as the change that made it asked: where to.
///
/// A history lists moves as they were made. Concurrent moves of one record are applied in
/// `(lamport, replica)` order, so the later one wins; a move that would have put a folder
/// inside itself is kept but skipped. ``StoreReading/parent(of:)`` tells where it is now.
public struct RecordMove: Hashable, Sendable {
    /// Where a move puts a record.
    public enum Destination: Hashable, Sendable {
        /// The top level.
        case topLevel
        /// Under this record.
        case parent(RecordID)
        /// The trash (a delete).
        case trash
    }

    /// Where it moved the record.
    public var destination: Destination
    /// Whether the move created the record.
    public var isCreation: Bool

    init(_ operation: TreeOperation) {
        switch operation.parent {
        case .root: destination = .topLevel
        case .deletedRoot: destination = .trash
        default: destination = .parent(RecordID(operation.parent))
        }
        isCreation = NodeID(operation.id) == operation.node
    }
}
