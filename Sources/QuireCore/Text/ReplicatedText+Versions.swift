/// The text at any version of its history.
///
/// A *text version* is a ``VersionVector`` in this text's own operation counters (what
/// ``ReplicatedText/version`` and ``ReplicatedText/operations(since:upTo:)`` use). A
/// version can be shown when it is causally closed: every operation in it has its left
/// origin, its right parent and the characters it deletes in it too — as every version a
/// replica ever was at has.
extension ReplicatedText {
    /// The text as a replica had it when it had exactly the operations of `version`.
    ///
    /// ```swift
    /// let draft = text.version
    /// try text.replace(0..<5, with: "Howdy")
    /// try text.string(at: draft)        // the text before the replace
    /// ```
    ///
    /// Read from the current runs, not replayed: FugueMax never reorders items once they
    /// are integrated, so the text at `version` is the current item sequence filtered to
    /// the items whose insertion the version holds and none of whose deletions it holds.
    ///
    /// - Parameter version: A causally closed version within ``version``.
    /// - Returns: The text at that version.
    /// - Throws: ``TextError/versionBeyondHistory(replica:counter:known:)`` when the version
    ///   holds operations this text has not integrated,
    ///   ``TextError/versionNotCausallyClosed(operation:missing:)`` when it holds an
    ///   operation without one it depends on.
    /// - Complexity: O(*e* + *d* log *d* + *r* + *m*) for *e* log runs in the version, *d* of
    ///   them deletions, *r* runs in the current text and *m* characters returned; no
    ///   history is replayed. The current version is O(*m*).
    public func string(at version: VersionVector) throws(TextError) -> String {
        if version == self.version { return string }
        let visibility = try visibility(at: version)
        var utf8: [UInt8] = []
        utf8.reserveCapacity(tree.counts.utf8)
        tree.forEachRun { run in
            var walker = UTF8Walker(tree.bytes(of: run), isASCII: run.isASCII)
            visibility.forEachVisible(agent: run.agent, counters: run.counter..<run.counter + UInt64(run.length)) { span in
                let start = walker.index(ofScalar: Int(span.lowerBound - run.counter))
                let end = walker.index(ofScalar: Int(span.upperBound - run.counter))
                utf8.append(contentsOf: walker.utf8[start..<end])
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// A new replica, editing as `replica`, that holds exactly the operations of `version`:
    /// the text as it was then, to read, edit or merge like any other.
    ///
    /// ```swift
    /// let then = try text.fork(at: draft, as: ReplicaID(9))
    /// then.string                      // == try text.string(at: draft)
    /// ```
    ///
    /// - Parameters:
    ///   - version: A causally closed version within ``version``.
    ///   - replica: The replica the copy edits as.
    /// - Returns: The copy.
    /// - Throws: As ``string(at:)`` does, for a version that cannot be shown.
    /// - Complexity: O(history in `version`): its operations are replayed. Use
    ///   ``string(at:)`` to read a version.
    public func fork(at version: VersionVector, as replica: ReplicaID) throws(TextError) -> ReplicatedText {
        _ = try agentLimits(of: version)
        let copy = ReplicatedText(replica: replica)
        // Causally closed: every operation finds what it depends on.
        try copy.apply(operations(since: VersionVector(), upTo: version))
        return copy
    }

    /// The latest causally closed version that lies within both `version` and this
    /// text's ``version``: each replica's counter lowered, where needed, to the first
    /// operation whose dependencies fall outside.
    ///
    /// - Complexity: O(*e*) per pass over the *e* log runs, passes until nothing is cut.
    package func causallyClosedVersion(within version: VersionVector) -> VersionVector {
        var limits = tree.replicas.indices.map { min(version[tree.replicas[$0]], nextCounter[$0]) }
        let logs = self.logs
        var changed = true
        while changed {
            changed = false
            for (agent, entries) in logs.enumerated() where agent < limits.count {
                for entry in entries {
                    guard entry.counter < limits[agent] else { break }
                    if let (operation, _) = firstMissingDependency(of: entry, limits: limits, agent: agent) {
                        limits[agent] = operation
                        changed = true
                        break
                    }
                }
            }
        }
        return versionVector(limits: limits)
    }

    /// The visibility of the items at `version`, which must be one this text can show.
    func visibility(at version: VersionVector) throws(TextError) -> VersionVisibility {
        VersionVisibility(limits: try agentLimits(of: version), logs: logs)
    }

    /// Agent → `version`'s counter, once the version is checked to lie within this text's
    /// and to be causally closed.
    func agentLimits(of version: VersionVector) throws(TextError) -> [UInt64] {
        var limits = [UInt64](repeating: 0, count: tree.replicas.count)
        for (replica, counter) in version.counters {
            let known = nextCounter(of: replica)
            guard counter <= known, let agent = tree.agentNumber(of: replica) else {
                throw TextError.versionBeyondHistory(replica: replica, counter: counter, known: known)
            }
            limits[Int(agent)] = counter
        }
        for (agent, entries) in logs.enumerated() where agent < limits.count {
            for entry in entries {
                guard entry.counter < limits[agent] else { break }
                if let (operation, missing) = firstMissingDependency(of: entry, limits: limits, agent: agent) {
                    throw TextError.versionNotCausallyClosed(
                        operation: tree.id(ItemRef(agent: Int32(agent), counter: operation)), missing: tree.id(missing))
                }
            }
        }
        return limits
    }

    /// The first operation of `entry` (of `agent`'s log), within `limits`, that depends on
    /// an item outside `limits`, with that item; `nil` when there is none.
    private func firstMissingDependency(of entry: LogEntry, limits: [UInt64], agent: Int) -> (UInt64, ItemRef)? {
        func isOutside(_ item: ItemRef) -> Bool { !item.isNone && item.counter >= limits[Int(item.agent)] }
        switch entry {
        case .insert(let record):
            // Every character after the first follows its predecessor, in the same run.
            if isOutside(record.originLeft) { return (record.counter, record.originLeft) }
            if isOutside(record.rightParent) { return (record.counter, record.rightParent) }
            return nil
        case .delete(let record):
            let taken = min(UInt64(record.length), limits[agent] - record.counter)
            let targetLimit = limits[Int(record.target.agent)]
            if record.isBackward {
                // Targets fall from `target`: only the first can lie past the limit first.
                return record.target.counter >= targetLimit ? (record.counter, record.target) : nil
            }
            guard record.target.counter + taken > targetLimit else { return nil }
            let first = targetLimit > record.target.counter ? targetLimit - record.target.counter : 0
            return (record.counter + first, record.target.advanced(by: Int(first)))
        }
    }

    /// The version whose counters are `limits` (agent → next counter).
    func versionVector(limits: [UInt64]) -> VersionVector {
        var counters: [ReplicaID: UInt64] = [:]
        for (agent, limit) in limits.enumerated() where limit > 0 { counters[tree.replicas[agent]] = limit }
        return VersionVector(counters)
    }
}

/// Walks a run's UTF-8 forward from scalar offsets to byte indexes, never rescanning what
/// it has passed: the stretches of one run are asked for in order.
struct UTF8Walker {
    let utf8: ArraySlice<UInt8>
    private let isASCII: Bool
    private var scalar = 0
    private var byte: Int

    init(_ utf8: ArraySlice<UInt8>, isASCII: Bool) {
        self.utf8 = utf8
        self.isASCII = isASCII
        byte = utf8.startIndex
    }

    /// The index in ``utf8`` of the scalar at `offset`, which is no smaller than the last
    /// one asked for.
    @inline(__always)
    mutating func index(ofScalar offset: Int) -> Int {
        if isASCII { return utf8.startIndex + offset }
        while scalar < offset {
            byte += UTF8Scan.sequenceLength(leading: utf8[byte])
            scalar += 1
        }
        return byte
    }
}
