import Foundation
import QuireCore

/// A value type that a ``Store`` persists, replicates and merges field by field.
///
/// Conform a plain `Codable` struct and give it a stable type name; the name, not the
/// Swift type, identifies records across replicas and app versions, so never change it.
///
/// ```swift
/// struct Folder: Record {
///     static let typeName = "folder"
///     static let siblingNameField: String? = "name"
///     var name: String
///     func validate() throws { try RecordName.validate(name) }
/// }
/// ```
///
/// Each top-level property is one field: a last-writer-wins register that merges on its
/// own, so concurrent edits of different fields of one record both survive. The record
/// must encode as a keyed container (a struct or class with properties), and its fields
/// as JSON values.
///
/// Several app versions share records, so a type reads what it knows and keeps the rest:
/// a write sets only the fields the type's `init(from:)` asks for (a synthesized
/// conformance asks for every property), so a field a newer version added, or one this
/// version removed, survives this version's writes. How to add fields with defaults,
/// rename fields and add enum cases safely: "Schema evolution" in `docs/store.md`.
public protocol Record: Codable, Sendable {
    /// The name that identifies this record type in the store and in delta files.
    static var typeName: String { get }

    /// The field (a `String` property) whose value should be unique among a record's
    /// siblings in the hierarchy, or `nil` when the type has none. Two records with one
    /// name under one parent (say two "Chapter 1" folders made offline) are both kept and
    /// reported as a ``NameClash``.
    static var siblingNameField: String? { get }

    /// The names of the texts a record of this type owns (``RecordID/text(_:)``), or `nil`
    /// (the default) to allow any name.
    ///
    /// Declare them and a misspelt name is an error instead of a new, empty text: reading
    /// or editing a text whose name is not declared throws
    /// ``StoreError/undeclaredText(_:type:declared:)``. Declare `[]` for a type without
    /// texts. Texts that merges bring are never refused, so a newer app version may add
    /// a text an older one does not declare.
    ///
    /// ```swift
    /// struct File: Record {
    ///     static let typeName = "writing.file"
    ///     static let texts: Set<String>? = ["content"]
    ///     var name: String
    /// }
    /// try tx.insert("Hi", at: 0, in: file.text("contnet"))   // throws undeclaredText
    /// ```
    ///
    /// A store checks a type's texts once it knows the Swift type: pass it in
    /// ``Store/Options/recordTypes`` (or ``Store/register(_:)``), or use it in a read or
    /// write of this store. When several Swift types share a ``typeName`` (two app
    /// versions in one process), a name declared by either is accepted, and `nil` in
    /// either accepts all.
    static var texts: Set<String>? { get }

    /// Checks the record before it is written; throw to refuse the write.
    ///
    /// A failed validation leaves the store exactly as it was: nothing of the transaction
    /// is written.
    func validate() throws
}

extension Record {
    public static var siblingNameField: String? { nil }
    public static var texts: Set<String>? { nil }
    public func validate() throws {}
}

/// The identity of a record: stable across replicas, assigned when the record is created.
///
/// A record is also a node of the store's hierarchy; its ID is the node's ID.
public struct RecordID: Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
    /// The replica that created the record.
    public var replica: ReplicaID
    /// The creating replica's tree-operation counter when it was created.
    public var counter: UInt64

    /// Creates an ID from its parts.
    public init(replica: ReplicaID, counter: UInt64) {
        self.replica = replica
        self.counter = counter
    }

    init(_ node: NodeID) { self.init(replica: node.replica, counter: node.counter) }

    var node: NodeID { NodeID(replica: replica, counter: counter) }

    public static func < (lhs: RecordID, rhs: RecordID) -> Bool {
        (lhs.replica, lhs.counter) < (rhs.replica, rhs.counter)
    }

    /// Hashes the replica, then the counter.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(replica)
        hasher.combine(counter)
    }

    /// The counter's one-word hash seeded with the replica's (see
    /// ``ReplicaID/_rawHashValue(seed:)``): two short hashes cost less than one through a
    /// `Hasher`, and records and texts are looked up by ID on every commit.
    public func _rawHashValue(seed: Int) -> Int {
        counter._rawHashValue(seed: replica._rawHashValue(seed: seed))
    }

    /// `replica@counter`.
    public var description: String { "\(replica)@\(counter)" }

    /// Parses the form ``description`` prints: one to sixteen hexadecimal digits (a
    /// replica other than zero), `@`, and a decimal counter.
    ///
    /// ```swift
    /// let id = RecordID(parsing: "3a9d52c01b7e4f66@12")   // replica 3a9d52c01b7e4f66, counter 12
    /// RecordID(parsing: "Chapter 1")                      // nil
    /// ```
    ///
    /// ``RecordName/validate(_:)`` refuses names of this form, so a text that parses is
    /// never a name too: tools can accept an ID wherever they accept a name.
    ///
    /// - Parameter text: The text to parse, without spaces around it.
    public init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...16).contains(parts[0].count),
              parts[0].allSatisfy({ $0.isASCII && $0.isHexDigit }),
              let replica = UInt64(parts[0], radix: 16), replica != 0,
              !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let counter = UInt64(parts[1])
        else { return nil }
        self.init(replica: ReplicaID(rawValue: replica), counter: counter)
    }

    /// Encodes as a two-number array, `[replica, counter]`, so records can refer to
    /// other records.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(replica.rawValue)
        try container.encode(counter)
    }

    /// Decodes the form ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        replica = ReplicaID(try container.decode(UInt64.self))
        counter = try container.decode(UInt64.self)
    }

    /// The text value named `field` that this record owns.
    ///
    /// ```swift
    /// try tx.insert("Hello", at: 0, in: file.text("content"))
    /// ```
    public func text(_ field: String) -> TextID { TextID(record: self, field: field) }
}

/// A text value owned by a record, such as a file's content or a note's answer.
///
/// Encodes as an object with the record's ID and the text's name:
/// `{"record":[161,3],"field":"content"}` (a ``RecordID`` is `[replica, counter]`).
public struct TextID: Hashable, Sendable, CustomStringConvertible, Codable {
    /// The record that owns the text.
    public var record: RecordID
    /// The text's name within the record.
    public var field: String

    /// Creates the ID of the text `field` of `record`.
    public init(record: RecordID, field: String) {
        self.record = record
        self.field = field
    }

    public var description: String { "\(record).\(field)" }

    /// Hashes the record alone. A record has few texts, so few IDs share a hash; hashing
    /// the field name too (a `String`, hashed through Unicode normalisation) was most of
    /// the cost of the ten or so lookups by text ID a keystroke's commit makes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(record)
    }

    /// The record's hash (see ``RecordID/_rawHashValue(seed:)``).
    public func _rawHashValue(seed: Int) -> Int { record._rawHashValue(seed: seed) }
}

/// A record read from a store, with its ID.
///
/// Properties of the value read through: `project.name` is `project.value.name`.
@dynamicMemberLookup
public struct Stored<Value: Record>: Sendable, Identifiable {
    /// The record's ID.
    public var id: RecordID
    /// The record as last written or merged.
    public var value: Value

    /// Creates a stored record.
    public init(id: RecordID, value: Value) {
        self.id = id
        self.value = value
    }

    public subscript<T>(dynamicMember keyPath: KeyPath<Value, T>) -> T { value[keyPath: keyPath] }
}
