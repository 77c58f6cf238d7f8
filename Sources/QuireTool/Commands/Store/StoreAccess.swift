#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Quire

/// How a command opens its store: read-write only when it changes the store, read-only
/// otherwise, and without LMDB's lock file when the store cannot be written at all.
///
/// | the store's directory | a command that only reads | a command that writes |
/// |---|---|---|
/// | writable | `.readOnly` (`MDB_RDONLY`) | `.readWrite` |
/// | on a read-only file system, or `QUIRE_READ_ONLY=1` | `.readOnlyWithoutLock`, and says so | refused: ``ReadOnlyStore`` |
/// | not writable by this user (its lock file neither) | `.readOnlyWithoutLock`, and says so | refused: ``ReadOnlyStore`` |
/// | not writable, but its lock file is | `.readOnly`, and says so | refused: ``ReadOnlyStore`` |
///
/// `QUIRE_READ_ONLY=1` makes the tool treat the store as on read-only media whatever the
/// file system says — for a store that must not be touched, and for testing as root (root
/// may write files whatever their permission bits say, but not a read-only mount).
enum StoreAccess {
    /// The environment variable that forces read-only opening.
    static let environmentVariable = "QUIRE_READ_ONLY"

    /// The decision for one command.
    struct Decision: Equatable {
        /// How to open the store.
        var access: Store.Options.Access
        /// Why the store is opened read-only although the command would not need it
        /// to be, for a note on standard error; `nil` when there is nothing to say.
        var note: String?
    }

    /// Decides how to open the store in `directory`.
    ///
    /// - Parameters:
    ///   - directory: The store's directory (it holds `data.mdb`).
    ///   - writes: Whether the command changes the store.
    ///   - environment: The tool's environment variables, for ``environmentVariable``.
    /// - Throws: ``ReadOnlyStore`` when `writes` and the store cannot be written.
    // Never inlined: its typed throw, inlined into a command's async `run`, crashed Swift
    // 6.3.1's release build (signal 11 in LLVM's coroutine splitting, swifterror).
    @inline(never)
    static func decide(directory: String, writes: Bool, environment: [String: String]) throws(ReadOnlyStore) -> Decision {
        if let reason = readOnlyMedium(directory, environment: environment) {
            if writes { throw ReadOnlyStore(directory: directory, reason: reason) }
            return Decision(
                access: .readOnlyWithoutLock,
                note: "\(directory) is \(reason): opened read-only, without LMDB's lock file")
        }
        let data = directory + "/data.mdb", lock = directory + "/lock.mdb"
        let directoryWritable = access(directory, W_OK) == 0
        let lockUsable = exists(lock) ? access(lock, W_OK) == 0 : directoryWritable
        if directoryWritable && access(data, W_OK) == 0 && lockUsable {
            return Decision(access: writes ? .readWrite : .readOnly, note: nil)
        }
        let reason = "not writable by this user (\(String(cString: strerror(EACCES))))"
        if writes { throw ReadOnlyStore(directory: directory, reason: reason) }
        if lockUsable {
            return Decision(access: .readOnly, note: "\(directory) is \(reason): opened read-only")
        }
        return Decision(
            access: .readOnlyWithoutLock,
            note: "\(directory) is \(reason), its lock file too: opened read-only without LMDB's lock file, "
                + "so a process writing the store meanwhile could make this read fail")
    }

    /// Why the store cannot be written at all, or `nil` when it could be.
    private static func readOnlyMedium(_ directory: String, environment: [String: String]) -> String? {
        if let forced = environment[environmentVariable], ["1", "yes", "true"].contains(forced.lowercased()) {
            return "read-only (\(environmentVariable)=\(forced))"
        }
        var info = statvfs()
        if statvfs(directory, &info) == 0, info.f_flag & UInt(ST_RDONLY) != 0 {
            return "on a read-only file system"
        }
        return nil
    }

    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}

/// A command that changes the store, pointed at a store that cannot be written.
struct ReadOnlyStore: Error, CustomStringConvertible {
    var directory: String
    var reason: String

    var description: String {
        "the store at \(directory) is \(reason), and this command changes it; commands that only read it "
            + "(status, tree, cat, log, export, verify, …) work. To change it, copy the directory "
            + "somewhere writable (cp -a) and use the copy — as a replacement, never as a second replica beside it"
    }
}
