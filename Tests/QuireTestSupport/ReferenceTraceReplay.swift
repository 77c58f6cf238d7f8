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

/// Every operation of `text`'s history one character at a time: (id, left origin or
/// deleted target, right parent), so two histories compare whatever their runs.
public func characterOperations(_ text: ReplicatedText) -> Set<String> {
    var result = Set<String>()
    for operation in text.operations(since: VersionVector()) {
        switch operation {
        case .insert(let insertion):
            for k in 0..<insertion.length {
                let left = k == 0 ? insertion.originLeft.map { "\($0)" } ?? "start" : "\(insertion.id.advanced(by: UInt64(k - 1)))"
                result.insert("insert \(insertion.id.advanced(by: UInt64(k))) after \(left) before \(insertion.rightParent.map { "\($0)" } ?? "end")")
            }
        case .delete(let deletion):
            for k in 0..<deletion.length {
                let target = deletion.isBackward ? deletion.target.counter - UInt64(k) : deletion.target.counter + UInt64(k)
                result.insert("delete \(deletion.id.advanced(by: UInt64(k))) of \(deletion.target.replica):\(target)")
            }
        }
    }
    return result
}
