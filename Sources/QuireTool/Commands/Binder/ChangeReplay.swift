import Foundation
import Quire
import QuireCore

/// The history of a store, replayed change by change into a scratch store in a temporary
/// directory, so each change's effect on one record can be read as a before and after.
///
/// The store API does not (yet) say which records a change touched; replaying answers it
/// from the public API: ``Store/apply(_:)`` reports the records, texts and hierarchy
/// nodes each change touched. Costs one scratch-store commit per change, so it suits
/// the tool's `log` and `restore`, not an app's hot path.
struct ChangeReplay {
    /// One change applied to the scratch store.
    struct Step {
        var change: Change
        var report: MergeReport
    }

    /// The scratch store, as of the last step (read it in `observe`).
    private let scratch: Store
    private let directory: String

    /// Replays `changes` in a causal order (each after its replica's earlier changes and
    /// its dependencies; ties by Lamport time and replica) and calls `observe` after each.
    ///
    /// - Returns: How many changes could not be replayed because changes they depend on
    ///   are missing from the log.
    /// - Throws: What the scratch store or `observe` throws.
    @discardableResult
    static func replay(_ changes: [Change], observe: (Step, Store) throws -> Void) throws -> Int {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("quire-replay-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = Store.Options()
        options.durability = .noSync
        let scratch = try Store(directory: directory, options: options)
        defer { try? scratch.close() }

        var queues: [ReplicaID: ArraySlice<Change>] = [:]
        for (replica, list) in Dictionary(grouping: changes, by: \.id.replica) {
            queues[replica] = list.sorted { $0.id.counter < $1.id.counter }[...]
        }
        var version = VersionVector()
        var remaining = changes.count
        while remaining > 0 {
            let ready = queues.values.compactMap(\.first).filter { change in
                version[change.id.replica] == change.id.counter
                    && change.dependencies.counters.allSatisfy { version[$0.key] >= $0.value }
            }
            guard let next = ready.min(by: { ($0.lamport, $0.id.replica) < ($1.lamport, $1.id.replica) }) else { break }
            queues[next.id.replica]!.removeFirst()
            remaining -= 1
            let report = try scratch.apply([next])
            version.formUnion(VersionVector([next.id.replica: next.endCounter]))
            try observe(Step(change: next, report: report), scratch)
        }
        return remaining
    }
}
