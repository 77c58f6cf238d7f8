#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLMDB

extension LMDBError {
    /// A condition code: an LMDB return code, a system `errno`, or a code of this layer.
    ///
    /// Modelled on `Errno` in swift-system: a struct over the raw value with named
    /// members, so unknown codes still round-trip.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The raw code: negative for LMDB and layer codes, positive for `errno`.
        public var rawValue: Int32

        /// Creates a code from its raw value.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        init(_ raw: Int32) { self.rawValue = raw }

        // MARK: LMDB codes

        /// `MDB_KEYEXIST`: the key is already present (with `.noOverwrite` or `.append`).
        public static let keyExists = Code(MDB_KEYEXIST)
        /// `MDB_NOTFOUND`: no such key, or no such named database.
        public static let notFound = Code(MDB_NOTFOUND)
        /// `MDB_PAGE_NOTFOUND`: a page is missing; the file is damaged.
        public static let pageNotFound = Code(MDB_PAGE_NOTFOUND)
        /// `MDB_CORRUPTED`: the file is damaged.
        public static let corrupted = Code(MDB_CORRUPTED)
        /// `MDB_PANIC`: an earlier fatal error; the environment must be closed.
        public static let panic = Code(MDB_PANIC)
        /// `MDB_VERSION_MISMATCH`: the file was written by an incompatible LMDB.
        public static let versionMismatch = Code(MDB_VERSION_MISMATCH)
        /// `MDB_INVALID`: the file is not an LMDB file.
        public static let invalidFile = Code(MDB_INVALID)
        /// `MDB_MAP_FULL`: the memory map is full. The layer grows the map and retries, so
        /// callers only see this when ``Environment/Configuration/maximumMapSize`` is reached.
        public static let mapFull = Code(MDB_MAP_FULL)
        /// `MDB_DBS_FULL`: more named databases than ``Environment/Configuration/maxDatabases``.
        public static let databasesFull = Code(MDB_DBS_FULL)
        /// `MDB_READERS_FULL`: more concurrent readers than ``Environment/Configuration/maxReaders``.
        public static let readersFull = Code(MDB_READERS_FULL)
        /// `MDB_TXN_FULL`: a transaction touched too many pages.
        public static let transactionFull = Code(MDB_TXN_FULL)
        /// `MDB_CURSOR_FULL`: the B-tree is too deep for a cursor.
        public static let cursorFull = Code(MDB_CURSOR_FULL)
        /// `MDB_PAGE_FULL`: a page has no room left; an internal LMDB error.
        public static let pageFull = Code(MDB_PAGE_FULL)
        /// `MDB_MAP_RESIZED`: another process grew the map. The layer adopts the new size.
        public static let mapResized = Code(MDB_MAP_RESIZED)
        /// `MDB_INCOMPATIBLE`: the database was opened with incompatible flags.
        public static let incompatible = Code(MDB_INCOMPATIBLE)
        /// `MDB_BAD_RSLOT`: a reader slot was misused.
        public static let badReaderSlot = Code(MDB_BAD_RSLOT)
        /// `MDB_BAD_TXN`: the transaction already failed and can only be aborted.
        public static let badTransaction = Code(MDB_BAD_TXN)
        /// `MDB_BAD_VALSIZE`: a key is empty or too long, or a value is too large.
        public static let badValueSize = Code(MDB_BAD_VALSIZE)
        /// `MDB_BAD_DBI`: the database handle is not valid in this transaction.
        public static let badDatabase = Code(MDB_BAD_DBI)

        // MARK: System codes

        /// `EIO`: the disk reported an input/output error.
        public static let ioError = Code(EIO)
        /// `ENOSPC`: the disk is full.
        public static let noSpace = Code(ENOSPC)
        /// `EACCES`: permission denied.
        public static let permissionDenied = Code(EACCES)
        /// `ENOENT`: no such file or directory.
        public static let noSuchFile = Code(ENOENT)
        /// `ENOMEM`: out of memory.
        public static let outOfMemory = Code(ENOMEM)
        /// `EINVAL`: an invalid argument.
        public static let invalidArgument = Code(EINVAL)
        /// `EAGAIN`: the resource is busy (for example, the lock file is held).
        public static let tryAgain = Code(EAGAIN)

        // MARK: Codes of this layer (below LMDB's range)

        /// A write transaction was begun on a thread that already has one open.
        /// LMDB would deadlock; the layer refuses instead.
        public static let nestedWrite = Code(-31_001)
        /// The environment has been closed.
        public static let environmentClosed = Code(-31_002)
        /// A database name is empty or contains a NUL character.
        public static let invalidName = Code(-31_003)
        /// The map must grow but this thread still holds a transaction that pins it.
        public static let growthBlocked = Code(-31_004)

        /// The call is not allowed inside a transaction body (opening a database,
        /// closing the environment), because it would wait for that very transaction.
        public static let insideTransaction = Code(-31_005)

        /// This process already has an ``Environment`` open on the same directory.
        public static let alreadyOpen = Code(-31_006)
        /// An earlier failure (a map that could not be resized) made the layer close the
        /// environment to protect the data.
        public static let environmentFailed = Code(-31_007)
        /// The data file (`data.mdb`) is shorter than its meta pages say: pages of the last
        /// committed transaction are missing. LMDB would map it and fault on the first read
        /// of a missing page; the layer refuses to open it instead.
        public static let truncatedFile = Code(-31_008)

        /// The symbolic name, such as `MDB_MAP_FULL` or `EIO`.
        public var name: String { Self.names[self] ?? "error \(rawValue)" }

        /// What the code means, in a sentence fragment.
        public var explanation: String {
            if let text = Self.explanations[self] { return text }
            if rawValue > 0, let text = strerror(rawValue) { return String(cString: text) }
            return String(cString: mdb_strerror(rawValue))
        }

        /// What a person can do about it, if anything.
        public var remedy: String? { Self.remedies[self] }
    }
}

extension LMDBError.Code: CustomStringConvertible {
    /// The symbolic name.
    public var description: String { name }
}

extension LMDBError.Code {
    private static let names: [LMDBError.Code: String] = [
        .keyExists: "MDB_KEYEXIST", .notFound: "MDB_NOTFOUND", .pageNotFound: "MDB_PAGE_NOTFOUND",
        .corrupted: "MDB_CORRUPTED", .panic: "MDB_PANIC", .versionMismatch: "MDB_VERSION_MISMATCH",
        .invalidFile: "MDB_INVALID", .mapFull: "MDB_MAP_FULL", .databasesFull: "MDB_DBS_FULL",
        .readersFull: "MDB_READERS_FULL", .transactionFull: "MDB_TXN_FULL",
        .cursorFull: "MDB_CURSOR_FULL", .pageFull: "MDB_PAGE_FULL", .mapResized: "MDB_MAP_RESIZED",
        .incompatible: "MDB_INCOMPATIBLE", .badReaderSlot: "MDB_BAD_RSLOT",
        .badTransaction: "MDB_BAD_TXN", .badValueSize: "MDB_BAD_VALSIZE", .badDatabase: "MDB_BAD_DBI",
        .ioError: "EIO", .noSpace: "ENOSPC", .permissionDenied: "EACCES", .noSuchFile: "ENOENT",
        .outOfMemory: "ENOMEM", .invalidArgument: "EINVAL", .tryAgain: "EAGAIN",
        .nestedWrite: "nested write", .environmentClosed: "environment closed",
        .invalidName: "invalid name", .growthBlocked: "map growth blocked",
        .insideTransaction: "inside transaction",
        .alreadyOpen: "already open", .environmentFailed: "environment failed",
        .truncatedFile: "truncated file",
    ]

    private static let explanations: [LMDBError.Code: String] = [
        .keyExists: "the key is already present",
        .notFound: "no such key or database",
        .corrupted: "the database file is damaged",
        .pageNotFound: "a page of the database file is missing; the file is damaged",
        .invalidFile: "the file is not an LMDB database",
        .mapFull: "the memory map is full",
        .databasesFull: "too many named databases are open",
        .readersFull: "too many read transactions are open at once",
        .badValueSize: "a key is empty or longer than the 511-byte limit, or a value is too large",
        .badTransaction: "the transaction already failed",
        .nestedWrite: "this thread already has a write transaction open, and LMDB would deadlock",
        .environmentClosed: "the environment has been closed",
        .invalidName: "a database name must be non-empty and contain no NUL character",
        .growthBlocked: "the map is full and cannot grow while this thread holds another transaction",
        .alreadyOpen: "this process already has an Environment open on this directory",
        .environmentFailed: "an earlier failure closed the environment",
        .truncatedFile: "the store file is shorter than its meta pages say; pages are missing",
        .insideTransaction: "this call waits for open transactions and cannot be made inside one",
        .ioError: "the disk reported an input/output error",
        .noSpace: "the disk is full",
        .incompatible: "a database in the file is not what its name says (a value where a database should be, or other flags): the file is damaged or was written by another program",
        .versionMismatch: "the file was written by an incompatible version of LMDB",
        .panic: "an earlier fatal error left the environment unusable",
        .transactionFull: "the transaction changed more pages than LMDB allows in one",
        .cursorFull: "the database's B-tree is deeper than LMDB can walk; the file is probably damaged",
        .pageFull: "a page of the file has no room left; the file is probably damaged",
        .mapResized: "another process grew the file's memory map",
        .badReaderSlot: "a read transaction's reader slot was misused",
        .badDatabase: "the database handle is not valid in this transaction",
    ]

    private static let remedies: [LMDBError.Code: String] = [
        .mapFull: "Raise Configuration.maximumMapSize or remove data",
        .databasesFull: "Raise Configuration.maxDatabases",
        .readersFull: "Close read transactions sooner or raise Configuration.maxReaders",
        .corrupted: "Restore the store from a backup",
        .pageNotFound: "Restore the store from a backup",
        .panic: "Close and reopen the environment",
        .invalidFile: "Check the path: it must name an LMDB environment",
        .versionMismatch: "Open the file with the LMDB version that wrote it",
        .badValueSize: "Keep keys between 1 and 511 bytes",
        .nestedWrite: "Do all the writing in the one write { } block",
        .environmentClosed: "Open the environment again",
        .growthBlocked: "End the read transaction this thread holds before writing",
        .alreadyOpen: "Share the one Environment instance, or close it before opening again",
        .environmentFailed: "Open the environment again",
        .truncatedFile: "Restore the directory from a backup, or move it aside and rebuild it from another replica (import a full delta exported there)",
        .insideTransaction: "Make the call before or after the read { } or write { } block",
        .noSpace: "Free disk space and try again; nothing was written",
        .ioError: "Check the disk; the transaction was not committed",
        .permissionDenied: "Check the permissions of the store's directory and files",
        .incompatible: "Restore the directory from a backup, or move it aside and rebuild it from another replica (import a full delta exported there); check first that the path names this program's files",
        .transactionFull: "Split the work into smaller transactions",
        .cursorFull: "Restore the store from a backup",
        .pageFull: "Restore the store from a backup",
    ]
}
