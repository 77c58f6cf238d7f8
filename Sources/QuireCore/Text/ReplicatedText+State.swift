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
                        guard byteStart <= UInt64(content.count), utf8Count <= UInt64(content.count) - byteStart,
                            length <= utf8Count
                        else {
                            throw DecodingError.malformed("log entry content outside the agent's content", at: start)
                        }
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
            let runCount = try reader.readCount("runs", limit: 1 << 32, minimumElementSize: 5)
            // Runs are decoded straight into the tree's leaf layout.
            let perLeaf = RunTree.bulkRunsPerLeaf
            runs.reserveCapacity((runCount / perLeaf + 1) * RunTree.leafCapacity)
            var decoded = 0
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
                runs.append(TextRun(
                    agent: Int32(agent), isDeleted: flags & 1 != 0, counter: counter, length: Int(length),
                    utf16Count: utf16, utf8Count: byte - Int(byteStart), byteStart: Int(byteStart),
                    originLeft: originLeft, rightParent: rightParent))
                decoded += 1
                if decoded % perLeaf == 0 {
                    runs.append(contentsOf: repeatElement(RunTree.emptyRun, count: RunTree.leafCapacity - perLeaf))
                }
            }
            guard reader.isAtEnd else {
                throw DecodingError.malformed("\(reader.remaining) unexpected trailing bytes", at: reader.offset)
            }
            let partial = decoded % perLeaf
            if partial > 0 {
                runs.append(contentsOf: repeatElement(RunTree.emptyRun, count: RunTree.leafCapacity - partial))
            }
            guard let tree = RunTree.bulkLoaded(slots: runs, runCount: decoded, replicas: replicas, content: contents)
            else { throw DecodingError.malformed("two runs hold the same character", at: 0) }
            try Self.validate(tree, runs: runs, logs: logs)
            self.init(replica: replica, tree: tree, logs: logs, counters: counters)
        } catch {
            throw TextError.malformed(error)
        }
    }

    /// Checks, on the loaded tree, that the runs hold every inserted item exactly once and
    /// that every reference (origins, deletion targets) names an inserted item. O(1) per
    /// reference through the tree's ID index; O(characters) for the coverage check.
    private static func validate(_ tree: RunTree, runs: [TextRun], logs: [[LogEntry]]) throws(DecodingError) {
        let placed = runs.reduce(0) { $0 + $1.length }  // padding slots have length 0
        var inserted = 0
        for (agent, log) in logs.enumerated() {
            for entry in log {
                switch entry {
                case .insert(let record):
                    inserted += record.length
                    guard record.originLeft.isNone || tree.contains(record.originLeft),
                        record.rightParent.isNone || tree.contains(record.rightParent)
                    else { throw DecodingError.malformed("an insertion refers to a character that does not exist", at: 0) }
                case .delete(let record):
                    // A deletion's own counters are not characters: no run may hold them.
                    guard tree.containsNone(ItemRef(agent: Int32(agent), counter: record.counter), count: record.length) else {
                        throw DecodingError.malformed("a run holds a deletion's counter", at: 0)
                    }
                    let span = UInt64(record.length - 1)
                    guard !record.isBackward || record.target.counter >= span else {
                        throw DecodingError.malformed("a backward deletion runs before counter 0", at: 0)
                    }
                    let first = record.isBackward ? record.target.counter - span : record.target.counter
                    guard tree.contains(ItemRef(agent: record.target.agent, counter: first)),
                        tree.contains(ItemRef(agent: record.target.agent, counter: first &+ span))
                    else { throw DecodingError.malformed("a deletion targets a character that does not exist", at: 0) }
                }
            }
        }
        // No run holds a deletion's counter, none holds an item twice (bulk loading checked),
        // every counter is an insertion's or a deletion's (logs are contiguous), and the
        // totals agree: the runs tile the insertions exactly.
        guard placed == inserted else { throw DecodingError.malformed("the runs do not match the inserted characters", at: 0) }
        for run in runs where run.agent >= 0 {
            guard run.originLeft.isNone || tree.contains(run.originLeft),
                run.rightParent.isNone || tree.contains(run.rightParent)
            else { throw DecodingError.malformed("a run refers to a character that does not exist", at: 0) }
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
