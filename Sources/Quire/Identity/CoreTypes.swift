import QuireCore

// The replication core's types that an app handles, named from `import Quire`.
//
// Typealiases rather than `@_exported import QuireCore`: the core's public surface is its
// CRDT machinery (`ReplicatedText`, `TreeOperation`, `ByteWriter`, …) and includes a
// `DecodingError` of its own, which an exported import would put into every app's
// namespace, where it shadows `Swift.DecodingError`. These aliases are the vocabulary
// of the store's API, and nothing else; a file that imports both modules sees one type
// under each name (the aliases shadow the core's declarations).

/// The identity of one replica (one device's copy of a store): a random 64-bit number.
///
/// Encodes as its sixteen lowercase hexadecimal digits, `"00000000000000a1"`.
///
/// ```swift
/// let me: ReplicaID = store.replica
/// ```
public typealias ReplicaID = QuireCore.ReplicaID

/// What a replica has: for each replica, the next counter expected from it.
///
/// Encodes as an object from replica IDs to counters, `{"00000000000000a1":12}`, so a
/// device can send "what I have" and receive what it lacks:
///
/// ```swift
/// let mine = try JSONEncoder().encode(phone.version)                // sent to the laptop
/// let theirs = try JSONDecoder().decode(VersionVector.self, from: mine)
/// let delta = try laptop.exportDelta(since: theirs)                 // sent back
/// ```
public typealias VersionVector = QuireCore.VersionVector

/// The identity of one operation: a replica and its counter.
public typealias OperationID = QuireCore.OperationID

/// The unit a text position or length is counted in: Unicode scalars, UTF-16 (`NSRange`)
/// or UTF-8. Encodes as its case name, `"utf16"`.
///
/// ```swift
/// try tx.insert("👋 ", at: range.location, unit: .utf16, in: body)
/// ```
public typealias TextUnit = QuireCore.TextUnit

/// Why a text edit was refused (in ``StoreError/text(_:_:)``).
public typealias TextError = QuireCore.TextError

/// Why a hierarchy change was refused (in ``StoreError/hierarchy(_:)``).
public typealias TreeError = QuireCore.TreeError

/// The edits that turn a text at one version into the text at another (what
/// ``StoreReading/diff(of:from:to:)`` returns): apply them back to front, replacing each
/// edit's `deletedRange` (scalars) or `deletedUTF16Range` (`NSRange`) with its
/// `insertedText`.
///
/// ```swift
/// let diff = try tx.diff(of: content, from: yesterday, to: tx.version)
/// for edit in diff.edits.reversed() { print(edit.deletedRange, edit.insertedText) }
/// ```
public typealias TextDiff = QuireCore.TextDiff
