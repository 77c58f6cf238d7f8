import LMDB
import QuireCore

/// How the store's data file is used, database by database (LMDB statistics).
public struct StoreUsage: Hashable, Sendable {
    /// One LMDB database of the store.
    public struct Database: Hashable, Sendable {
        /// Its name, such as `"changes"` or `"tree.nodes"`.
        public var name: String
        /// Entries (keys) in it.
        public var entries: Int
        /// Pages its B-tree uses (branch, leaf and overflow pages).
        public var pages: Int
        /// Those pages in bytes.
        public var bytes: Int
        /// The B-tree's height.
        public var depth: Int
    }

    /// Every database of the store, in the order of `docs/storage.md`.
    public var databases: [Database] = []
    /// The page size, in bytes.
    public var pageSize = 0
    /// The memory map's current size (the most the file can grow to before the map grows).
    public var mapSize = 0
    /// Pages in use up to the last one written (live, free and the two meta pages).
    public var usedPages = 0
    /// The data file's size on disk.
    public var fileBytes = 0
    /// Per replica, the first counter the change log keeps (pruned history before it).
    public var keptFrom = VersionVector()

    /// The bytes of all databases' pages.
    public var liveBytes: Int { databases.reduce(0) { $0 + $1.bytes } }
}

extension Store {
    /// Measures how the data file is used, per database, from LMDB's statistics.
    ///
    /// ```swift
    /// for database in try store.usage().databases { print(database.name, database.bytes) }
    /// ```
    ///
    /// - Complexity: O(1) per database: LMDB keeps these counts.
    /// - Throws: ``StoreError/closed``, an `LMDBError`.
    public func usage() throws -> StoreUsage {
        try withStateLock("store.usage") { state in
            guard !state.isClosed else { throw StoreError.closed }
            let layout = state.layout
            var usage = StoreUsage()
            let all = [layout.meta, layout.changes, layout.pending, layout.records, layout.texts, layout.textStrings, layout.textSlots,
                       layout.names, layout.tree.log, layout.tree.nodes, layout.tree.children, layout.tree.meta].compactMap { $0 }
            try environment.read { tx in
                for database in all {
                    let statistics = try tx.statistics(of: database)
                    let pages = statistics.branchPages + statistics.leafPages + statistics.overflowPages
                    usage.databases.append(.init(name: database.name, entries: statistics.entries, pages: pages,
                                                 bytes: statistics.totalBytes, depth: statistics.depth))
                    usage.pageSize = statistics.pageSize
                }
                usage.keptFrom = try layout.prunedHistory(in: tx)
            }
            let info = try environment.info()
            usage.mapSize = info.mapSize
            usage.usedPages = info.lastPageNumber + 1
            usage.fileBytes = Self.dataFileSize(directory)
            return usage
        }
    }
}
