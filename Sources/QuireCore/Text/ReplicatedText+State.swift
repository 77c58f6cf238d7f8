/// The full state of a text — its runs in document order, every replica's log and
/// inserted characters — so that a reader gets the text without replaying history.
///
/// ```
/// format     byte 1
/// agents     varint n, then per agent: 8-byte replica ID · next counter ·
///            content (varint length + UTF-8) · log (varint count + entries)
/// runs       varint m, then per run: flags · agent · counter · length · content offset ·
///            left origin · right parent
/// entry      flags · counter · length · insertion (left origin · right parent · content
///            offset · UTF-8 length) or deletion (target)
/// reference  flag kind 0 none, 1 same agent (distance back), 2 agent · counter
/// ```
extension ReplicatedText {
    fileprivate static let stateFormat: UInt8 = 1

    /// Encodes the whole state. O(n) in runs and log entries.
    public func encodedState() -> [UInt8] {
        // Written unchecked into room for the most it can take: a save of a long history
        // writes a few hundred thousand runs and entries, so the checks `Array.append`
        // makes per byte add up. Each run or entry is a flags byte and varints, none of
        // them above the largest counter (counters, lengths, references, zigzagged
        // distances back), the largest content offset or the agent count.
        let runCount = tree.runCount
        let largestCounter = nextCounter.max() ?? 0
        let counterBytes = UnsafeByteWriter.varintSize(largestCounter << 1 | 1)
        let offsetBytes = UnsafeByteWriter.varintSize(UInt64(tree.content.map { $0.count }.max() ?? 0))
        let agentBytes = UnsafeByteWriter.varintSize(UInt64(tree.replicas.count))
        let itemBytes = 1 + agentBytes + 2 * counterBytes + 2 * offsetBytes + 2 * (agentBytes + counterBytes)
        // An agent's header: its ID, next counter, content (length-prefixed) and log count.
        func headerBytes(of agent: Int) -> Int {
            8 + counterBytes + offsetBytes + tree.content[agent].count + UnsafeByteWriter.varintSize(UInt64(logs[agent].count))
        }
        let runsHeaderBytes = UnsafeByteWriter.varintSize(UInt64(runCount))
        var bound = 1 + agentBytes + runsHeaderBytes + runCount * itemBytes
        for agent in tree.replicas.indices { bound += headerBytes(of: agent) + logs[agent].count * itemBytes }
        return UnsafeByteWriter.bytes(atMost: bound) { writer in
            writer.checkRoom(for: 1 + agentBytes)
            writer.write(byte: Self.stateFormat)
            writer.write(varint: UInt64(tree.replicas.count))
            for (agent, replica) in tree.replicas.enumerated() {
                writer.checkRoom(for: headerBytes(of: agent))
                withUnsafeBytes(of: replica.rawValue.littleEndian) { writer.write(raw: $0) }
                writer.write(varint: nextCounter[agent])
                writer.write(lengthPrefixed: tree.content[agent])
                writer.write(varint: UInt64(logs[agent].count))
                var previousEnd: UInt64 = 0
                for entry in logs[agent] {
                    writer.checkRoom(for: itemBytes)
                    switch entry {
                    case .insert(let record):
                        let origin = Self.kind(record.originLeft, agent: agent)
                        let right = Self.kind(record.rightParent, agent: agent)
                        writer.write(byte: origin << 1 | right << 3)
                        writer.write(varint: record.counter &- previousEnd)
                        writer.write(varint: UInt64(record.length))
                        Self.write(record.originLeft, kind: origin, from: record.counter, to: &writer)
                        Self.write(record.rightParent, kind: right, from: record.counter, to: &writer)
                        writer.write(varint: UInt64(record.byteStart))
                        writer.write(varint: UInt64(record.utf8Count))
                    case .delete(let record):
                        writer.write(byte: 1 | (record.isBackward ? 2 : 0))
                        writer.write(varint: record.counter &- previousEnd)
                        writer.write(varint: UInt64(record.length))
                        writer.write(varint: UInt64(record.target.agent))
                        writer.write(varint: record.target.counter)
                    }
                    previousEnd = entry.end
                }
            }
            writer.checkRoom(for: runsHeaderBytes)
            writer.write(varint: UInt64(runCount))
            tree.forEachRun { run in
                writer.checkRoom(for: itemBytes)
                let agent = Int(run.agent)
                let origin = Self.kind(run.originLeft, agent: agent)
                let right = Self.kind(run.rightParent, agent: agent)
                writer.write(byte: (run.isDeleted ? 1 : 0) | origin << 1 | right << 3)
                writer.write(varint: UInt64(agent))
                writer.write(varint: run.counter)
                writer.write(varint: UInt64(run.length))
                writer.write(varint: UInt64(run.byteStart))
                Self.write(run.originLeft, kind: origin, from: run.counter, to: &writer)
                Self.write(run.rightParent, kind: right, from: run.counter, to: &writer)
            }
        }
    }

    /// Loads a text from ``encodedState()``, to be edited as `replica`.
    ///
    /// The whole state is checked here, the replicas' logs included; the logs are then
    /// kept as encoded and decoded only when first used (an edit, a merge, a request for
    /// operations, a save), so a text loaded to be read never pays for its history.
    ///
    /// - Throws: ``TextError/malformed(_:)`` when the bytes are not a valid state.
    /// - Complexity: O(n) in runs, log entries and characters; no history is replayed.
    public convenience init(replica: ReplicaID, state: [UInt8]) throws(TextError) {
        let loaded: LoadedState
        do throws(DecodingError) {
            loaded = try state.withUnsafeBufferPointer { bytes throws(DecodingError) in try LoadedState(decoding: bytes) }
        } catch {
            throw TextError.malformed(error)
        }
        self.init(replica: replica, tree: loaded.tree, encodedLogs: loaded.logs, counters: loaded.counters)
    }

    private static func kind(_ ref: ItemRef, agent: Int) -> UInt8 {
        ref.isNone ? 0 : Int(ref.agent) == agent ? 1 : 2
    }

    @inline(__always)
    private static func write(_ ref: ItemRef, kind: UInt8, from counter: UInt64, to writer: inout UnsafeByteWriter) {
        switch kind {
        case 0: return
        case 1: writer.write(signedVarint: Int64(bitPattern: counter &- ref.counter))
        default:
            writer.write(varint: UInt64(ref.agent))
            writer.write(varint: ref.counter)
        }
    }
}

/// A state decoded and validated: the run tree built, the logs checked and kept encoded.
private struct LoadedState {
    var tree: RunTree
    var logs: EncodedLogs
    var counters: [UInt64]

    /// One agent's section of the state, as offsets into its bytes.
    private struct Agent {
        /// Its next counter: every log entry and run lies below it.
        var counter: UInt64
        var content: Range<Int>
        var isASCII: Bool
        var log: Range<Int>
        var entries: Int
        /// The counter after its last insertion: how far its ID index reaches.
        var insertionEnd: UInt64
        /// The characters its deletions remove.
        var deleted: UInt64
    }

    /// A reference in a log that names a later agent's character, or one its own log
    /// inserts further on: checked once every log has been read.
    private struct LaterReference {
        var item: ItemRef
        var offset: Int
        var isDeletion: Bool
    }

    init(decoding bytes: UnsafeBufferPointer<UInt8>) throws(DecodingError) {
        var reader = UnsafeByteReader(bytes)
        let format = try reader.readByte("format")
        guard format == ReplicatedText.stateFormat else {
            throw DecodingError.malformed("unsupported text state format \(format)", at: 0)
        }
        let agentCount = try reader.readCount("agents", limit: 1 << 16, minimumElementSize: 11)
        var replicas: [ReplicaID] = []
        var contents: [[UInt8]] = []
        var agents: [Agent] = []
        replicas.reserveCapacity(agentCount)
        contents.reserveCapacity(agentCount)
        agents.reserveCapacity(agentCount)
        var seenReplicas: Set<ReplicaID> = []
        // Which counters are insertions, a bit per counter, filled as the logs are read;
        // every reference and every run is checked against it.
        var insertions = InsertionSet(agents: agentCount)
        var later: [LaterReference] = []
        var insertedTotal: UInt64 = 0

        // Checks that `item`, referred to at `offset` by the log of `agent` whose entries
        // so far end at `known`, is an insertion, or defers the check if that log or its
        // agent's lies ahead.
        func requireInsertion(_ item: ItemRef, agent: Int, known: UInt64, at offset: Int, isDeletion: Bool) throws(DecodingError) {
            if item.isNone { return }
            if Int(item.agent) < agent || Int(item.agent) == agent && item.counter < known {
                guard insertions.contains(item) else { throw Self.missing(isDeletion: isDeletion, at: offset) }
            } else {
                later.append(LaterReference(item: item, offset: offset, isDeletion: isDeletion))
            }
        }

        for agent in 0..<agentCount {
            let idStart = reader.offset
            let idBytes = try reader.readBytes(8, "replica ID")
            let replicaID = ReplicaID(UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + idBytes.lowerBound)
                .loadUnaligned(as: UInt64.self)))
            guard agentCount <= 8 ? !replicas.contains(replicaID) : seenReplicas.insert(replicaID).inserted else {
                throw DecodingError.malformed("replica \(replicaID) appears twice", at: idStart)
            }
            replicas.append(replicaID)
            let counter = try reader.readVarint("next counter")
            let contentStart = reader.offset
            let contentRange = try reader.readLengthPrefixed("content", limit: Int(Int32.max))
            let content = UnsafeBufferPointer(rebasing: bytes[contentRange])
            let ascii = UTF8Scan.isASCII(content)
            guard ascii || String(validating: content, as: UTF8.self) != nil else {
                throw DecodingError.malformed("content of agent \(agent) is not UTF-8", at: contentStart)
            }
            contents.append(Array(content))
            let entryCount = try reader.readCount("log entries", limit: 1 << 32, minimumElementSize: 3)
            let logStart = reader.offset
            // Typically no more than half an agent's operations are deletions.
            insertions.beginAgent(expecting: Int(min(counter, UInt64(2 * content.count + 64))))
            var scanner = LogScanner(agent: agent, agents: agentCount, counterLimit: counter, content: content, isASCII: ascii)
            var deleted: UInt64 = 0
            var insertionEnd: UInt64 = 0
            for _ in 0..<entryCount {
                let start = reader.offset
                let known = scanner.counter  // every insertion of this agent below it is in `insertions`
                switch try scanner.next(&reader) {
                case .insert(let record):
                    try requireInsertion(record.originLeft, agent: agent, known: known, at: start, isDeletion: false)
                    try requireInsertion(record.rightParent, agent: agent, known: known, at: start, isDeletion: false)
                    insertions.append(record.counter, count: record.length)
                    insertionEnd = record.counter + UInt64(record.length)
                    insertedTotal += UInt64(record.length)
                case .delete(let record):
                    // A replica deletes each character at most once, so its deletions never
                    // outnumber all insertions, which the state's bytes bound: checked here
                    // too so that counters (and the sets sized by them) stay bounded.
                    deleted += UInt64(record.length)
                    guard deleted <= UInt64(bytes.count) else { throw Self.overdeleted(agent, at: start) }
                    let span = UInt64(record.length - 1)
                    guard !record.isBackward || record.target.counter >= span else {
                        throw DecodingError.malformed("a backward deletion runs before counter 0", at: start)
                    }
                    let first = record.isBackward ? record.target.counter - span : record.target.counter
                    guard first <= UInt64.max - span else { throw Self.missing(isDeletion: true, at: start) }
                    // Both ends: the targets between them are insertions too, or the deletion
                    // could not have been logged as one record.
                    try requireInsertion(ItemRef(agent: record.target.agent, counter: first), agent: agent, known: known, at: start, isDeletion: true)
                    try requireInsertion(ItemRef(agent: record.target.agent, counter: first + span), agent: agent, known: known, at: start, isDeletion: true)
                }
            }
            guard scanner.contentEnd == UInt64(content.count) else {
                throw DecodingError.malformed("the insertions of agent \(agent) do not cover its content", at: reader.offset)
            }
            guard scanner.counter == counter else {
                throw DecodingError.malformed("the log of agent \(agent) does not reach its counter", at: reader.offset)
            }
            agents.append(Agent(
                counter: counter, content: contentRange, isASCII: ascii, log: logStart..<reader.offset, entries: entryCount,
                insertionEnd: insertionEnd, deleted: deleted))
        }
        // Every counter is now bounded by the characters the state holds.
        for (agent, info) in agents.enumerated() where info.deleted > insertedTotal {
            throw Self.overdeleted(agent, at: info.log.upperBound)
        }
        for reference in later where !insertions.contains(reference.item) {
            throw Self.missing(isDeletion: reference.isDeletion, at: reference.offset)
        }

        // The runs, decoded straight into the tree's leaf layout, filling the ID index
        // (agent → counter → leaf, up to the agent's last insertion) and each leaf's totals
        // on the way; each claims its items from `unclaimed`, so no two hold the same one.
        var index = agents.map { [Int32](repeating: -1, count: Int($0.insertionEnd)) }
        var unclaimed = insertions
        let runCount = try reader.readCount("runs", limit: 1 << 32, minimumElementSize: 5)
        let perLeaf = RunTree.bulkRunsPerLeaf
        let leafCapacity = RunTree.leafCapacity
        let leafCount = (runCount + perLeaf - 1) / perLeaf
        var leafCounts: [TextCounts] = []
        leafCounts.reserveCapacity(leafCount)
        var placed = 0
        let slots = try [TextRun](unsafeUninitializedCapacity: leafCount * leafCapacity) { slots, initialized throws(DecodingError) in
            try index.withUnsafeMutableBufferPointer { index throws(DecodingError) in
                try agents.withUnsafeBufferPointer { agents throws(DecodingError) in
                    let base = bytes.baseAddress.unsafelyUnwrapped
                    let slot = slots.baseAddress.unsafelyUnwrapped
                    var counts = TextCounts()
                    var inLeaf = 0
                    var leaf: Int32 = 0
                    for _ in 0..<runCount {
                        let start = reader.offset
                        let flags = try reader.readByte("run flags")
                        let agentValue = try reader.readVarint("run agent")
                        guard agentValue < UInt64(agentCount) else {
                            throw DecodingError.malformed("run agent \(agentValue) unknown", at: start)
                        }
                        let agent = Int(agentValue)
                        let info = agents[agent]
                        let counter = try reader.readVarint("run counter")
                        let length = try reader.readVarint("run length")
                        let byteStart = try reader.readVarint("run content offset")
                        guard length >= 1, length <= UInt64(TextOperationCoding.maximumRunLength),
                            counter <= info.counter, length <= info.counter - counter,
                            byteStart <= UInt64(info.content.count)
                        else { throw DecodingError.malformed("run outside the agent's counters or content", at: start) }
                        let originLeft = try reader.readReference(kind: (flags >> 1) & 3, agent: agent, from: counter, agents: agentCount)
                        let rightParent = try reader.readReference(kind: (flags >> 3) & 3, agent: agent, from: counter, agents: agentCount)
                        guard unclaimed.remove(agent: agent, counter, count: Int(length)) else {
                            throw DecodingError.malformed("a run holds characters that are not insertions, or that another run holds", at: start)
                        }
                        guard insertions.contains(originLeft) || originLeft.isNone,
                            insertions.contains(rightParent) || rightParent.isNone
                        else { throw DecodingError.malformed("a run refers to a character that does not exist", at: start) }
                        // Measure the run's characters in the content, checking they are there
                        // (ASCII content: one byte, one UTF-16 unit per character).
                        var byte = Int(byteStart)
                        var utf16 = Int(length)
                        if info.isASCII {
                            byte += Int(length)
                        } else {
                            let content = base + info.content.lowerBound
                            let contentCount = info.content.count
                            utf16 = 0
                            for _ in 0..<length {
                                guard byte < contentCount else {
                                    throw DecodingError.malformed("run content runs past the agent's content", at: start)
                                }
                                let width = UTF8Scan.sequenceLength(leading: content[byte])
                                utf16 += width == 4 ? 2 : 1
                                byte += width
                            }
                        }
                        guard byte <= info.content.count else {
                            throw DecodingError.malformed("run content runs past the agent's content", at: start)
                        }
                        placed += Int(length)
                        // Claimed above: every counter of the run is an insertion, so below
                        // the agent's last insertion and inside its index.
                        index[agent].withUnsafeMutableBufferPointer { table in
                            (table.baseAddress.unsafelyUnwrapped + Int(counter)).update(repeating: leaf, count: Int(length))
                        }
                        let run = TextRun(
                            agent: Int32(agent), isDeleted: flags & 1 != 0, counter: counter, length: Int(length),
                            utf16Count: utf16, utf8Count: byte - Int(byteStart), byteStart: Int(byteStart),
                            originLeft: originLeft, rightParent: rightParent)
                        (slot + initialized).initialize(to: run)
                        initialized += 1
                        counts += run.counts
                        inLeaf += 1
                        if inLeaf == perLeaf {
                            (slot + initialized).initialize(repeating: RunTree.emptyRun, count: leafCapacity - perLeaf)
                            initialized += leafCapacity - perLeaf
                            leafCounts.append(counts)
                            counts = TextCounts()
                            inLeaf = 0
                            leaf += 1
                        }
                    }
                    if inLeaf > 0 {
                        (slot + initialized).initialize(repeating: RunTree.emptyRun, count: leafCapacity - inLeaf)
                        initialized += leafCapacity - inLeaf
                        leafCounts.append(counts)
                    }
                }
            }
        }
        guard reader.isAtEnd else {
            throw DecodingError.malformed("\(reader.remaining) unexpected trailing bytes", at: reader.offset)
        }
        // Every run's items are distinct insertions (claimed once each): if as many are
        // placed as were inserted, the runs hold every insertion exactly once.
        guard placed == insertions.count else {
            throw DecodingError.malformed("the runs hold \(placed) characters, the logs inserted \(insertions.count)", at: reader.offset)
        }

        // The logs, checked above, stay encoded: their bytes, one agent after another.
        let logBytes = agents.reduce(0) { $0 + $1.log.count }
        var logStarts: [(start: Int, entries: Int)] = []
        logStarts.reserveCapacity(agentCount)
        let encoded = [UInt8](unsafeUninitializedCapacity: logBytes) { buffer, initialized in
            for agent in agents {
                logStarts.append((initialized, agent.entries))
                let source = UnsafeBufferPointer(rebasing: bytes[agent.log])
                _ = UnsafeMutableBufferPointer(rebasing: buffer[initialized...]).initialize(fromContentsOf: source)
                initialized += source.count
            }
        }
        tree = RunTree.bulkLoaded(
            slots: slots, runCount: runCount, leafCounts: leafCounts, index: index, replicas: replicas, content: contents)
        logs = EncodedLogs(bytes: encoded, agents: logStarts)
        counters = agents.map(\.counter)
    }

    private static func missing(isDeletion: Bool, at offset: Int) -> DecodingError {
        isDeletion
            ? DecodingError.malformed("a deletion targets a character that does not exist", at: offset)
            : DecodingError.malformed("an insertion refers to a character that does not exist", at: offset)
    }

    private static func overdeleted(_ agent: Int, at offset: Int) -> DecodingError {
        DecodingError.malformed("agent \(agent) deletes more characters than were ever inserted", at: offset)
    }
}

/// Every agent's counters that are insertions, a bit each, for validating a loaded state.
/// Built agent by agent, in counter order, as the logs are read; agent `a`'s words follow
/// agent `a − 1`'s in one buffer.
private struct InsertionSet {
    private var words: [UInt64] = []
    /// Agent → its first word and the counter its insertions end before.
    private var agents: [(base: Int, limit: UInt64)] = []
    /// The number of counters in the set.
    private(set) var count = 0

    init(agents: Int) {
        self.agents.reserveCapacity(agents)
    }

    /// Whether `item` is in the set: false for none and for agents not yet added.
    @inline(__always)
    func contains(_ item: ItemRef) -> Bool {
        guard item.agent >= 0, Int(item.agent) < agents.count else { return false }
        let agent = agents[Int(item.agent)]
        return item.counter < agent.limit && words[agent.base + Int(item.counter >> 6)] & (1 << (item.counter & 63)) != 0
    }

    /// Starts the next agent's counters, with room for those below `expected` (a guess
    /// from the input's size, not a bound).
    mutating func beginAgent(expecting expected: Int) {
        agents.append((words.count, 0))
        words.reserveCapacity(words.count + expected / 64 + 1)
    }

    /// Adds the `length > 0` counters from `first` to the last agent begun, which holds
    /// none from `first` on; the caller has bounded `first`.
    mutating func append(_ first: UInt64, count length: Int) {
        let end = first + UInt64(length)
        let base = agents[agents.count - 1].base
        let needed = base + Int((end + 63) >> 6)
        while words.count < needed { words.append(0) }
        agents[agents.count - 1].limit = end
        let (start, last, head, tail) = Self.span(first, length)
        words.withUnsafeMutableBufferPointer { words in
            if start == last {
                words[base + start] |= head & tail
                return
            }
            words[base + start] |= head
            for index in start + 1..<last { words[base + index] = .max }
            words[base + last] |= tail
        }
        count += length
    }

    /// Removes `agent`'s `length` counters from `first` if all of them are in the set;
    /// returns whether they were (and removes nothing if not).
    @inline(__always)
    mutating func remove(agent: Int, _ first: UInt64, count length: Int) -> Bool {
        let (base, limit) = agents[agent]
        guard length > 0, first < limit, UInt64(length) <= limit - first else { return false }
        let (start, end, head, tail) = Self.span(first, length)
        let removed = words.withUnsafeMutableBufferPointer { words -> Bool in
            let words = UnsafeMutableBufferPointer(rebasing: words[base...])
            if start == end {
                let mask = head & tail
                guard words[start] & mask == mask else { return false }
                words[start] &= ~mask
                return true
            }
            guard words[start] & head == head, words[end] & tail == tail else { return false }
            for index in start + 1..<end where words[index] != .max { return false }
            words[start] &= ~head
            for index in start + 1..<end { words[index] = 0 }
            words[end] &= ~tail
            return true
        }
        if removed { count -= length }
        return removed
    }

    /// The first and last word of a range of `length > 0` counters, and the masks of its
    /// bits in them.
    @inline(__always)
    private static func span(_ first: UInt64, _ length: Int) -> (Int, Int, UInt64, UInt64) {
        let last = first + UInt64(length - 1)
        return (Int(first >> 6), Int(last >> 6), UInt64.max << (first & 63), UInt64.max >> (63 - (last & 63)))
    }
}
