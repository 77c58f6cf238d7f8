import Synchronization

/// Makes chosen `mdb_*` calls fail, so tests can exercise map-full, I/O-error and
/// failed-commit paths against a real environment.
///
/// Attach one to ``Environment/Configuration/faultInjector`` before opening:
///
/// ```swift
/// let faults = FaultInjector()
/// faults.fail(.commit, with: .ioError)          // the next commit fails with EIO
/// var configuration = Environment.Configuration()
/// configuration.faultInjector = faults
/// ```
///
/// Thread-safe. Each injected failure is used once, by the next matching call.
@_spi(Testing)
public final class FaultInjector: Sendable {
    /// The C calls a failure can be injected into.
    public enum Call: Hashable, Sendable {
        case openEnvironment, beginTransaction, commit, openDatabase
        /// `mdb_txn_renew` of a read transaction kept from an earlier read; when it fails
        /// the read begins a new transaction instead.
        case renewTransaction
        case get, put, delete, cursorGet, cursorDelete, setMapSize, copy, sync
    }

    private let pending = Mutex<[Call: [Int32]]>([:])
    private let counts = Mutex<[Call: Int]>([:])
    private let freeSpace = Mutex<Int?>(nil)

    /// Creates an injector with nothing scheduled.
    public init() {}

    /// Schedules the next `times` calls of `call` to fail with `code` without reaching LMDB.
    public func fail(_ call: Call, with code: LMDBError.Code, times: Int = 1) {
        pending.withLock { $0[call, default: []] += Array(repeating: code.rawValue, count: times) }
    }

    /// Makes the free-space probe report `bytes` free on the environment's disk (`nil`:
    /// ask the file system again), so tests can tell a full disk from a failing one when a
    /// commit fails with `EIO`.
    public func reportFreeSpace(_ bytes: Int?) {
        freeSpace.withLock { $0 = bytes }
    }

    /// The free space to report instead of asking the file system, if one is set.
    func injectedFreeSpace() -> Int? {
        freeSpace.withLock { $0 }
    }

    /// How many times `call` has been made through environments using this injector
    /// (including the ones that were made to fail).
    public func count(of call: Call) -> Int {
        counts.withLock { $0[call, default: 0] }
    }

    /// The failure to return for this call, if one is scheduled; records the call.
    func takeFailure(for call: Call) -> Int32? {
        counts.withLock { $0[call, default: 0] += 1 }
        return pending.withLock { table -> Int32? in
            guard var codes = table[call], !codes.isEmpty else { return nil }
            let code = codes.removeFirst()
            table[call] = codes
            return code
        }
    }
}
