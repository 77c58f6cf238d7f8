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
    private static let stateFormat: UInt8 = 1

    /// Encodes the whole state. O(n) in runs and log entries.
    public func encodedState() -> [UInt8] {
        var writer = ByteWriter()
        writer.write(byte: Self.stateFormat)
        writer.write(varint: UInt64(tree.replicas.count))
        for (agent, replica) in tree.replicas.enumerated() {
            writer.write(raw: withUnsafeBytes(of: replica.rawValue.littleEndian) { Array($0) })
            writer.write(varint: nextCounter[agent])
            writer.write(lengthPrefixed: tree.content[agent])
            writer.write(varint: UInt64(logs[agent].count))
            var previousEnd: UInt64 = 0
            for entry in logs[agent] {
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
        writer.write(varint: UInt64(tree.runCount))
        tree.forEachRun { run in
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
        return writer.bytes
    }

    /// Loads a text from ``encodedState()``, to be edited as `replica`.
    ///
    /// - Throws: ``TextError/malformed(_:)`` when the bytes are not a valid state.
    /// - Complexity: O(n) in runs, log entries and characters; no history is replayed.
    public convenience init(replica: ReplicaID, state: [UInt8]) throws(TextError) {
        var reader = ByteReader(state)
        var replicas: [ReplicaID] = []
        var contents: [[UInt8]] = []
        var counters: [UInt64] = []
        var logs: [[LogEntry]] = []
        var runs: [TextRun] = []
        var asciiAgents: [Bool] = []
        var seenReplicas: Set<ReplicaID> = []
        do throws(DecodingError) {
            let format = try reader.readByte("format")
            guard format == Self.stateFormat else {
                throw DecodingError.malformed("unsupported text state format \(format)", at: 0)
            }
            let agentCount = try reader.readCount("agents", limit: 1 << 16, minimumElementSize: 11)
            for agent in 0..<agentCount {
                let idStart = reader.offset
                let raw = try reader.readBytes(8, "replica ID")
                let replicaID = ReplicaID(raw.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                guard seenReplicas.insert(replicaID).inserted else {
                    throw DecodingError.malformed("replica \(replicaID) appears twice", at: idStart)
                }
                replicas.append(replicaID)
                counters.append(try reader.readVarint("next counter"))
                let contentStart = reader.offset
                let content = Array(try reader.readLengthPrefixed("content", limit: Int(Int32.max)))
                let ascii = UTF8Scan.isASCII(content)
                guard ascii || String(validating: content, as: UTF8.self) != nil else {
                    throw DecodingError.malformed("content of agent \(agent) is not UTF-8", at: contentStart)
                }
                contents.append(content)
                asciiAgents.append(ascii)
                let entryCount = try reader.readCount("log entries", limit: 1 << 32, minimumElementSize: 3)
                var log: [LogEntry] = []
                log.reserveCapacity(entryCount)
                var previousEnd: UInt64 = 0
                var contentEnd: UInt64 = 0  // an agent's content is its insertions' UTF-8, in counter order
                for _ in 0..<entryCount {
                    let start = reader.offset
                    let flags = try reader.readByte("entry flags")
                    let gap = try reader.readVarint("entry counter")
                    guard gap == 0 else { throw DecodingError.malformed("log entries of agent \(agent) are not contiguous", at: start) }
                    let counter = previousEnd
                    let length = try reader.readVarint("entry length")
                    guard length >= 1, length <= UInt64(TextOperationCoding.maximumRunLength),
                        counter <= counters[agent], length <= counters[agent] - counter
                    else { throw DecodingError.malformed("log entry outside the agent's counters", at: start) }
                    if flags & 1 == 0 {
                        let originLeft = try Self.readReference(kind: (flags >> 1) & 3, agent: agent, from: counter, agents: agentCount, &reader)
                        let rightParent = try Self.readReference(kind: (flags >> 3) & 3, agent: agent, from: counter, agents: agentCount, &reader)
                        let byteStart = try reader.readVarint("content offset")
                        let utf8Count = try reader.readVarint("content length")
                        guard byteStart == contentEnd, utf8Count <= UInt64(content.count) - byteStart,
                            length <= utf8Count
                        else {
                            throw DecodingError.malformed("log entry content outside the agent's content", at: start)
                        }
                        // The content is valid UTF-8 and the insertions tile it: each must
                        // start on a character and hold exactly its characters.
                        guard ascii ? utf8Count == length
                            : utf8Count == 0 || content[Int(byteStart)] & 0xC0 != 0x80
                                && UTF8Scan.scalarCount(of: content[Int(byteStart)..<Int(byteStart + utf8Count)]) == Int(length)
                        else {
                            throw DecodingError.malformed("log entry content is not its \(length) characters", at: start)
                        }
                        contentEnd += utf8Count
                        log.append(.insert(InsertRecord(
                            counter: counter, length: Int(length), originLeft: originLeft, rightParent: rightParent,
                            byteStart: Int(byteStart), utf8Count: Int(utf8Count))))
                    } else {
                        let targetAgent = try reader.readVarint("target agent")
                        let targetCounter = try reader.readVarint("target counter")
                        guard targetAgent < UInt64(agentCount) else {
                            throw DecodingError.malformed("deletion target agent \(targetAgent) unknown", at: start)
                        }
                        log.append(.delete(DeleteRecord(
                            counter: counter, length: Int(length),
                            target: ItemRef(agent: Int32(targetAgent), counter: targetCounter), isBackward: flags & 2 != 0)))
                    }
                    previousEnd = counter + length
                }
                guard contentEnd == UInt64(content.count) else {
                    throw DecodingError.malformed("the insertions of agent \(agent) do not cover its content", at: reader.offset)
                }
                guard previousEnd == counters[agent] else {
                    throw DecodingError.malformed("the log of agent \(agent) does not reach its counter", at: reader.offset)
                }
                logs.append(log)
            }
            // Bound every counter by the characters the state holds before anything is sized
            // by counters: a replica deletes each character at most once, so its deletions
            // never outnumber all insertions, and its counters stay below twice the content.
            var insertedTotal: UInt64 = 0
            for log in logs {
                for case .insert(let record) in log { insertedTotal += UInt64(record.length) }
            }
            for (agent, log) in logs.enumerated() {
                var deleted: UInt64 = 0
                for case .delete(let record) in log { deleted += UInt64(record.length) }
                guard deleted <= insertedTotal else {
                    throw DecodingError.malformed("agent \(agent) deletes more characters than were ever inserted", at: reader.offset)
                }
            }
            // Which counters are insertions, per agent: a bit each (the counters are bounded
            // above), against which every reference and every run is checked.
            var insertions = counters.map { CounterSet(count: $0) }
            // The ID index, agent → counter → leaf, up to the agent's last insertion.
            var index: [[Int32]] = []
            for (agent, log) in logs.enumerated() {
                var end: UInt64 = 0
                for case .insert(let record) in log {
                    insertions[agent].insert(record.counter, count: record.length)
                    end = record.counter + UInt64(record.length)
                }
                index.append([Int32](repeating: -1, count: Int(end)))
            }
            try Self.validateLogs(logs, insertions: insertions)
            // Runs claim their items here: each inserted item exactly once.
            var unclaimed = insertions
            let runCount = try reader.readCount("runs", limit: 1 << 32, minimumElementSize: 5)
            // Runs are decoded straight into the tree's leaf layout.
            let perLeaf = RunTree.bulkRunsPerLeaf
            runs.reserveCapacity((runCount / perLeaf + 1) * RunTree.leafCapacity)
            var decoded = 0
            var placed = 0
            var leafCounts: [TextCounts] = []
            leafCounts.reserveCapacity(runCount / perLeaf + 1)
            var counts = TextCounts()
            for _ in 0..<runCount {
                let start = reader.offset
                let flags = try reader.readByte("run flags")
                let agentValue = try reader.readVarint("run agent")
                guard agentValue < UInt64(agentCount) else {
                    throw DecodingError.malformed("run agent \(agentValue) unknown", at: start)
                }
                let agent = Int(agentValue)
                let counter = try reader.readVarint("run counter")
                let length = try reader.readVarint("run length")
                let byteStart = try reader.readVarint("run content offset")
                guard length >= 1, length <= UInt64(TextOperationCoding.maximumRunLength),
                    counter <= counters[agent], length <= counters[agent] - counter,
                    byteStart <= UInt64(contents[agent].count)
                else { throw DecodingError.malformed("run outside the agent's counters or content", at: start) }
                let originLeft = try Self.readReference(kind: (flags >> 1) & 3, agent: agent, from: counter, agents: agentCount, &reader)
                let rightParent = try Self.readReference(kind: (flags >> 3) & 3, agent: agent, from: counter, agents: agentCount, &reader)
                guard unclaimed[agent].remove(counter, count: Int(length)) else {
                    throw DecodingError.malformed("a run holds characters that are not insertions, or that another run holds", at: start)
                }
                guard originLeft.isNone || insertions[Int(originLeft.agent)].contains(originLeft.counter),
                    rightParent.isNone || insertions[Int(rightParent.agent)].contains(rightParent.counter)
                else { throw DecodingError.malformed("a run refers to a character that does not exist", at: start) }
                // Measure the run's characters in the content, checking they are there
                // (ASCII content: one byte, one UTF-16 unit per character).
                let (byte, utf16) = asciiAgents[agent]
                    ? (Int(byteStart) + Int(length), Int(length))
                    : contents[agent].withUnsafeBufferPointer { content -> (Int, Int) in
                    var byte = Int(byteStart)
                    var utf16 = 0
                    for _ in 0..<length {
                        guard byte < content.count else { return (Int.max, 0) }
                        let width = UTF8Scan.sequenceLength(leading: content[byte])
                        utf16 += width == 4 ? 2 : 1
                        byte += width
                    }
                    return (byte, utf16)
                }
                guard byte <= contents[agent].count else {
                    throw DecodingError.malformed("run content runs past the agent's content", at: start)
                }
                placed += Int(length)
                let leaf = Int32(decoded / perLeaf)
                index[agent].withUnsafeMutableBufferPointer { table in
                    UnsafeMutableBufferPointer(rebasing: table[Int(counter)..<Int(counter + length)]).update(repeating: leaf)
                }
                let run = TextRun(
                    agent: Int32(agent), isDeleted: flags & 1 != 0, counter: counter, length: Int(length),
                    utf16Count: utf16, utf8Count: byte - Int(byteStart), byteStart: Int(byteStart),
                    originLeft: originLeft, rightParent: rightParent)
                runs.append(run)
                counts += run.counts
                decoded += 1
                if decoded % perLeaf == 0 {
                    runs.append(contentsOf: repeatElement(RunTree.emptyRun, count: RunTree.leafCapacity - perLeaf))
                    leafCounts.append(counts)
                    counts = TextCounts()
                }
            }
            guard reader.isAtEnd else {
                throw DecodingError.malformed("\(reader.remaining) unexpected trailing bytes", at: reader.offset)
            }
            let partial = decoded % perLeaf
            if partial > 0 {
                runs.append(contentsOf: repeatElement(RunTree.emptyRun, count: RunTree.leafCapacity - partial))
                leafCounts.append(counts)
            }
            // Every run's items are distinct insertions (claimed once each): if as many are
            // placed as were inserted, the runs hold every insertion exactly once.
            let inserted = insertions.reduce(0) { $0 + $1.count }
            guard placed == inserted else {
                throw DecodingError.malformed("the runs hold \(placed) characters, the logs inserted \(inserted)", at: reader.offset)
            }
            let tree = RunTree.bulkLoaded(
                slots: runs, runCount: decoded, leafCounts: leafCounts, index: index, replicas: replicas, content: contents)
            self.init(replica: replica, tree: tree, logs: logs, counters: counters)
        } catch {
            throw TextError.malformed(error)
        }
    }

    /// Checks that every reference in the logs names an inserted character: insertions'
    /// origins and both ends of every deletion's targets. O(log entries).
    private static func validateLogs(_ logs: [[LogEntry]], insertions: [CounterSet]) throws(DecodingError) {
        for log in logs {
            for entry in log {
                switch entry {
                case .insert(let record):
                    guard record.originLeft.isNone || insertions[Int(record.originLeft.agent)].contains(record.originLeft.counter),
                        record.rightParent.isNone || insertions[Int(record.rightParent.agent)].contains(record.rightParent.counter)
                    else { throw DecodingError.malformed("an insertion refers to a character that does not exist", at: 0) }
                case .delete(let record):
                    let span = UInt64(record.length - 1)
                    guard !record.isBackward || record.target.counter >= span else {
                        throw DecodingError.malformed("a backward deletion runs before counter 0", at: 0)
                    }
                    let first = record.isBackward ? record.target.counter - span : record.target.counter
                    let targets = insertions[Int(record.target.agent)]
                    guard first <= UInt64.max - span, targets.contains(first), targets.contains(first + span) else {
                        throw DecodingError.malformed("a deletion targets a character that does not exist", at: 0)
                    }
                }
            }
        }
    }

    private static func kind(_ ref: ItemRef, agent: Int) -> UInt8 {
        ref.isNone ? 0 : Int(ref.agent) == agent ? 1 : 2
    }

    private static func write(_ ref: ItemRef, kind: UInt8, from counter: UInt64, to writer: inout ByteWriter) {
        switch kind {
        case 0: return
        case 1: writer.write(signedVarint: Int64(bitPattern: counter &- ref.counter))
        default:
            writer.write(varint: UInt64(ref.agent))
            writer.write(varint: ref.counter)
        }
    }

    @inline(__always)
    private static func readReference(
        kind: UInt8, agent: Int, from counter: UInt64, agents: Int, _ reader: inout ByteReader
    ) throws(DecodingError) -> ItemRef {
        switch kind {
        case 0: return .none
        case 1:
            let distance = try reader.readSignedVarint("reference")
            return ItemRef(agent: Int32(agent), counter: UInt64(bitPattern: Int64(bitPattern: counter) &- distance))
        case 2:
            let start = reader.offset
            let other = try reader.readVarint("reference agent")
            guard other < UInt64(agents) else { throw DecodingError.malformed("reference agent \(other) unknown", at: start) }
            return ItemRef(agent: Int32(other), counter: try reader.readVarint("reference counter"))
        default:
            throw DecodingError.malformed("reference kind \(kind)", at: reader.offset)
        }
    }
}

/// A set of one agent's counters, a bit each, for validating a loaded state.
private struct CounterSet {
    private var words: [UInt64]
    private let limit: UInt64
    /// The number of counters in the set.
    private(set) var count = 0

    /// An empty set for counters below `count` (the caller has bounded it).
    init(count: UInt64) {
        limit = count
        words = [UInt64](repeating: 0, count: Int((count + 63) / 64))
    }

    @inline(__always)
    func contains(_ counter: UInt64) -> Bool {
        counter < limit && words[Int(counter >> 6)] & (1 << (counter & 63)) != 0
    }

    /// Adds the `length` counters from `first`, which are below the limit.
    mutating func insert(_ first: UInt64, count length: Int) {
        guard length > 0 else { return }
        let (start, end, head, tail) = Self.span(first, length)
        words.withUnsafeMutableBufferPointer { words in
            if start == end {
                words[start] |= head & tail
                return
            }
            words[start] |= head
            for index in start + 1..<end { words[index] = .max }
            words[end] |= tail
        }
        count += length
    }

    /// Removes the `length` counters from `first` if all of them are in the set; returns
    /// whether they were (and removes nothing if not).
    mutating func remove(_ first: UInt64, count length: Int) -> Bool {
        guard length > 0, first < limit, UInt64(length) <= limit - first else { return false }
        let (start, end, head, tail) = Self.span(first, length)
        let removed = words.withUnsafeMutableBufferPointer { words -> Bool in
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
