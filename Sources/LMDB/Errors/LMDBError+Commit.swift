extension LMDBError {
    /// Below this many free bytes on the store's disk, a commit that failed with `EIO` is
    /// reported as a full disk (``Code/noSpace``): LMDB turns a short `pwrite` — what a
    /// file system that ran out of space mid-write returns — into `EIO`, and a commit
    /// writes at most a few megabytes in the common case.
    public static let diskFullThreshold = 16 << 20

    /// The error for a failed `mdb_txn_commit` of the environment in `path`.
    ///
    /// An `EIO` with less than ``diskFullThreshold`` bytes free on the disk is reported as
    /// ``Code/noSpace`` ("the disk is full", free disk space and try again), naming the
    /// free space; any other code, or `EIO` on a disk with room, is reported as it is.
    ///
    /// - Parameters:
    ///   - rc: The commit's return code (non-zero).
    ///   - path: The environment's directory.
    ///   - freeSpace: The bytes still free on its disk, `nil` when unknown.
    /// - Returns: The error to throw.
    static func failedCommit(_ rc: Int32, path: String, freeSpace: Int?) -> LMDBError {
        let code = Code(rawValue: rc)
        if code == .ioError, let freeSpace, freeSpace < diskFullThreshold {
            return LMDBError(
                .noSpace, operation: .commit, context: path,
                detail: "the disk is full (\(Self.describe(bytes: freeSpace)) free; LMDB reported the short write as EIO)")
        }
        return LMDBError(code, operation: .commit, context: path)
    }

    /// `12 KiB`, `3.4 MiB`: a byte count as a person reads it.
    private static func describe(bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        if bytes < 1 << 20 { return "\(bytes / 1024) KiB" }
        let tenths = bytes * 10 / (1 << 20)
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
