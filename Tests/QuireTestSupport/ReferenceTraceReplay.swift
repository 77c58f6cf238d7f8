import QuireCore

extension EditingTrace {
    /// The per-agent replay ``EditingTrace/replay(progress:)`` used before it moved one
    /// document between versions, kept as the tests' reference: one ``ReplicatedText`` per
    /// agent, brought to exactly the version a transaction's parents name by merging the
    /// other agents' replicas before its patches apply as local edits. Work and memory grow
    /// with agents × document, so use it on small or few-agent traces.
    ///
    /// - Throws: ``TraceError`` as ``EditingTrace/replay(progress:)`` does.
    public func referenceReplay() throws -> ReplicatedText {
        guard isConcurrent else { return try replay() }
        var replicas: [Int: ReplicatedText] = [:]
        var versions: [VersionVector] = []
        versions.reserveCapacity(transactions.count)
        for (index, transaction) in transactions.enumerated() {
            var target = VersionVector()
            for parent in transaction.parents {
                guard parent >= 0, parent < index else {
                    throw TraceError.badParent(transaction: index, parent: parent)
                }
                target.formUnion(versions[parent])
            }
            let text = replicas[transaction.agent] ?? ReplicatedText(replica: Self.replica(ofAgent: transaction.agent))
            replicas[transaction.agent] = text
            for other in replicas.values where other !== text {
                let missing = other.operations(since: text.version, upTo: target)
                if !missing.isEmpty { try text.apply(missing) }
            }
            guard text.version == target else {
                throw TraceError.inconsistentHistory(transaction: index, expected: target, found: text.version)
            }
            for patch in transaction.patches {
                guard patch.deleteCount >= 0, patch.position >= 0,
                    patch.position + patch.deleteCount <= text.count
                else {
                    throw TraceError.patchOutOfRange(transaction: index, patch: patch, length: text.count)
                }
                if patch.deleteCount > 0 { try text.delete(patch.position..<patch.position + patch.deleteCount) }
                if !patch.text.isEmpty { try text.insert(patch.text, at: patch.position) }
            }
            versions.append(text.version)
        }
        let result = ReplicatedText(replica: ReplicaID(0))
        for agent in replicas.keys.sorted() {
            if let replica = replicas[agent] { result.merge(replica) }
        }
        return result
    }
}
