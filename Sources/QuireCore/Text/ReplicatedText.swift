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

    // Unchecked exclusivity: the class is confined to one thread (documented above) and
    // never hands out overlapping accesses, and the dynamic checks cost ~10% of typing.
    @exclusivity(unchecked) var tree = RunTree()
    /// This replica's agent number in `tree`.
    let localAgent: Int32
    /// Agent → its operations in counter order, runs merged, once decoded: reach it only
    /// through ``logs``.
    @exclusivity(unchecked) private var decodedLogs: [[LogEntry]] = []
    /// A loaded state's logs, validated but not yet decoded (nil once decoded).
    @exclusivity(unchecked) private var encodedLogs: EncodedLogs?
    /// Agent → the next counter expected (the number of its operations integrated).
    @exclusivity(unchecked) var nextCounter: [UInt64] = []
    /// Remote operations waiting for their dependencies, per replica.
    private var pending: [ReplicaID: [TextOperation]] = [:]

    /// Creates an empty text edited as `replica`.
    public init(replica: ReplicaID) {
        self.replica = replica
        localAgent = tree.agent(for: replica)
        logs = [[]]
        nextCounter = [0]
    }

    /// An empty text whose runs hold at most `maximumRunLength` operations (for tests:
    /// the real bound, 2^24, takes long to reach).
    init(replica: ReplicaID, maximumRunLength: Int) {
        self.replica = replica
        tree.maximumRunLength = maximumRunLength
        localAgent = tree.agent(for: replica)
        logs = [[]]
        nextCounter = [0]
    }

    /// A text assembled from a loaded state; the caller has validated the parts, the logs
    /// included, which are decoded when first used.
    init(replica: ReplicaID, tree: RunTree, encodedLogs: EncodedLogs, counters: [UInt64]) {
        self.replica = replica
        self.tree = tree
        self.encodedLogs = encodedLogs
        self.nextCounter = counters
        self.localAgent = self.tree.agent(for: replica)
        while self.nextCounter.count <= Int(localAgent) {
            self.nextCounter.append(0)
        }
    }

    /// Agent → its operations in counter order, runs merged. Every use of the logs goes
    /// through here, so none sees a loaded state's logs before they are decoded.
    var logs: [[LogEntry]] {
        _read {
            if encodedLogs != nil { decodeLogs() }
            yield decodedLogs
        }
        _modify {
            if encodedLogs != nil { decodeLogs() }
            yield &decodedLogs
        }
    }

    /// Whether the logs are still as the loaded state encoded them (for tests).
    var logsAreEncoded: Bool { encodedLogs != nil }

    /// Decodes a loaded state's logs, with an empty log for each agent added since.
    @inline(never)
    private func decodeLogs() {
        guard let encoded = encodedLogs else { return }
        decodedLogs = encoded.decoded(contents: tree.content)
        while decodedLogs.count < nextCounter.count { decodedLogs.append([]) }
        encodedLogs = nil
    }

    /// Every operation integrated so far.
    public var version: VersionVector {
        var counters: [ReplicaID: UInt64] = [:]
        for (agent, counter) in nextCounter.enumerated() where counter > 0 {
            counters[tree.replicas[agent]] = counter
        }
        return VersionVector(counters)
    }

    /// The agent number of `replica`, with its log and counter slots.
    private func agent(for replica: ReplicaID) -> Int32 {
        let agent = tree.agent(for: replica)
        while logs.count <= Int(agent) {
            logs.append([])
            nextCounter.append(0)
        }
        return agent
    }

    // MARK: Reading

    /// The bytes this text's structures hold on the heap (run tree, ID index, content,
    /// logs), counted from array capacities and node sizes. O(number of tree nodes).
    public var memoryFootprint: Int {
        var bytes = tree.memoryFootprint
        // The logs as they are held, without decoding them to count them.
        bytes += encodedLogs?.memoryFootprint ?? 0
        bytes += decodedLogs.reduce(0) { $0 + $1.capacity * MemoryLayout<LogEntry>.stride + 32 }
        bytes += nextCounter.capacity * 8
        return bytes
    }

    /// Problems with the internal structure (for tests); empty when sound.
    var invariantViolations: [String] { tree.invariantViolations() }

    /// The number of visible Unicode scalars.
    public var count: Int { tree.counts.scalars }

    /// The visible length in `unit`.
    public func count(in unit: TextUnit) -> Int { tree.counts.visible(unit) }

    /// The whole text. O(n).
    public var string: String {
        tree.visibleString()
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
                let start = tree.byteOffset(in: run, ofScalar: skip)
                let end = tree.byteOffset(in: run, ofScalar: skip + take)
                let all = tree.bytes(of: run)
                bytes.append(contentsOf: all[all.startIndex + start..<all.startIndex + end])
                remaining -= take
            }
            skip = 0
            cursor = tree.nextRun(after: cursor)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The number of visible words: maximal runs of letters, digits, `_` and `'`. O(n).
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
        guard let run = tree.run(at: cursor), let scalars = tree.scalarOffset(in: run, of: remainder, unit: unit) else {
            throw TextError.splitsCharacter(position, unit: unit)
        }
        return tree.visibleOffset(of: cursor, in: .unicodeScalars) + scalars
    }

    // MARK: Local editing

    /// Inserts `text` at `position`.
    ///
    /// ```swift
    /// try text.insert("😀", at: 3)                      // after the third scalar
    /// try text.insert("!", at: range.location, unit: .utf16)   // from an NSRange
    /// ```
    ///
    /// - Parameters:
    ///   - text: The text to insert; empty does nothing.
    ///   - position: An offset from 0 to the length, in `unit`.
    ///   - unit: How `position` counts: scalars (default), UTF-16 or UTF-8.
    /// - Throws: ``TextError`` when `position` is out of range or inside a character.
    /// - Complexity: O(log n + text length), amortised.
    public func insert(_ text: String, at position: Int, unit: TextUnit = .unicodeScalars) throws(TextError) {
        let scalars = try scalarPosition(position, in: unit)
        guard !text.isEmpty else { return }
        try checkRoom(for: text.utf8.count, agent: localAgent)
        insertScalars(text.utf8, length: text.unicodeScalars.count, utf16: text.utf16.count, at: scalars)
    }

    /// Deletes the text in `range`.
    ///
    /// - Parameters:
    ///   - range: Offsets in `unit`; must lie within the text and not split a character.
    ///   - unit: How `range` counts.
    /// - Throws: ``TextError`` for a bad range.
    /// - Complexity: O(log n) per run of text touched.
    public func delete(_ range: Range<Int>, unit: TextUnit = .unicodeScalars) throws(TextError) {
        let lower = try scalarPosition(range.lowerBound, in: unit)
        let upper = try scalarPosition(range.upperBound, in: unit)
        deleteScalars(lower..<upper)
    }

    /// Replaces the text in `range` with `text`: a delete, then an insert.
    ///
    /// - Throws: ``TextError`` for a bad range.
    public func replace(_ range: Range<Int>, with text: String, unit: TextUnit = .unicodeScalars) throws(TextError) {
        let lower = try scalarPosition(range.lowerBound, in: unit)
        let upper = try scalarPosition(range.upperBound, in: unit)
        if !text.isEmpty { try checkRoom(for: text.utf8.count, agent: localAgent) }
        deleteScalars(lower..<upper)
        if !text.isEmpty {
            insertScalars(text.utf8, length: text.unicodeScalars.count, utf16: text.utf16.count, at: lower)
        }
    }

    /// Throws unless `agent`'s content buffer can take `bytes` more (runs address it with
    /// 32-bit offsets).
    func checkRoom(for bytes: Int, agent: Int32) throws(TextError) {
        guard tree.content[Int(agent)].count + bytes <= Int(Int32.max) else {
            throw TextError.tooLarge(replica: tree.replicas[Int(agent)])
        }
    }

    /// Inserts `length` scalars at `position` as runs of at most ``maximumRunLength``
    /// characters: each piece follows the previous one and shares its right parent, which
    /// is what one long run means, so the text is the same and every operation fits the
    /// encodings.
    func insertScalars(_ utf8: String.UTF8View, length: Int, utf16: Int, at position: Int) {
        guard length > maximumRunLength else {
            insertRun(utf8, length: length, utf16: utf16, at: position)
            return
        }
        let bytes = Array(utf8)
        var start = 0
        var inserted = 0
        while inserted < length {
            let pieceLength = min(maximumRunLength, length - inserted)
            var end = start
            if utf8.count == length {
                end += pieceLength
            } else {
                for _ in 0..<pieceLength { end += UTF8Scan.sequenceLength(leading: bytes[end]) }
            }
            let piece = bytes[start..<end]
            insertRun(piece, length: pieceLength, utf16: UTF8Scan.utf16Count(of: piece), at: position + inserted)
            inserted += pieceLength
            start = end
        }
    }

    /// The longest run of operations this text makes or keeps: the encodings' bound
    /// (``TextOperationCoding/maximumRunLength``), smaller in tests.
    var maximumRunLength: Int { tree.maximumRunLength }

    /// Inserts one run of at most ``maximumRunLength`` scalars.
    private func insertRun(_ utf8: some Collection<UInt8>, length: Int, utf16: Int, at position: Int) {
        let originLeft: ItemRef
        let start: ItemCursor
        let leftCursor: ItemCursor?
        if position == 0 {
            originLeft = .none
            start = tree.normalized(tree.start)
            leftCursor = nil
        } else {
            let (found, offset) = tree.findVisible(position - 1, in: .unicodeScalars)
            let cursor = ItemCursor(leaf: found.leaf, runIndex: found.runIndex, offset: offset)
            originLeft = tree.run(at: found).map { $0.first.advanced(by: offset) } ?? .none
            start = tree.advanced(cursor)
            leftCursor = cursor
        }
        // The right parent: the next item this replica knows, tombstones included.
        let rightParent = tree.run(at: start).map { $0.first.advanced(by: start.offset) } ?? .none
        let run = TextRun(
            agent: localAgent, isDeleted: false, counter: nextCounter[Int(localAgent)], length: length,
            utf16Count: utf16, utf8Count: utf8.count, byteStart: tree.appendContent(utf8, for: localAgent),
            originLeft: originLeft, rightParent: rightParent)
        integrate(run, from: start, leftIndex: leftCursor.map { self.tree.itemIndex(of: $0) + 1 } ?? 0)
    }

    func deleteScalars(_ range: Range<Int>) {
        var remaining = range.count
        while remaining > 0 {
            let (found, offset) = tree.findVisible(range.lowerBound, in: .unicodeScalars)
            guard let run = tree.run(at: found) else { break }
            let target = run.first.advanced(by: offset)
            let cursor = ItemCursor(leaf: found.leaf, runIndex: found.runIndex, offset: offset)
            let (covered, _) = tree.markDeleted(at: cursor, upTo: remaining)
            let record = DeleteRecord(counter: nextCounter[Int(localAgent)], length: covered, target: target, isBackward: false)
            appendToLog(.delete(record), agent: localAgent)
            remaining -= covered
        }
    }

    // MARK: Integration (FugueMax)

    /// Places `run` (new items, content already stored) with the YjsMod scan from `start`
    /// (the item after its left origin, whose document index is `leftIndex`) and logs it.
    private func integrate(_ run: TextRun, from start: ItemCursor, leftIndex: @autoclosure () -> Int) {
        let cursor = integrationPoint(for: run, from: start, leftIndex: leftIndex())
        tree.insert(run, at: cursor)
        let record = InsertRecord(
            counter: run.counter, length: run.length, originLeft: run.originLeft, rightParent: run.rightParent,
            byteStart: run.byteStart, utf8Count: run.utf8Count)
        appendToLog(.insert(record), agent: run.agent)
    }

    /// The YjsMod scan: walks right from the left origin over concurrently inserted items
    /// and returns where the new item goes.
    private func integrationPoint(for new: TextRun, from start: ItemCursor, leftIndex: @autoclosure () -> Int) -> ItemCursor {
        var cursor = tree.normalized(start)
        // The usual case, typing with nothing concurrent: the right parent comes next, and
        // the scan, which needs the left origin's document index, never starts.
        guard let first = tree.run(at: cursor), first.first.advanced(by: cursor.offset) != new.rightParent else {
            return cursor
        }
        let leftIndex = leftIndex()
        var index = leftIndex
        var scanning = false
        var scanStart = cursor
        var rightIndex: Int?
        let newID = tree.id(new.first)
        while let run = tree.run(at: cursor) {
            let item = run.first.advanced(by: cursor.offset)
            if item == new.rightParent { break }
            let otherLeftIndex: Int
            if cursor.offset > 0 {
                otherLeftIndex = index  // its left origin is the item just before it
            } else if !run.originLeft.isNone {
                otherLeftIndex = documentIndex(of: run.originLeft) + 1
            } else {
                otherLeftIndex = 0
            }
            if otherLeftIndex < leftIndex { break }
            if otherLeftIndex == leftIndex {
                if run.rightParent == new.rightParent {
                    // Siblings with equal origins: the lower (replica, counter) goes first.
                    #if QUIRE_BROKEN_TIEBREAK
                    // Deliberately wrong, for the fuzz checkers' self-test only (Fuzz/build.sh
                    // --self-test): counters alone leave equal counters of two replicas
                    // unordered, so each replica keeps its own first.
                    if newID.counter < tree.id(item).counter { break }
                    #else
                    if newID < tree.id(item) { break }
                    #endif
                    scanning = false
                } else {
                    let mine = rightIndex ?? (new.rightParent.isNone ? Int.max : documentIndex(of: new.rightParent))
                    rightIndex = mine
                    let theirs = run.rightParent.isNone ? Int.max : documentIndex(of: run.rightParent)
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
    private func documentIndex(of ref: ItemRef) -> Int {
        guard let cursor = tree.cursor(of: ref) else { return Int.max }
        return tree.itemIndex(of: cursor)
    }

    /// Appends to the agent's log, merging with the previous run when it continues it,
    /// and advances the agent's counter.
    private func appendToLog(_ entry: LogEntry, agent: Int32) {
        let index = Int(agent)
        nextCounter[index] += UInt64(entry.length)
        Self.append(entry, agent: agent, limit: maximumRunLength, to: &logs[index])
    }

    /// Appends `entry`, merged into the last entry when it continues it and the two hold
    /// at most `limit` operations (so every logged run encodes).
    private static func append(_ entry: LogEntry, agent: Int32, limit: Int, to log: inout [LogEntry]) {
        if let last = log.last, last.length + entry.length <= limit, let merged = last.merged(with: entry, agent: agent) {
            log[log.count - 1] = merged
        } else {
            log.append(entry)
        }
    }

    // MARK: Remote operations

    /// Room for a large batch of one replica's operations (a history imported whole) in
    /// the tree's tables and the replica's log, so they grow once. Only what the
    /// operations hold is reserved: their runs, their inserts' counters and bytes.
    private func reserveCapacity(for operations: [TextOperation]) {
        guard operations.count >= 1_024, let replica = operations.first?.id.replica else { return }
        var counterEnd = 0, contentBytes = 0
        for position in operations.indices {
            guard case .insert(let insertion) = operations[position], insertion.id.replica == replica else { continue }
            counterEnd = max(counterEnd, Int(insertion.id.counter) + insertion.length)
            contentBytes += insertion.bytes.count
        }
        let agent = agent(for: replica)
        tree.reserveCapacity(runs: operations.count, agent: agent, counterEnd: counterEnd, contentBytes: contentBytes)
        // At most one entry per operation (typing merges many into one); at least doubling,
        // so that batches applied one after another do not copy the log each time.
        let wanted = logs[Int(agent)].count + operations.count
        if wanted > logs[Int(agent)].capacity {
            logs[Int(agent)].reserveCapacity(max(wanted, logs[Int(agent)].capacity * 2))
        }
    }

    /// Integrates operations from other replicas (or this one's, from another copy).
    ///
    /// Operations already known are skipped; ones whose dependencies (the previous
    /// operation of their replica, their origins, their targets) are missing wait until
    /// a later call supplies them. Operations are checked one at a time: when one turns
    /// out invalid, the ones integrated before it stay integrated, the ones after it wait
    /// as pending, and the invalid one is dropped.
    ///
    /// - Parameter operations: Operations in any order, duplicates allowed.
    /// - Returns: The number of operations (characters inserted or deleted) integrated.
    /// - Throws: ``TextError/invalidOperation(_:)`` for an operation no valid replica could
    ///   have made (an empty run, a target that is not a character, bad UTF-8).
    @discardableResult
    public func apply(_ operations: [TextOperation]) throws(TextError) -> Int {
        // By index here too: a loop over the values copies each operation out and
        // destroys it again, some 100 instructions apiece on an import.
        for position in operations.indices where operations[position].length <= 0 {
            throw TextError.invalidOperation("empty operation \(operations[position].id)")
        }
        reserveCapacity(for: operations)
        var integrated = 0
        var queued: [TextOperation] = []
        /// Integrates `operation`, the one at `position` or its unknown part, if its
        /// dependencies are met; `false` when it must wait.
        func integrateIfReady(_ operation: TextOperation, at position: Int, agent: Int32) throws(TextError) -> Bool {
            guard dependenciesMet(operation) else { return false }
            do {
                try integrateRemote(operation, agent: agent)
            } catch {
                enqueue(operations[(position + 1)...])  // as if they had all been queued
                throw error
            }
            integrated += operation.length
            return true
        }
        // By index, not by value: an operation passed straight from the array is not
        // copied (its characters retained and released) on the way.
        for position in operations.indices {
            let id = operations[position].id, length = operations[position].length
            // In causal order with nothing waiting before it (a history applied in order,
            // the usual case): integrate it now, without queueing it.
            if queued.isEmpty, pending.isEmpty, length <= maximumRunLength {
                let agent = self.agent(for: id.replica)
                let known = nextCounter[Int(agent)]
                if id.counter + UInt64(length) <= known { continue }  // a duplicate
                if id.counter == known, try integrateIfReady(operations[position], at: position, agent: agent) { continue }
                if id.counter < known,  // partly known: the rest
                    try integrateIfReady(operations[position].droppingFirst(Int(known - id.counter)), at: position, agent: agent) {
                    continue
                }
            }
            queued.append(operations[position])
        }
        return try integrated + integrateQueued(queued)
    }

    /// Adds `operations` to the pending ones, each replica's queue in counter order.
    private func enqueue(_ operations: some Collection<TextOperation>) {
        for operation in operations {
            // A run longer than the encodings take (only a caller of this API can make
            // one; decoding refuses it) is integrated in pieces: each continues the one
            // before, so the text is the same.
            var rest = operation
            while rest.length > maximumRunLength {
                pending[operation.id.replica, default: []].append(rest.prefix(maximumRunLength))
                rest = rest.droppingFirst(maximumRunLength)
            }
            pending[operation.id.replica, default: []].append(rest)
        }
        // Each replica's queue in counter order, once; integration only removes from the front.
        for replica in Set(operations.map(\.id.replica)) {
            pending[replica]?.sort { $0.id.counter < $1.id.counter }
        }
    }

    /// Queues `operations` with the pending ones and integrates every one whose
    /// dependencies are met, until none is left that can be.
    private func integrateQueued(_ operations: [TextOperation]) throws(TextError) -> Int {
        guard !operations.isEmpty || !pending.isEmpty else { return 0 }
        enqueue(operations)
        var integrated = 0
        var progress = true
        while progress {
            progress = false
            for replica in pending.keys.sorted() {
                guard var queue = pending[replica] else { continue }
                let agent = Int(self.agent(for: replica))
                var position = 0
                while position < queue.count {
                    let operation = queue[position]
                    let known = nextCounter[agent]
                    let end = operation.id.counter + UInt64(operation.length)
                    if end <= known {  // a duplicate
                        position += 1
                        continue
                    }
                    let current = operation.id.counter < known ? operation.droppingFirst(Int(known - operation.id.counter)) : operation
                    guard current.id.counter == known, dependenciesMet(current) else { break }
                    do {
                        try integrateRemote(current, agent: Int32(agent))
                    } catch {
                        // Drop the invalid operation (and what it has already cost) for good.
                        queue.removeFirst(position + 1)
                        pending[replica] = queue.isEmpty ? nil : queue
                        throw error
                    }
                    integrated += current.length
                    progress = true
                    position += 1
                }
                queue.removeFirst(position)
                pending[replica] = queue.isEmpty ? nil : queue
            }
        }
        return integrated
    }

    /// The number of operations waiting for dependencies.
    public var pendingCount: Int { pending.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.length } } }

    /// Whether the operation `id` has been integrated.
    private func has(_ id: OperationID) -> Bool {
        guard let agent = tree.agentNumber(of: id.replica) else { return false }
        return id.counter < nextCounter[Int(agent)]
    }

    private func dependenciesMet(_ operation: TextOperation) -> Bool {
        switch operation {
        case .insert(let insertion):
            return (insertion.originLeft.map(has) ?? true) && (insertion.rightParent.map(has) ?? true)
        case .delete(let deletion):
            let (first, count) = deletion.targetRange
            return has(first.advanced(by: UInt64(count - 1)))
        }
    }

    private func integrateRemote(_ operation: TextOperation, agent: Int32) throws(TextError) {
        switch operation {
        case .insert(let insertion):
            let originLeft = insertion.originLeft.flatMap(tree.ref) ?? .none
            let rightParent = insertion.rightParent.flatMap(tree.ref) ?? .none
            let start: ItemCursor
            let leftCursor: ItemCursor?
            if insertion.originLeft != nil {
                guard let cursor = tree.cursor(of: originLeft) else {
                    throw TextError.invalidOperation("insertion \(insertion.id) follows \(insertion.originLeft!), which is not a character")
                }
                start = tree.advanced(cursor)
                leftCursor = cursor
            } else {
                start = tree.start
                leftCursor = nil
            }
            if let right = insertion.rightParent, !tree.contains(rightParent) {
                throw TextError.invalidOperation("insertion \(insertion.id) has right parent \(right), which is not a character")
            }
            try checkRoom(for: insertion.bytes.count, agent: agent)
            let run = try insertion.bytes.withUnsafeBufferPointer { utf8 throws(TextError) in
                let utf16Count: Int
                if UTF8Scan.isASCII(utf8) {  // typing's usual case: valid, one unit each
                    guard utf8.count == insertion.length else {
                        throw TextError.invalidOperation("insertion \(insertion.id) does not hold \(insertion.length) characters of UTF-8")
                    }
                    utf16Count = insertion.length
                } else {
                    guard UTF8Scan.scalarCount(of: utf8) == insertion.length,
                        String(validating: utf8, as: UTF8.self) != nil
                    else {
                        throw TextError.invalidOperation("insertion \(insertion.id) does not hold \(insertion.length) characters of UTF-8")
                    }
                    utf16Count = UTF8Scan.utf16Count(of: utf8)
                }
                return TextRun(
                    agent: agent, isDeleted: false, counter: insertion.id.counter, length: insertion.length,
                    utf16Count: utf16Count, utf8Count: utf8.count,
                    byteStart: tree.appendContent(utf8, for: agent), originLeft: originLeft, rightParent: rightParent)
            }
            integrate(run, from: start, leftIndex: leftCursor.map { self.tree.itemIndex(of: $0) + 1 } ?? 0)
        case .delete(let deletion):
            let (first, count) = deletion.targetRange
            guard let firstRef = tree.ref(first),
                (0..<count).allSatisfy({ tree.contains(firstRef.advanced(by: $0)) })
            else {
                throw TextError.invalidOperation("deletion \(deletion.id) targets items that are not characters")
            }
            var target = firstRef
            var remaining = count
            while remaining > 0, let cursor = tree.cursor(of: target) {
                let (covered, _) = tree.markDeleted(at: cursor, upTo: remaining)
                remaining -= covered
                target = target.advanced(by: covered)
            }
            let targetRef = tree.ref(deletion.target) ?? .none
            appendToLog(.delete(DeleteRecord(counter: deletion.id.counter, length: deletion.length,
                                             target: targetRef, isBackward: deletion.goesBackward)), agent: agent)
        }
    }

    // MARK: Replication

    /// The operations this replica has that a replica at `version` lacks, oldest first
    /// per replica.
    ///
    /// - Complexity: O(log n) per replica to find the start, plus the operations returned.
    public func operations(since version: VersionVector) -> [TextOperation] {
        operations(since: version, upTo: nil)
    }

    /// The counter `replica`'s next operation in this text will have: how many of its
    /// operations are integrated. O(1).
    public func nextCounter(of replica: ReplicaID) -> UInt64 {
        tree.agentNumber(of: replica).map { nextCounter[Int($0)] } ?? 0
    }

    /// The counter this replica's next local operation will get.
    public var localCounter: UInt64 { nextCounter[Int(localAgent)] }

    /// This replica's own operations from `counter` on (see ``localCounter``): what a
    /// local edit just made, without building version vectors.
    ///
    /// - Complexity: O(k) for the k log entries that hold them (they are the last ones).
    public func localOperations(since counter: UInt64) -> [TextOperation] {
        let entries = logs[Int(localAgent)]
        var low = entries.count
        while low > 0, entries[low - 1].end > counter { low -= 1 }
        return entries[low...].map { entry in
            publicOperation(entry, agent: localAgent, droppingFirst: entry.counter < counter ? Int(counter - entry.counter) : 0)
        }
    }

    /// The operations this replica has that lie in `target` but not in `version`: what
    /// brings a replica at `version` exactly to `target`.
    public func operations(since version: VersionVector, upTo target: VersionVector?) -> [TextOperation] {
        var result: [TextOperation] = []
        for agent in logs.indices.sorted(by: { tree.replicas[$0] < tree.replicas[$1] }) {
            let replica = tree.replicas[agent]
            let known = version[replica]
            let limit = target.map { $0[replica] } ?? UInt64.max
            let entries = logs[agent]
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].end <= known { low = middle + 1 } else { high = middle }
            }
            for entry in entries[low...] {
                guard max(entry.counter, known) < limit else { break }
                var operation = publicOperation(entry, agent: Int32(agent), droppingFirst: entry.counter < known ? Int(known - entry.counter) : 0)
                if entry.end > limit { operation = operation.prefix(Int(limit - operation.id.counter)) }
                result.append(operation)
            }
        }
        return result
    }

    /// The public form of a log entry of `agent`, without its first `dropped` operations
    /// (which a replica already has). The characters are copied from the part kept only:
    /// a keystroke asks for the last character of a typing run that may be long.
    func publicOperation(_ entry: LogEntry, agent: Int32, droppingFirst dropped: Int = 0) -> TextOperation {
        let replica = tree.replicas[Int(agent)]
        switch entry {
        case .insert(let record):
            let content = tree.content[Int(agent)][record.byteStart..<record.byteStart + record.utf8Count]
            guard dropped > 0 else {
                return .insert(TextInsertion(
                    id: OperationID(replica: replica, counter: record.counter),
                    originLeft: record.originLeft.isNone ? nil : tree.id(record.originLeft),
                    rightParent: record.rightParent.isNone ? nil : tree.id(record.rightParent),
                    bytes: InsertedBytes(content), length: record.length))
            }
            var start = content.startIndex
            if record.utf8Count == record.length {
                start += dropped
            } else {
                for _ in 0..<dropped { start += UTF8Scan.sequenceLength(leading: content[start]) }
            }
            let first = record.counter + UInt64(dropped)
            return .insert(TextInsertion(
                id: OperationID(replica: replica, counter: first), originLeft: OperationID(replica: replica, counter: first - 1),
                rightParent: record.rightParent.isNone ? nil : tree.id(record.rightParent),
                bytes: InsertedBytes(content[start...]), length: record.length - dropped))
        case .delete(let record):
            let deletion = TextDeletion(
                id: OperationID(replica: replica, counter: record.counter), target: tree.id(record.target),
                length: record.length, isBackward: record.isBackward)
            return .delete(dropped > 0 ? deletion.droppingFirst(dropped) : deletion)
        }
    }

    /// A copy of this text that edits as `replica`.
    public func fork(as replica: ReplicaID) -> ReplicatedText {
        let copy = ReplicatedText(replica: replica)
        // The log is causally complete, so everything integrates.
        _ = try? copy.apply(operations(since: VersionVector()))
        return copy
    }

    /// Integrates everything `other` has that this text lacks.
    public func merge(_ other: ReplicatedText) {
        _ = try? apply(other.operations(since: version))
    }
}

/// An operation run as a replica's log keeps it: references instead of IDs, content in
/// the agent's buffer.
enum LogEntry {
    case insert(InsertRecord)
    case delete(DeleteRecord)

    var counter: UInt64 {
        switch self {
        case .insert(let record): record.counter
        case .delete(let record): record.counter
        }
    }

    var length: Int {
        switch self {
        case .insert(let record): record.length
        case .delete(let record): record.length
        }
    }

    var end: UInt64 { counter + UInt64(length) }

    /// This entry (of `agent`'s log) extended by `next` when `next` continues it.
    func merged(with next: LogEntry, agent: Int32) -> LogEntry? {
        switch (self, next) {
        case (.insert(var previous), .insert(let following))
            where following.counter == previous.counter + UInt64(previous.length)
                && following.originLeft == ItemRef(agent: agent, counter: previous.counter + UInt64(previous.length - 1))
                && following.rightParent == previous.rightParent
                && following.byteStart == previous.byteStart + previous.utf8Count:
            previous.length += following.length
            previous.utf8Count += following.utf8Count
            return .insert(previous)
        case (.delete(let previous), .delete(let following)):
            return previous.extended(by: following).map(LogEntry.delete)
        default:
            return nil
        }
    }
}

/// Characters inserted, as logged.
struct InsertRecord {
    var counter: UInt64
    var length: Int
    var originLeft: ItemRef
    var rightParent: ItemRef
    var byteStart: Int
    var utf8Count: Int
}

/// Characters deleted, as logged: deletion `counter + k` removes `target + k` (or
/// `target − k` when backward).
struct DeleteRecord {
    var counter: UInt64
    var length: Int
    var target: ItemRef
    var isBackward: Bool

    func extended(by next: DeleteRecord) -> DeleteRecord? {
        guard next.counter == counter + UInt64(length), next.target.agent == target.agent, !next.isBackward else { return nil }
        if !isBackward, next.target.counter == target.counter + UInt64(length) {
            return DeleteRecord(counter: counter, length: length + next.length, target: target, isBackward: false)
        }
        let lastTarget = isBackward ? target.counter - UInt64(length - 1) : target.counter
        if isBackward || length == 1, next.length == 1, lastTarget > 0, next.target.counter == lastTarget - 1 {
            return DeleteRecord(counter: counter, length: length + 1, target: target, isBackward: true)
        }
        return nil
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
    /// One replica's inserted text would exceed 2 GiB of UTF-8, the most a text holds.
    case tooLarge(replica: ReplicaID)
    /// A version that counts more operations of `replica` than this text has integrated
    /// (`known`): the text cannot show it.
    case versionBeyondHistory(replica: ReplicaID, counter: UInt64, known: UInt64)
    /// A version that holds `operation` but not `missing`, which it depends on (its left
    /// origin, its right parent or the character it deletes): no replica was ever there.
    case versionNotCausallyClosed(operation: OperationID, missing: OperationID)

    /// A sentence naming the problem.
    public var description: String {
        switch self {
        case .positionOutOfRange(let position, let count, let unit):
            "position \(position) is outside the text (0...\(count) \(unit))"
        case .splitsCharacter(let position, let unit):
            "\(unit) offset \(position) falls inside a character"
        case .invalidOperation(let problem): "invalid text operation: \(problem)"
        case .malformed(let error): "malformed text data: \(error)"
        case .tooLarge(let replica): "replica \(replica) would insert more than 2 GiB of text"
        case .versionBeyondHistory(let replica, let counter, let known):
            "the version counts \(counter) operations of replica \(replica), this text has \(known): merge them first or ask for an earlier version"
        case .versionNotCausallyClosed(let operation, let missing):
            "the version holds operation \(operation) but not \(missing), which it depends on: include \(missing) or leave \(operation) out"
        }
    }
}
