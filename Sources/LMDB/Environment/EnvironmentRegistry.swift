#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Identifies one open ``Environment`` instance; database handles carry it so that a
/// handle is only used with the environment that opened it.
struct EnvironmentIdentity: Hashable, Sendable {
    let value: UInt64

    private static let next = Atomic<UInt64>(1)

    /// A value never handed out before in this process.
    static func unique() -> EnvironmentIdentity {
        EnvironmentIdentity(value: next.add(1, ordering: .relaxed).oldValue)
    }
}

/// The environment directories this process has open, by device and inode.
///
/// LMDB's locks are per process: a second handle on the same file in one process
/// believes it is alone, resets the reader table under live readers, and when closed
/// drops the whole process's locks. The registry refuses that second handle.
enum EnvironmentRegistry {
    struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static let open = Mutex<Set<FileIdentity>>([])

    /// The identity of the directory at `path`, or `nil` if it cannot be stat'ed.
    static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Records `file` as open; returns `false` if it already was.
    static func register(_ file: FileIdentity) -> Bool {
        open.withLock { $0.insert(file).inserted }
    }

    /// Forgets `file`.
    static func unregister(_ file: FileIdentity) {
        _ = open.withLock { $0.remove(file) }
    }
}
