extension ReplicatedText {
    /// The edits that turn the text at `old` into the text at `new`.
    ///
    /// ```swift
    /// let diff = try text.diff(from: yesterday, to: text.version)
    /// diff.edits.first?.insertedText     // what was typed since, at its first place
    /// ```
    ///
    /// The versions need not be ordered: `old` may be later than `new`, or concurrent with
    /// it. Characters are compared by identity, not by value: a character deleted and
    /// typed again is a deletion and an insertion.
    ///
    /// - Parameters:
    ///   - old: A causally closed version within ``version``: the text the edits apply to.
    ///   - new: Another: the text they give.
    /// - Returns: The edits in document order (see ``TextDiff`` for applying them).
    /// - Throws: As ``string(at:)`` does, for a version that cannot be shown.
    /// - Complexity: O(*e* + *d* log *d* + *r* + *k*) for *e* log runs in the versions, *d*
    ///   of them deletions, *r* runs in the current text and *k* characters changed (plus
    ///   the scalars before them in runs that hold changes, counted for UTF-16).
    public func diff(from old: VersionVector, to new: VersionVector) throws(TextError) -> TextDiff {
        let before = try visibility(at: old)
        let after = old == new ? before : try visibility(at: new)
        var builder = DiffBuilder()
        // Reused for every run: no allocation per run.
        var inOld: [Range<UInt64>] = []
        var inNew: [Range<UInt64>] = []
        var points: [UInt64] = []
        tree.forEachRun { run in
            let counters = run.counter..<run.counter + UInt64(run.length)
            inOld.removeAll(keepingCapacity: true)
            inNew.removeAll(keepingCapacity: true)
            before.forEachVisible(agent: run.agent, counters: counters) { inOld.append($0) }
            after.forEachVisible(agent: run.agent, counters: counters) { inNew.append($0) }
            if inOld == inNew {
                // Unchanged: only its size matters.
                for range in inOld { builder.keep(Self.size(of: range, in: run, tree: tree)) }
                return
            }
            Self.mergeBounds(of: inOld, inNew, into: &points)
            var walker = UTF8Walker(tree.bytes(of: run), isASCII: run.isASCII)
            var oldIndex = 0
            var newIndex = 0
            for (lower, upper) in zip(points, points.dropFirst()) {
                let isOld = Self.contains(lower, in: inOld, from: &oldIndex)
                let isNew = Self.contains(lower, in: inNew, from: &newIndex)
                guard isOld || isNew else { continue }
                let start = walker.index(ofScalar: Int(lower - run.counter))
                let end = walker.index(ofScalar: Int(upper - run.counter))
                let utf8 = walker.utf8[start..<end]
                let size = (scalars: Int(upper - lower), utf16: run.isASCII ? utf8.count : UTF8Scan.utf16Count(of: utf8))
                switch (isOld, isNew) {
                case (true, true): builder.keep(size)
                case (true, false): builder.delete(size)
                default: builder.insert(size, utf8: utf8)
                }
            }
        }
        return TextDiff(edits: builder.finished())
    }

    /// The scalar and UTF-16 size of the items `range` of `run`.
    private static func size(of range: Range<UInt64>, in run: TextRun, tree: RunTree) -> (scalars: Int, utf16: Int) {
        let scalars = Int(range.upperBound - range.lowerBound)
        guard !run.isASCII else { return (scalars, scalars) }
        let lower = Int(range.lowerBound - run.counter)
        let utf16 = tree.unitCount(in: run, ofFirst: lower + scalars, unit: .utf16) - tree.unitCount(in: run, ofFirst: lower, unit: .utf16)
        return (scalars, utf16)
    }

    /// The bounds of the sorted ranges `first` and `second`, sorted, each once.
    private static func mergeBounds(of first: [Range<UInt64>], _ second: [Range<UInt64>], into points: inout [UInt64]) {
        points.removeAll(keepingCapacity: true)
        var i = 0
        var j = 0
        // Bound 2k is range k's lower bound, 2k + 1 its upper bound.
        func bound(_ ranges: [Range<UInt64>], _ index: Int) -> UInt64 {
            index % 2 == 0 ? ranges[index / 2].lowerBound : ranges[index / 2].upperBound
        }
        while i < 2 * first.count || j < 2 * second.count {
            let next: UInt64
            if j == 2 * second.count || i < 2 * first.count && bound(first, i) <= bound(second, j) {
                next = bound(first, i)
                i += 1
            } else {
                next = bound(second, j)
                j += 1
            }
            if points.last != next { points.append(next) }
        }
    }

    /// Whether `counter` lies in one of the sorted `ranges`, searching from `index` (which
    /// moves forward, the counters asked for rising).
    private static func contains(_ counter: UInt64, in ranges: [Range<UInt64>], from index: inout Int) -> Bool {
        while index < ranges.count, ranges[index].upperBound <= counter { index += 1 }
        return index < ranges.count && ranges[index].lowerBound <= counter
    }
}

/// Gathers a diff's edits from the stretches of items in document order: kept (visible
/// in both texts), deleted (in the old only) or inserted (in the new only).
private struct DiffBuilder {
    private var edits: [TextDiff.Edit] = []
    /// Positions reached in the old and the new text.
    private var old = (scalars: 0, utf16: 0)
    private var new = (scalars: 0, utf16: 0)
    /// The edit being gathered: where it starts in both texts, and its inserted UTF-8.
    private var open: (old: (scalars: Int, utf16: Int), new: (scalars: Int, utf16: Int), inserted: [UInt8])?

    mutating func keep(_ size: (scalars: Int, utf16: Int)) {
        close()
        old.scalars += size.scalars
        old.utf16 += size.utf16
        new.scalars += size.scalars
        new.utf16 += size.utf16
    }

    mutating func delete(_ size: (scalars: Int, utf16: Int)) {
        if open == nil { open = (old, new, []) }
        old.scalars += size.scalars
        old.utf16 += size.utf16
    }

    mutating func insert(_ size: (scalars: Int, utf16: Int), utf8: ArraySlice<UInt8>) {
        if open == nil { open = (old, new, []) }
        open!.inserted.append(contentsOf: utf8)
        new.scalars += size.scalars
        new.utf16 += size.utf16
    }

    mutating func finished() -> [TextDiff.Edit] {
        close()
        return edits
    }

    private mutating func close() {
        guard let edit = open else { return }
        edits.append(TextDiff.Edit(
            deletedRange: edit.old.scalars..<old.scalars, deletedUTF16Range: edit.old.utf16..<old.utf16,
            insertedText: String(decoding: edit.inserted, as: UTF8.self),
            insertedRange: edit.new.scalars..<new.scalars, insertedUTF16Range: edit.new.utf16..<new.utf16))
        open = nil
    }
}
