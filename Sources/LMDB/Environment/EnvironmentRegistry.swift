#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Identifies one open ``Environment`` instance; database handles carry it so that a
/// handle is only used with the environment that opened it.
@usableFromInline
struct EnvironmentIdentity: Hashable, Sendable {
    @usableFromInline let value: UInt64

    private static let next = Atomic<UInt64>(1)

    /// A value never handed out before in this process.
    static func unique() -> EnvironmentIdentity {
        EnvironmentIdentity(value: next.add(1, ordering: .relaxed).oldValue)
    }
}

/// The environment files this process has open, by the device and inode of `data.mdb`.
///
/// LMDB's locks are per process: a second handle on the same file in one process
/// believes it is alone, resets the reader table under live readers, and when closed
/// drops the whole process's locks. The registry refuses that second handle.
///
/// It identifies the data file rather than the directory: an open environment keeps its
/// `data.mdb` open, so that inode cannot be reused by a new file even if the directory is
/// deleted and a new one created in its place.
enum EnvironmentRegistry {
    struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static let open = Mutex<Set<FileIdentity>>([])

    /// The identity of the file at `path`, or `nil` if it cannot be stat'ed.
    static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Runs `open` (which opens the environment in `directory`) unless this process already
    /// has it open, and records it. Opens are serialised, so two threads cannot both pass
    /// the check for one new environment.
    ///
    /// - Returns: What `open` returned, and the identity to pass to ``unregister(_:)``.
    /// - Throws: ``LMDBError/Code/alreadyOpen``, or what `open` throws.
    static func opening<R>(
        _ directory: String, _ open: () throws -> R
    ) throws -> (value: R, file: FileIdentity?) {
        let dataFile = directory + "/data.mdb"
        return try Self.open.withLock { files throws -> (value: R, file: FileIdentity?) in
            if let existing = identity(of: dataFile), files.contains(existing) {
                throw LMDBError(.alreadyOpen, operation: .openEnvironment, context: directory)
            }
            let value = try open()
            let file = identity(of: dataFile)
            if let file { files.insert(file) }
            return (value, file)
        }
    }

    /// Forgets `file`.
    static func unregister(_ file: FileIdentity) {
        _ = open.withLock { $0.remove(file) }
    }
}
