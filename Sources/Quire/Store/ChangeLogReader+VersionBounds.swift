import QuireCore

extension ChangeLogReader {
    /// The replicas whose changes `version` counts, in replica order, each with its next
    /// counter there; refuses a version this store has not reached.
    ///
    /// - Throws: ``StoreError/versionBeyondStore(replica:counter:known:)`` naming the first
    ///   replica the version counts further than this store.
    func replicasReached(by version: VersionVector) throws(StoreError) -> [(replica: ReplicaID, counter: UInt64)] {
        let replicas = version.counters.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        for (replica, counter) in replicas where counter > meta.version[replica] {
            throw .versionBeyondStore(replica: replica, counter: counter, known: meta.version[replica])
        }
        return replicas.map { (replica: $0.key, counter: $0.value) }
    }
}
