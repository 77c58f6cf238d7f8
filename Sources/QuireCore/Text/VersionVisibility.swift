/// Which items of a ``RunTree`` were visible at one text version: an item is visible iff
/// its insertion is in the version and no deletion in the version removes it.
///
/// Items keep their relative order once integrated (FugueMax never reorders them), so the
/// text at a version is the current run tree read in order with this filter: no history
/// is replayed. Built from the logs in O(d log d) for the d deletion runs the version
/// holds.
struct VersionVisibility {
    /// Agent → the counter below which its operations are in the version.
    let limits: [UInt64]
    /// Agent → the counters of its items that the version's deletions remove, as sorted,
    /// disjoint, non-adjacent ranges.
    let deleted: [[Range<UInt64>]]

    /// The visibility at the version whose counters are `limits` (agent → next counter),
    /// given every agent's log.
    init(limits: [UInt64], logs: [[LogEntry]]) {
        self.limits = limits
        var deleted = [[Range<UInt64>]](repeating: [], count: limits.count)
        for (agent, entries) in logs.enumerated() where agent < limits.count {
            let limit = limits[agent]
            for entry in entries {
                guard entry.counter < limit else { break }
                guard case .delete(let record) = entry else { continue }
                let taken = min(UInt64(record.length), limit - record.counter)
                let first = record.isBackward ? record.target.counter - (taken - 1) : record.target.counter
                deleted[Int(record.target.agent)].append(first..<first + taken)
            }
        }
        self.deleted = deleted.map(Self.merged)
    }

    /// `ranges` sorted, with overlapping and adjacent ones joined.
    private static func merged(_ ranges: [Range<UInt64>]) -> [Range<UInt64>] {
        guard ranges.count > 1 else { return ranges }
        var result: [Range<UInt64>] = []
        result.reserveCapacity(ranges.count)
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                if range.upperBound > last.upperBound { result[result.count - 1] = last.lowerBound..<range.upperBound }
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// Calls `body` with each stretch of `agent`'s `counters` (items of one run) that is
    /// visible at the version, in order.
    @inline(__always)
    func forEachVisible(agent: Int32, counters: Range<UInt64>, _ body: (Range<UInt64>) -> Void) {
        let upper = min(counters.upperBound, limits[Int(agent)])
        var lower = counters.lowerBound
        guard lower < upper else { return }
        let ranges = deleted[Int(agent)]
        guard !ranges.isEmpty else { return body(lower..<upper) }
        // The first deleted range that ends after `lower`.
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound <= lower { low = middle + 1 } else { high = middle }
        }
        while low < ranges.count, ranges[low].lowerBound < upper {
            if ranges[low].lowerBound > lower { body(lower..<ranges[low].lowerBound) }
            lower = max(lower, ranges[low].upperBound)
            low += 1
        }
        if lower < upper { body(lower..<upper) }
    }
}
