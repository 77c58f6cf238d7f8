#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The check of `data.mdb` against its own meta pages, made before LMDB maps the file.
///
/// LMDB maps the whole file and trusts its meta pages: a file shorter than the pages the
/// newest meta page names (cut short by a failed copy, a full disk during a restore,
/// `truncate`) opens fine and then kills the process with `SIGBUS` at the first read of a
/// missing page. This check reads the two meta pages with plain file I/O and refuses such
/// a file with ``LMDBError/Code/truncatedFile`` instead.
///
/// The layout read here is liblmdb 0.9's on a 64-bit host, in native byte order: each
/// meta page starts with a 16-byte page header (page number, pad, flags, bounds), then
/// `MDB_meta`: `mm_magic` (`0xBEEFC0DE`), `mm_version`, `mm_address`, `mm_mapsize`, two
/// 48-byte `MDB_db` records (the page size is the first one's `md_pad`), `mm_last_pg`,
/// `mm_txnid`. LMDB uses the meta page with the larger `mm_txnid`.
///
/// The file need not reach `mm_last_pg`: pages a transaction allocated and freed again
/// ("loose" pages) are never written, so a commit whose last pages were loose leaves the
/// file shorter than `mm_last_pg` says, and the store is sound. What a commit always
/// writes are the root pages of its two B-trees (`md_root` of each `MDB_db`): a file
/// must reach those.
enum DataFileCheck {
    /// The page header before `MDB_meta` (`PAGEHDRSZ`).
    static let pageHeaderSize = 16
    /// `MDB_MAGIC`.
    static let magic: UInt32 = 0xBEEF_C0DE
    /// Offsets inside `MDB_meta`.
    static let pageSizeOffset = 24, transactionIDOffset = 128
    /// Offsets of `md_root` of the free-page and main B-trees inside `MDB_meta`.
    static let rootOffsets = [24 + 40, 24 + 48 + 40]
    /// `P_INVALID`: the root of an empty B-tree.
    static let noPage = UInt64.max
    /// The bytes of a meta page this check reads.
    static let metaBytes = pageHeaderSize + transactionIDOffset + 8

    /// One meta page's facts.
    struct Meta: Equatable {
        var pageSize: Int
        /// The highest root page of the two B-trees (`noPage` when both are empty).
        var lastRoot: UInt64
        var transactionID: UInt64
    }

    /// What the check found.
    enum Outcome: Equatable {
        /// No file or an empty one (LMDB creates a new environment), or one whose meta
        /// pages are not LMDB's (LMDB's own checks name the problem).
        case notChecked
        /// The file holds the root pages its newest meta page names.
        case complete(size: Int, required: Int)
        /// The file ends before a root page its newest meta page names.
        case truncated(size: Int, required: Int)
    }

    /// Checks the data file at `path` (a `data.mdb`).
    ///
    /// - Throws: ``LMDBError`` for a file that exists but cannot be opened or read.
    static func inspect(_ path: String) throws -> Outcome {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return .notChecked }
            throw LMDBError(.init(rawValue: errno), operation: .openEnvironment, context: path)
        }
        defer { _ = close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw LMDBError(.init(rawValue: errno), operation: .openEnvironment, context: path)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG, status.st_size > 0,
            let first = try readMeta(descriptor, at: 0, path: path)
        else { return .notChecked }
        // LMDB reads the second meta page at the first page's page size.
        guard first.pageSize >= metaBytes, first.pageSize <= 1 << 16 else { return .notChecked }
        let pageSize = first.pageSize
        var newest = first
        if let second = try readMeta(descriptor, at: pageSize, path: path) {
            if second.transactionID > first.transactionID { newest = second }
        } else if status.st_size >= 2 * pageSize {
            return .notChecked  // bytes there, but not a meta page: LMDB's checks name it
        }
        // The size is taken after the meta pages: another process may commit meanwhile,
        // and LMDB writes a transaction's pages (growing the file) before its meta page,
        // so a size read later covers every meta page read before it. Read first, a size
        // from before such a commit would make a complete file look truncated.
        guard fstat(descriptor, &status) == 0 else {
            throw LMDBError(.init(rawValue: errno), operation: .openEnvironment, context: path)
        }
        let size = Int(status.st_size)
        var required = 2 * pageSize
        if newest.lastRoot != noPage {
            let (pages, overflow) = newest.lastRoot.addingReportingOverflow(1)
            let (bytes, tooLarge) = pages.multipliedReportingOverflow(by: UInt64(pageSize))
            guard !overflow, !tooLarge, bytes <= UInt64(Int.max) else { return .notChecked }
            required = max(Int(bytes), required)
        }
        return size < required ? .truncated(size: size, required: required) : .complete(size: size, required: required)
    }

    /// Throws ``LMDBError/Code/truncatedFile`` when the data file in the environment
    /// directory `directory` is shorter than its meta pages say.
    static func requireComplete(directory: String) throws {
        let path = directory.hasSuffix("/") ? directory + "data.mdb" : directory + "/data.mdb"
        guard case .truncated(let size, let required) = try inspect(path) else { return }
        throw LMDBError(
            .truncatedFile, operation: .openEnvironment, context: path,
            detail: "the store file is truncated: it has \(size) bytes, but its last committed transaction "
                + "needs at least \(required); the missing pages cannot be recovered from this file")
    }

    /// The meta page at `offset`, or `nil` when the bytes there are not one.
    private static func readMeta(_ descriptor: Int32, at offset: Int, path: String) throws -> Meta? {
        var buffer = [UInt8](repeating: 0, count: metaBytes)
        var filled = 0
        while filled < metaBytes {
            let count = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + filled, metaBytes - filled, off_t(offset + filled))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw LMDBError(.init(rawValue: errno), operation: .openEnvironment, context: path)
            }
            if count == 0 { return nil }
            filled += count
        }
        func load<T: FixedWidthInteger>(_ type: T.Type, _ at: Int) -> T {
            buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: pageHeaderSize + at, as: T.self) }
        }
        guard load(UInt32.self, 0) == magic else { return nil }
        let roots = rootOffsets.map { load(UInt64.self, $0) }.filter { $0 != noPage }
        return Meta(
            pageSize: Int(load(UInt32.self, pageSizeOffset)), lastRoot: roots.max() ?? noPage,
            transactionID: load(UInt64.self, transactionIDOffset))
    }
}
