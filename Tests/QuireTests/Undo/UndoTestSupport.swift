import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Synchronization

struct UndoNote: Record, Equatable {
    static let typeName = "undo-note"
    var name: String
    var tag: String?
}

/// A clock the test advances by hand, for undo grouping without sleeps.
final class ManualClock: Sendable {
    private let now = Mutex(ContinuousClock.now)

    func advance(by duration: Duration) { now.withLock { $0 += duration } }

    var grouping: UndoGrouping {
        UndoGrouping(window: .seconds(1)) { [self] in now.withLock { $0 } }
    }
}

/// A store in a fresh temporary directory, its undo grouping on `clock`.
final class UndoFixture {
    let directory: TemporaryDirectory
    let store: Store

    init(clock: ManualClock = ManualClock(), replica: UInt64? = nil) throws {
        directory = try TemporaryDirectory()
        var options = Store.Options()
        options.durability = .noSync
        options.undoGrouping = clock.grouping
        if let replica { options.replica = ReplicaID(rawValue: replica) }
        store = try Store(directory: directory.path, options: options)
    }

    deinit {
        try? store.close()
        directory.remove()
    }

    func string(_ text: TextID) throws -> String { try store.read { tx in try tx.string(of: text) } }
    @discardableResult func undo(in text: TextID? = nil) throws -> Bool {
        try store.write { tx in if let text { try tx.undo(in: text) } else { try tx.undo() } }
    }
    @discardableResult func redo(in text: TextID? = nil) throws -> Bool {
        try store.write { tx in if let text { try tx.redo(in: text) } else { try tx.redo() } }
    }
}
