/// A range of a text that two sides of a merge both changed: what
/// ``ReplicatedText/overlappingEdits(_:_:)`` finds.
public struct TextOverlap: Hashable, Sendable {
    /// The range in the text, in Unicode scalars.
    public var range: Range<Int>
    /// The same range in UTF-16 code units (for `NSRange`).
    public var utf16Range: Range<Int>

    /// Creates an overlap.
    public init(range: Range<Int>, utf16Range: Range<Int>) {
        self.range = range
        self.utf16Range = utf16Range
    }
}

extension ReplicatedText {
    /// The ranges of the current text where edits of two sides meet: the passages both
    /// `first` and `second` changed.
    ///
    /// An operation *changes* the items it inserts and the items it deletes. In the
    /// document's item sequence — visible characters, and the deleted ones either side
    /// changed (older tombstones take no part) — the changed items form maximal runs with
    /// no unchanged visible character inside. A run is an overlap when it holds items
    /// changed by both sides and at least one visible character; its range runs from its
    /// first to its last visible character. So two rewrites of one sentence, two inserts
    /// at one place, or an insert where the other side deleted overlap; edits with an
    /// unchanged character between them do not, and neither do two deletions of the same
    /// characters (nothing of either is left to review).
    ///
    /// ```swift
    /// laptop.apply(phoneOperations)
    /// laptop.overlappingEdits(laptopOperationsSinceCommon, phoneOperations)   // [TextOverlap]
    /// ```
    ///
    /// - Parameters:
    ///   - first: One side's operations since the common version (applied here).
    ///   - second: The other side's (applied here).
    /// - Returns: The overlaps in document order; operations on items this text lacks are
    ///   ignored.
    /// - Complexity: O(*r* + *k* log *k*) for *r* runs in the text and *k* operations.
    public func overlappingEdits(_ first: [TextOperation], _ second: [TextOperation]) -> [TextOverlap] {
        let a = ChangedItems(first), b = ChangedItems(second)
        guard !a.isEmpty, !b.isEmpty else { return [] }
        var result: [TextOverlap] = []
        var offset = 0, offset16 = 0
        var open: (start: Int, start16: Int, a: Bool, b: Bool)?
        func close() {
            if let group = open, group.a, group.b, offset > group.start {
                result.append(TextOverlap(range: group.start..<offset, utf16Range: group.start16..<offset16))
            }
            open = nil
        }
        tree.forEachRun { run in
            let replica = tree.replicas[Int(run.agent)]
            let items = run.counter..<(run.counter + UInt64(run.length))
            var cuts = Set([items.lowerBound, items.upperBound])
            a.addBoundaries(of: replica, within: items, to: &cuts)
            b.addBoundaries(of: replica, within: items, to: &cuts)
            let points = cuts.sorted()
            for (lower, upper) in zip(points, points.dropFirst()) {
                let inA = a.contains(replica, lower), inB = b.contains(replica, lower)
                let scalars = Int(upper - lower)
                let units = run.isDeleted ? 0 : tree.unitCount(in: run, ofFirst: Int(upper - run.counter), unit: .utf16)
                    - tree.unitCount(in: run, ofFirst: Int(lower - run.counter), unit: .utf16)
                if !inA && !inB {
                    guard !run.isDeleted else { continue }  // an older tombstone: no width, no part
                    close()
                } else {
                    if open == nil { open = (offset, offset16, false, false) }
                    open!.a = open!.a || inA
                    open!.b = open!.b || inB
                }
                if !run.isDeleted {
                    offset += scalars
                    offset16 += units
                }
            }
        }
        close()
        return result
    }
}

/// The items a list of operations changed (inserted or deleted), per replica, as sorted
/// disjoint counter ranges.
private struct ChangedItems {
    var ranges: [ReplicaID: [Range<UInt64>]] = [:]

    init(_ operations: [TextOperation]) {
        var raw: [ReplicaID: [Range<UInt64>]] = [:]
        for operation in operations {
            switch operation {
            case .insert(let insertion):
                raw[insertion.id.replica, default: []].append(insertion.id.counter..<(insertion.id.counter + UInt64(insertion.length)))
            case .delete(let deletion):
                let (first, count) = deletion.targetRange
                raw[first.replica, default: []].append(first.counter..<(first.counter + UInt64(count)))
            }
        }
        for (replica, list) in raw {
            var merged: [Range<UInt64>] = []
            for range in list.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty {
                if let last = merged.last, range.lowerBound <= last.upperBound {
                    merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
                } else {
                    merged.append(range)
                }
            }
            ranges[replica] = merged
        }
    }

    var isEmpty: Bool { ranges.isEmpty }

    /// The index of the first range of `list` that ends after `counter`.
    private static func firstEnding(after counter: UInt64, in list: [Range<UInt64>]) -> Int {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].upperBound <= counter { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func contains(_ replica: ReplicaID, _ counter: UInt64) -> Bool {
        guard let list = ranges[replica] else { return false }
        let index = Self.firstEnding(after: counter, in: list)
        return index < list.count && list[index].contains(counter)
    }

    /// Adds the bounds of the ranges of `replica` that fall inside `items` to `cuts`.
    func addBoundaries(of replica: ReplicaID, within items: Range<UInt64>, to cuts: inout Set<UInt64>) {
        guard let list = ranges[replica] else { return }
        var index = Self.firstEnding(after: items.lowerBound, in: list)
        while index < list.count, list[index].lowerBound < items.upperBound {
            for bound in [list[index].lowerBound, list[index].upperBound] where items.contains(bound) { cuts.insert(bound) }
            index += 1
        }
    }
}
