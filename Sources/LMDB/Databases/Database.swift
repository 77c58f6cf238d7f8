import CLMDB

/// A named database (a B-tree of sorted keys) inside an ``Environment``.
///
/// Get one from ``Environment/openDatabase(named:options:)`` once, keep it for the life
/// of the environment, and pass it to transaction methods of that environment (others
/// throw ``LMDBError/Code/badDatabase``). It is a small value, safe to
/// share across threads. Keys are ordered as raw bytes (see ``Key`` for encodings that
/// keep logical order). Each key holds one value: the layer never creates `MDB_DUPSORT`
/// databases, whose cursor deletes liblmdb 0.9.24 still gets wrong.
public struct Database: Sendable, Hashable {
    /// The database's name in the environment.
    public let name: String
    @usableFromInline let handle: MDB_dbi
    /// The environment that opened it; transactions of any other refuse the handle.
    @usableFromInline let environment: EnvironmentIdentity
}

/// How ``Environment/openDatabase(named:options:)`` opens a database.
public struct DatabaseOptions: OptionSet, Sendable {
    /// The raw flag bits.
    public let rawValue: UInt32

    /// Creates options from raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates the database if it does not exist yet.
    public static let create = DatabaseOptions(rawValue: 1 << 0)
}

/// How ``WriteTransaction/put(_:forKey:in:options:)`` writes.
public struct PutOptions: OptionSet, Sendable {
    /// The raw flag bits.
    public let rawValue: UInt32

    /// Creates options from raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Fails with ``LMDBError/Code/keyExists`` instead of replacing an existing value.
    public static let noOverwrite = PutOptions(rawValue: UInt32(MDB_NOOVERWRITE))

    /// Appends at the end of the database without searching: fast bulk loading of
    /// keys in ascending order. A key that is not greater than the last one fails with
    /// ``LMDBError/Code/keyExists``.
    public static let append = PutOptions(rawValue: UInt32(MDB_APPEND))
}
