import QuireCore

/// Change IDs in order, kept as ranges of one replica's consecutive counters: the
/// changes a merge applied (``MergeReport/applied``) or a commit holds
/// (``StoreEvent/changes``).
///
/// A keystroke history is one change per keystroke, some 260,000 for a paper, but about
/// 10,000 runs: listed one by one, its IDs took 4 MB and a tenth of the import that made
/// them. Here a run of changes is one range, and the list reads like an array:
///
/// ```swift
/// let report = try store.importDelta(file)
/// print(report.applied.count)                       // 259,778
/// for id in report.applied where id.replica == phone { … }
/// if report.applied == [first.id, second.id] { … }  // compares with an array
/// ```
///
/// Appending the next counter of the last ID's replica extends its range, so a list has
/// one form whatever way it was built, and two lists are equal when their IDs are.
/// Indexing is O(log *r*) for *r* ranges; iterating is O(1) per ID.
public struct ChangeIDs: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// IDs `counters` of `replica`; `start` is the position of the first of them.
    fileprivate struct Range: Hashable, Sendable {
        var replica: ReplicaID
        var counters: Swift.Range<UInt64>
        var start: Int
    }

    private var ranges: [Range] = []

    /// An empty list.
    public init() {}

    /// The IDs of `ids`, in their order.
    public init(_ ids: some Sequence<ChangeID>) {
        for id in ids { append(id) }
    }

    /// The IDs listed, in their order: `let none: ChangeIDs = []`.
    public init(arrayLiteral ids: ChangeID...) { self.init(ids) }

    /// The IDs `counters` of `replica`, in counter order.
    public init(replica: ReplicaID, counters: Swift.Range<UInt64>) {
        append(replica: replica, counters: counters)
    }

    /// The position of the first ID: always 0.
    public var startIndex: Int { 0 }
    /// The position after the last ID: the number of IDs.
    public var endIndex: Int { ranges.last.map { $0.start + Int($0.counters.count) } ?? 0 }

    /// The ID at `position`. O(log *r*) for *r* ranges.
    public subscript(position: Int) -> ChangeID {
        precondition(position >= 0 && position < endIndex, "ChangeIDs index \(position) out of range 0..<\(endIndex)")
        var low = 0, high = ranges.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if ranges[middle].start <= position { low = middle } else { high = middle - 1 }
        }
        let range = ranges[low]
        return ChangeID(replica: range.replica, counter: range.counters.lowerBound + UInt64(position - range.start))
    }

    /// Iterates range by range, O(1) per ID.
    public struct Iterator: IteratorProtocol {
        fileprivate let ranges: [Range]
        fileprivate var range = 0
        fileprivate var counter: UInt64 = 0

        /// The next ID, or `nil` after the last.
        public mutating func next() -> ChangeID? {
            while range < ranges.count {
                let current = ranges[range]
                if counter < current.counters.lowerBound { counter = current.counters.lowerBound }
                if counter < current.counters.upperBound {
                    defer { counter += 1 }
                    return ChangeID(replica: current.replica, counter: counter)
                }
                range += 1
                counter = 0
            }
            return nil
        }
    }

    /// An iterator over the IDs, in order.
    public func makeIterator() -> Iterator { Iterator(ranges: ranges) }

    /// Appends `id`, extending the last range when it is that replica's next counter.
    public mutating func append(_ id: ChangeID) {
        append(replica: id.replica, counters: id.counter..<(id.counter + 1))
    }

    /// Appends the IDs `counters` of `replica`, in counter order: O(1).
    public mutating func append(replica: ReplicaID, counters: Swift.Range<UInt64>) {
        guard !counters.isEmpty else { return }
        if let last = ranges.last, last.replica == replica, last.counters.upperBound == counters.lowerBound {
            ranges[ranges.count - 1].counters = last.counters.lowerBound..<counters.upperBound
        } else {
            ranges.append(Range(replica: replica, counters: counters, start: endIndex))
        }
    }

    /// Appends the IDs of `other`, in order.
    public mutating func append(contentsOf other: ChangeIDs) {
        for range in other.ranges { append(replica: range.replica, counters: range.counters) }
    }

    /// Appends `ids`, in order.
    public mutating func append(contentsOf ids: some Sequence<ChangeID>) {
        for id in ids { append(id) }
    }

    /// Appends the IDs of `other` to `list`, in order.
    public static func += (list: inout ChangeIDs, other: ChangeIDs) { list.append(contentsOf: other) }

    /// Appends `ids` to `list`, in order.
    public static func += (list: inout ChangeIDs, ids: [ChangeID]) { list.append(contentsOf: ids) }

    /// Whether the list holds exactly `ids`, in order.
    public static func == (list: ChangeIDs, ids: [ChangeID]) -> Bool { list.elementsEqual(ids) }

    /// Whether the list holds exactly `ids`, in order.
    public static func == (ids: [ChangeID], list: ChangeIDs) -> Bool { list.elementsEqual(ids) }

    /// The IDs, as `[a@0, a@1, b@7]`; long lists are cut after ten.
    public var description: String {
        let shown = prefix(10).map(String.init(describing:)).joined(separator: ", ")
        return count > 10 ? "[\(shown), … \(count - 10) more]" : "[\(shown)]"
    }
}
