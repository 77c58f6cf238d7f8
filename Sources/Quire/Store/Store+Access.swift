extension Store.Options {
    /// How ``Store/init(directory:options:)`` opens an existing store's LMDB environment.
    ///
    /// ```swift
    /// var options = Store.Options()
    /// options.access = .readOnlyWithoutLock   // a backup on a read-only disk
    /// let store = try Store(directory: "/Volumes/Backup/Notes.quire", options: options)
    /// ```
    public enum Access: Sendable, Hashable {
        /// Reads and writes (the default); creates the store when there is none.
        case readWrite
        /// Reads only (`MDB_RDONLY`): writes throw, nothing is written to the store.
        /// LMDB's lock file is still used, so other processes may write meanwhile.
        case readOnly
        /// Reads only, without LMDB's lock file (`MDB_RDONLY | MDB_NOLOCK`), for a store
        /// on a read-only file system, where `lock.mdb` cannot be opened for writing.
        /// Safe only when no process can write the store meanwhile; a read-only medium
        /// guarantees that.
        case readOnlyWithoutLock

        /// The environment configuration's ``LMDB/Environment/Configuration/readOnly``.
        var isReadOnly: Bool { self != .readWrite }
        /// The environment configuration's ``LMDB/Environment/Configuration/usesLockFile``.
        var usesLockFile: Bool { self != .readOnlyWithoutLock }
    }
}
