/// Facts about an open environment, from `mdb_env_info`.
public struct EnvironmentInfo: Sendable, Hashable {
    /// The current size of the memory map, in bytes.
    public var mapSize: Int
    /// The number of the last page in use; `(lastPageNumber + 1) * pageSize` bytes are used.
    public var lastPageNumber: Int
    /// The ID of the last committed transaction; it increases by one per commit.
    public var lastTransactionID: Int
    /// The number of reader slots in the lock table.
    public var maxReaders: Int
    /// The number of reader slots used so far (not necessarily active now).
    public var readersUsed: Int
}

/// The shape of one B-tree, from `mdb_stat`.
public struct DatabaseStatistics: Sendable, Hashable {
    /// The page size, in bytes.
    public var pageSize: Int
    /// The height of the B-tree.
    public var depth: Int
    /// The number of internal pages.
    public var branchPages: Int
    /// The number of leaf pages.
    public var leafPages: Int
    /// The number of overflow pages (for values larger than about half a page).
    public var overflowPages: Int
    /// The number of key/value entries.
    public var entries: Int

    /// The bytes the tree occupies: all its pages times the page size.
    public var totalBytes: Int { (branchPages + leafPages + overflowPages) * pageSize }
}
