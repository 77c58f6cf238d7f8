#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Environment {
    /// How an environment is opened. Every property has a sensible default.
    ///
    /// ```swift
    /// var configuration = Environment.Configuration()
    /// configuration.maxDatabases = 8
    /// configuration.durability = .noMetaSync
    /// let environment = try Environment(path: "/path/to/store", configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The initial size of the memory map, in bytes. The map grows by doubling when a
        /// write fills it, so this is a starting point, not a limit. Default: 64 MiB.
        ///
        /// When the file already holds more data than this, the map starts at the size of
        /// that data; when another process has grown the map, the larger size is adopted
        /// at the next transaction.
        public var mapSize: Int = 64 << 20

        /// The largest the map may grow to, in bytes; `nil` for no limit beyond the disk.
        /// A write that would need more throws ``LMDBError/Code/mapFull``. Default: `nil`.
        public var maximumMapSize: Int? = nil

        /// The most named databases the environment can hold. Default: 32.
        public var maxDatabases: Int = 32

        /// The most read transactions that may be open at once, across all processes.
        /// Default: 126 (LMDB's).
        public var maxReaders: Int = 126

        /// The permission bits of newly created files and directories. Default: `0o644`
        /// for files (the directory additionally gets execute bits).
        public var fileMode: mode_t = 0o644

        /// Whether committed transactions survive a crash of the machine. Default: ``Durability/full``.
        public var durability: Durability = .full

        /// Opens the environment read-only (`MDB_RDONLY`): writes throw
        /// ``LMDBError/Code/permissionDenied``, and the directory is not created. The data
        /// file is never written, but LMDB still opens (and creates) `lock.mdb` for writing
        /// to coordinate with writers in other processes, unless ``usesLockFile`` is
        /// `false`. Default: `false`.
        public var readOnly: Bool = false

        /// Whether LMDB coordinates through `lock.mdb`. `false` opens with `MDB_NOLOCK`:
        /// no lock file is opened or created, and nothing tells this process about other
        /// processes' transactions.
        ///
        /// Set it to `false` only together with ``readOnly`` and only when nobody can write
        /// the environment meanwhile — a store on a read-only file system (a read-only
        /// mount, a backup on read-only media), where `lock.mdb` cannot be opened for
        /// writing. A writer in another process could otherwise reuse pages this process
        /// is reading. Default: `true`.
        public var usesLockFile: Bool = true

        /// Injects failures into `mdb_*` calls; for tests only.
        @_spi(Testing) public var faultInjector: FaultInjector? = nil

        /// How long after a read a kept open read transaction is reset (see
        /// `IdleReaders`); longer for tests only, which then see what a reset by this
        /// process's writes, or a read's check of the latest commit, does alone.
        @_spi(Testing) public var idleReaderLifetime: Duration = .milliseconds(10)

        /// Creates the default configuration.
        public init() {}
    }

    /// How much a commit waits for the disk. Each step down trades crash safety for speed.
    public enum Durability: Sendable, Hashable {
        /// Every commit flushes data and metadata to disk before returning (LMDB's default).
        /// A committed transaction survives a process crash and a power loss.
        case full
        /// Commits flush data but not the meta page (`MDB_NOMETASYNC`). A power loss may undo
        /// the last committed transaction; the database stays intact. A process crash loses
        /// nothing.
        case noMetaSync
        /// Commits do not flush at all (`MDB_NOSYNC`); the operating system writes pages out
        /// when it likes. A process crash loses nothing, but a power loss or kernel crash
        /// may undo recent transactions, and on filesystems that reorder writes it may
        /// damage the database. Call ``Environment/sync(force:)`` at points that must last.
        case noSync
    }
}
