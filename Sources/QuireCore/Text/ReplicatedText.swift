/// A text that several replicas edit concurrently and merge without conflicts: the
/// FugueMax sequence CRDT over a B-tree of runs.
///
/// ```swift
/// let mine = ReplicatedText(replica: ReplicaID(1))
/// try mine.insert("Hello world", at: 0)
/// let theirs = mine.fork(as: ReplicaID(2))
/// try mine.insert("brave ", at: 6)
/// try theirs.replace(0..<5, with: "Howdy")
/// mine.merge(theirs)
/// theirs.merge(mine)
/// mine.string == theirs.string     // "Howdy brave world"
/// ```
///
/// Positions count Unicode scalars unless a ``TextUnit`` says otherwise; finding a
/// position, inserting and deleting are O(log n) in the number of runs. Remote operations
/// may arrive in any order and more than once: ``apply(_:)`` integrates what it can and
/// keeps the rest pending until their dependencies arrive.
///
/// Not thread-safe: confine an instance to one thread or actor at a time.
public final class ReplicatedText {
    /// The replica whose local edits this instance makes.
    public let replica: ReplicaID
    /// Every operation integrated so far.
    public private(set) var version = VersionVector()

    var tree = RunTree()
    /// Each replica's operations, in counter order, runs merged.
    var log: [ReplicaID: [TextOperation]] = [:]
    /// Remote operations waiting for their dependencies, per replica, in counter order.
    private var pending: [ReplicaID: [TextOperation]] = [:]

    /// Creates an empty text edited as `replica`.
    public init(replica: ReplicaID) {
        self.replica = replica
    }

    // MARK: Reading

    /// The number of visible Unicode scalars.
    public var count: Int { tree.counts.scalars }

    /// The visible length in `unit`.
    public func count(in unit: TextUnit) -> Int { tree.counts.visible(unit) }

    /// The whole text. O(n).
    public var string: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tree.counts.utf8)
        tree.forEachRun { run in if !run.isDeleted { bytes.append(contentsOf: run.utf8) } }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text in `range`, counted in `unit`. O(log n + length of the slice).
    ///
    /// - Throws: ``TextError`` when the range is out of bounds or splits a character.
    public func string(in range: Range<Int>, unit: TextUnit = .unicodeScalars) throws(TextError) -> String {
        let lower = try scalarPosition(range.lowerBound, in: unit)
        let upper = try scalarPosition(range.upperBound, in: unit)
        guard lower < upper else { return "" }
        var bytes: [UInt8] = []
        var remaining = upper - lower
        var (cursor, skip) = tree.findVisible(lower, in: .unicodeScalars)
        while remaining > 0, let run = tree.run(at: cursor) {
            if !run.isDeleted {
                let take = min(remaining, run.length - skip)
                let start = run.byteOffset(ofScalar: skip)
                let end = run.byteOffset(ofScalar: skip + take)
                bytes.append(contentsOf: run.utf8[start..<end])
                remaining -= take
            }
            skip = 0
            cursor = tree.nextRun(after: cursor)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The number of visible words: maximal runs of letters, digits and connector
    /// punctuation. O(n).
    public var wordCount: Int {
        var words = 0
        var inWord = false
        for scalar in string.unicodeScalars {
            let isWordScalar = scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                || scalar == "_" || scalar == "'"
            if isWordScalar && !inWord { words += 1 }
            inWord = isWordScalar
        }
        return words
    }

    /// The Unicode-scalar position of the `unit` offset `position`.
    func scalarPosition(_ position: Int, in unit: TextUnit) throws(TextError) -> Int {
        let total = tree.counts.visible(unit)
        guard position >= 0, position <= total else {
            throw TextError.positionOutOfRange(position, count: total, unit: unit)
        }
        if unit == .unicodeScalars { return position }
        if position == total { return tree.counts.scalars }
        let (cursor, remainder) = tree.findVisible(position, in: unit)
        guard let run = tree.run(at: cursor), let scalars = run.scalarOffset(of: remainder, in: unit) else {
            throw TextError.splitsCharacter(position, unit: unit)
        }
        return tree.visibleOffset(of: cursor, in: .unicodeScalars) + scalars
    }

    // MARK: Local editing

    /// Inserts `text` at `position`.
    ///
    /// - Parameters:
    ///   - text: The text to insert; empty does nothing.
    ///   - position: An offset from 0 to the length, in `unit`.
    ///   - unit: How `position` counts: scalars (default), UTF-16 or UTF-8.
    /// - Returns: The operation made, to send to other replicas, or `nil` for empty text.
    /// - Throws: ``TextError`` when `position` is out of range or inside a character.
    /// - Complexity: O(log n + text length), amortised.
    @discardableResult
    public func insert(_ text: String, at position: Int, unit: TextUnit = .unicodeScalars) throws(TextError) -> TextOperation? {
        let scalars = try scalarPosition(position, in: unit)
        guard !text.isEmpty else { return nil }
        return insertScalars(Array(text.utf8), length: text.unicodeScalars.count, at: scalars)
    }

    /// Deletes the text in `range`.
    ///
    /// - Parameters:
    ///   - range: Offsets in `unit`; must lie within the text and not split a character.
    ///   - unit: How `range` counts.
    /// - Returns: The operations made (one per run of deleted characters).
    /// - Throws: ``TextError`` for a bad range.
    @discardableResult
    public func delete(_ range: Range<Int>, unit: TextUnit = .unicodeScalars) throws(TextError) -> [TextOperation] {
        let lower = try scalarPosition(range.lowerBound, in: unit)
        let upper = try scalarPosition(range.upperBound, in: unit)
        return deleteScalars(lower..<upper)
    }

    /// Replaces the text in `range` with `text`: a delete, then an insert.
    ///
    /// - Returns: The operations made.
    /// - Throws: ``TextError`` for a bad range.
    @discardableResult
    public func replace(_ range: Range<Int>, with text: String, unit: TextUnit = .unicodeScalars) throws(TextError) -> [TextOperation] {
        let lower = try scalarPosition(range.lowerBound, in: unit)
        let upper = try scalarPosition(range.upperBound, in: unit)
        var operations = deleteScalars(lower..<upper)
        if !text.isEmpty, let insertion = insertScalars(Array(text.utf8), length: text.unicodeScalars.count, at: lower) {
            operations.append(insertion)
        }
        return operations
    }

    func insertScalars(_ utf8: [UInt8], length: Int, at position: Int) -> TextOperation? {
        let id = OperationID(replica: replica, counter: version[replica])
        let originLeft: OperationID?
        let start: ItemCursor
        let leftIndex: Int
        if position == 0 {
            originLeft = nil
            start = tree.normalized(tree.start)
            leftIndex = 0
        } else {
            let (found, offset) = tree.findVisible(position - 1, in: .unicodeScalars)
            let cursor = ItemCursor(leaf: found.leaf, runIndex: found.runIndex, offset: offset)
            originLeft = tree.run(at: cursor).map { OperationID(replica: $0.replica, counter: $0.counter + UInt64(offset)) }
            start = tree.advanced(cursor)
            leftIndex = tree.itemIndex(of: cursor) + 1
        }
        // The right parent: the next item this replica knows, tombstones included.
        var rightParent: OperationID?
        if let next = tree.run(at: start) {
            rightParent = OperationID(replica: next.replica, counter: next.counter + UInt64(start.offset))
        }
        let insertion = TextInsertion(id: id, originLeft: originLeft, rightParent: rightParent, utf8: utf8, length: length)
        integrate(insertion, from: start, leftIndex: leftIndex)
        return .insert(insertion)
    }

    func deleteScalars(_ range: Range<Int>) -> [TextOperation] {
        var operations: [TextOperation] = []
        var remaining = range.count
        while remaining > 0 {
            let (found, offset) = tree.findVisible(range.lowerBound, in: .unicodeScalars)
            guard let run = tree.run(at: found) else { break }
            let target = OperationID(replica: run.replica, counter: run.counter + UInt64(offset))
            let cursor = ItemCursor(leaf: found.leaf, runIndex: found.runIndex, offset: offset)
            let (covered, _) = tree.markDeleted(at: cursor, upTo: remaining)
            let deletion = TextDeletion(id: OperationID(replica: replica, counter: version[replica]), target: target, length: covered)
            appendToLog(.delete(deletion))
            version.record(deletion.id, count: UInt64(covered))
            operations.append(.delete(deletion))
            remaining -= covered
        }
        return operations
    }

    // MARK: Integration (FugueMax)

    /// Places `insertion` with the YjsMod scan from `start` (the item after its left
    /// origin, whose document index is `leftIndex`) and records it.
    private func integrate(_ insertion: TextInsertion, from start: ItemCursor, leftIndex: Int) {
        let cursor = integrationPoint(for: insertion, from: start, leftIndex: leftIndex)
        tree.insert(insertion.asRun(), at: cursor)
        appendToLog(.insert(insertion))
        version.record(insertion.id, count: UInt64(insertion.length))
    }

    /// The YjsMod scan: walks right from the left origin over concurrently inserted items
    /// and returns where the new item goes.
    private func integrationPoint(for insertion: TextInsertion, from start: ItemCursor, leftIndex: Int) -> ItemCursor {
        var cursor = tree.normalized(start)
        var index = leftIndex
        var scanning = false
        var scanStart = cursor
        var rightIndex: Int?
        while let run = tree.run(at: cursor) {
            let itemID = OperationID(replica: run.replica, counter: run.counter + UInt64(cursor.offset))
            if itemID == insertion.rightParent { break }
            let otherLeftIndex: Int
            if cursor.offset > 0 {
                otherLeftIndex = index  // its left origin is the item just before it
            } else if let origin = run.originLeft {
                otherLeftIndex = documentIndex(of: origin) + 1
            } else {
                otherLeftIndex = 0
            }
            if otherLeftIndex < leftIndex { break }
            if otherLeftIndex == leftIndex {
                let otherRight = run.rightParent(at: cursor.offset)
                if otherRight == insertion.rightParent {
                    // Siblings with equal origins: the lower (replica, counter) goes first.
                    if insertion.id < itemID { break }
                    scanning = false
                } else {
                    let mine = rightIndex ?? insertion.rightParent.map(documentIndex(of:)) ?? Int.max
                    rightIndex = mine
                    let theirs = otherRight.map(documentIndex(of:)) ?? Int.max
                    if theirs < mine {
                        if !scanning {
                            scanning = true
                            scanStart = cursor
                        }
                    } else {
                        scanning = false
                    }
                }
            }
            // The rest of this run continues its first item (each item's left origin is its
            // predecessor), so all of it lies right of our origin's subtree: skip it.
            index += run.length - cursor.offset
            cursor = tree.nextRun(after: cursor)
        }
        return scanning ? scanStart : cursor
    }

    /// The document index of an item this replica has.
    private func documentIndex(of id: OperationID) -> Int {
        guard let cursor = tree.cursor(of: id) else { return Int.max }
        return tree.itemIndex(of: cursor)
    }

    // MARK: Remote operations

    /// Integrates operations from other replicas (or this one's, from another copy).
    ///
    /// Operations already known are skipped; ones whose dependencies (the previous
    /// operation of their replica, their origins, their targets) are missing wait until
    /// a later call supplies them.
    ///
    /// - Parameter operations: Operations in any order, duplicates allowed.
    /// - Returns: The number of operations (characters inserted or deleted) integrated.
    /// - Throws: ``TextError/invalidOperation(_:)`` for an operation that cannot be valid
    ///   (an empty run, a deletion of an item that was never inserted).
    @discardableResult
    public func apply(_ operations: [TextOperation]) throws(TextError) -> Int {
        for operation in operations {
            guard operation.length > 0 else { throw TextError.invalidOperation("empty operation \(operation.id)") }
            pending[operation.id.replica, default: []].append(operation)
        }
        var integrated = 0
        var progress = true
        while progress {
            progress = false
            for replica in Array(pending.keys) {
                guard var queue = pending[replica] else { continue }
                queue.sort { $0.id.counter < $1.id.counter }
                var remaining: [TextOperation] = []
                for (position, operation) in queue.enumerated() {
                    let known = version[replica]
                    let end = operation.id.counter + UInt64(operation.length)
                    if end <= known { continue }  // a duplicate
                    let current = operation.id.counter < known ? operation.droppingFirst(Int(known - operation.id.counter)) : operation
                    guard current.id.counter == known, try dependenciesMet(current) else {
                        remaining.append(contentsOf: queue[position...])
                        break
                    }
                    try integrateRemote(current)
                    integrated += current.length
                    progress = true
                }
                pending[replica] = remaining.isEmpty ? nil : remaining
            }
        }
        return integrated
    }

    /// The number of operations waiting for dependencies.
    public var pendingCount: Int { pending.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.length } } }

    private func dependenciesMet(_ operation: TextOperation) throws(TextError) -> Bool {
        switch operation {
        case .insert(let insertion):
            return insertion.originLeft.map(version.contains) ?? true
                && insertion.rightParent.map(version.contains) ?? true
        case .delete(let deletion):
            let (first, count) = deletion.targetRange
            return version.contains(first.advanced(by: UInt64(count - 1)))
        }
    }

    private func integrateRemote(_ operation: TextOperation) throws(TextError) {
        switch operation {
        case .insert(let insertion):
            let start: ItemCursor
            let leftIndex: Int
            if let origin = insertion.originLeft {
                guard let cursor = tree.cursor(of: origin) else {
                    throw TextError.invalidOperation("insertion \(insertion.id) follows \(origin), which is not a character")
                }
                start = tree.advanced(cursor)
                leftIndex = tree.itemIndex(of: cursor) + 1
            } else {
                start = tree.start
                leftIndex = 0
            }
            if let right = insertion.rightParent, !tree.contains(right) {
                throw TextError.invalidOperation("insertion \(insertion.id) has right parent \(right), which is not a character")
            }
            integrate(insertion, from: start, leftIndex: leftIndex)
        case .delete(let deletion):
            var (target, remaining) = deletion.targetRange
            while remaining > 0 {
                guard let cursor = tree.cursor(of: target) else {
                    throw TextError.invalidOperation("deletion \(deletion.id) targets \(target), which is not a character")
                }
                let (covered, _) = tree.markDeleted(at: cursor, upTo: remaining)
                remaining -= covered
                target = target.advanced(by: UInt64(covered))
            }
            appendToLog(operation)
            version.record(deletion.id, count: UInt64(deletion.length))
        }
    }

    /// Appends to the replica's log, merging with the previous run when it continues it.
    private func appendToLog(_ operation: TextOperation) {
        let replica = operation.id.replica
        var entries = log[replica] ?? []
        log[replica] = nil  // keep the array uniquely referenced while appending
        if let last = entries.last {
            switch (last, operation) {
            case (.insert(let previous), .insert(let next))
                where next.id == previous.id.advanced(by: UInt64(previous.length))
                    && next.originLeft == previous.lastID && next.rightParent == previous.rightParent:
                var merged = previous
                merged.utf8.append(contentsOf: next.utf8)
                merged.length += next.length
                entries[entries.count - 1] = .insert(merged)
            case (.delete(let previous), .delete(let next)):
                if let merged = previous.extended(by: next) {
                    entries[entries.count - 1] = .delete(merged)
                } else {
                    entries.append(operation)
                }
            default:
                entries.append(operation)
            }
        } else {
            entries.append(operation)
        }
        log[replica] = entries
    }

    // MARK: Replication

    /// The operations this replica has that a replica at `version` lacks, oldest first
    /// per replica.
    ///
    /// - Complexity: O(log n) per replica to find the start, plus the operations returned.
    public func operations(since version: VersionVector) -> [TextOperation] {
        var result: [TextOperation] = []
        for replica in log.keys.sorted() {
            guard let entries = log[replica] else { continue }
            let known = version[replica]
            // Binary search for the first run that ends after `known`.
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                let entry = entries[middle]
                if entry.id.counter + UInt64(entry.length) <= known { low = middle + 1 } else { high = middle }
            }
            for entry in entries[low...] {
                result.append(entry.id.counter < known ? entry.droppingFirst(Int(known - entry.id.counter)) : entry)
            }
        }
        return result
    }

    /// The operations this replica has that lie in `target` but not in `version`: what
    /// brings a replica at `version` exactly to `target`.
    public func operations(since version: VersionVector, upTo target: VersionVector) -> [TextOperation] {
        operations(since: version).compactMap { operation -> TextOperation? in
            let limit = target[operation.id.replica]
            guard operation.id.counter < limit else { return nil }
            let end = operation.id.counter + UInt64(operation.length)
            return end <= limit ? operation : operation.prefix(Int(limit - operation.id.counter))
        }
    }

    /// A copy of this text that edits as `replica`.
    public func fork(as replica: ReplicaID) -> ReplicatedText {
        let copy = ReplicatedText(replica: replica)
        // Every operation integrates at once, in order: the log is causally complete.
        _ = try? copy.apply(operations(since: VersionVector()))
        return copy
    }

    /// Integrates everything `other` has that this text lacks.
    public func merge(_ other: ReplicatedText) {
        _ = try? apply(other.operations(since: version))
    }
}

/// A text position, range or operation that cannot be used.
public enum TextError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The position lies outside `0...count`.
    case positionOutOfRange(Int, count: Int, unit: TextUnit)
    /// The position falls inside one character (a UTF-16 surrogate pair or a UTF-8 sequence).
    case splitsCharacter(Int, unit: TextUnit)
    /// A remote operation that no valid replica could have made.
    case invalidOperation(String)
    /// Encoded operations or state that do not decode.
    case malformed(DecodingError)

    /// A sentence naming the problem.
    public var description: String {
        switch self {
        case .positionOutOfRange(let position, let count, let unit):
            "position \(position) is outside the text (0...\(count) \(unit))"
        case .splitsCharacter(let position, let unit):
            "\(unit) offset \(position) falls inside a character"
        case .invalidOperation(let problem): "invalid text operation: \(problem)"
        case .malformed(let error): "malformed text data: \(error)"
        }
    }
}
