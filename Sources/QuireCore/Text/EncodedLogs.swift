/// The replicas' logs of a loaded state, still encoded: checked in full when the state
/// was loaded, decoded into ``LogEntry`` arrays only when something first needs them.
///
/// Loading a document to read it never touches its history, and the encoded entries
/// take about a seventh of the memory of decoded ones (8.6 bytes an entry on
/// automerge-paper, against 64).
struct EncodedLogs {
    /// The agents' log sections of the state, one after another.
    let bytes: [UInt8]
    /// Agent → where its log starts in `bytes` and how many entries it holds.
    let agents: [(start: Int, entries: Int)]

    /// The bytes it holds on the heap.
    var memoryFootprint: Int { bytes.capacity + agents.capacity * 16 + 64 }

    /// The decoded logs, given the agents' content buffers (which the insertion records
    /// were checked against at load).
    ///
    /// - Complexity: O(log entries + their characters).
    func decoded(contents: [[UInt8]]) -> [[LogEntry]] {
        bytes.withUnsafeBufferPointer { bytes in
            var logs: [[LogEntry]] = []
            logs.reserveCapacity(agents.count)
            for (agent, (start, entries)) in agents.enumerated() {
                var reader = UnsafeByteReader(bytes)
                reader.skip(to: start)
                var log: [LogEntry] = []
                log.reserveCapacity(entries)
                contents[agent].withUnsafeBufferPointer { content in
                    let ascii = UTF8Scan.isASCII(content)
                    var scanner = LogScanner(agent: agent, agents: agents.count, counterLimit: .max, content: content, isASCII: ascii)
                    do throws(DecodingError) {
                        for _ in 0..<entries { log.append(try scanner.next(&reader)) }
                    } catch {
                        // The same scanner accepted these bytes at load and nothing has
                        // changed them since.
                        preconditionFailure("a validated text log no longer decodes: \(error)")
                    }
                }
                logs.append(log)
            }
            return logs
        }
    }
}

/// Reads one agent's log entries from the state encoding, checking each one's shape: the
/// entries continue one another from counter 0, stay within the agent's counters, and
/// insertions tile the agent's content exactly, each holding its characters' UTF-8.
/// References are read but not resolved (the caller checks them against the insertions).
struct LogScanner {
    let agent: Int
    let agents: Int
    /// The agent's next counter, which no entry reaches past.
    let counterLimit: UInt64
    let content: UnsafeBufferPointer<UInt8>
    let isASCII: Bool
    /// The counter after the last entry read.
    private(set) var counter: UInt64 = 0
    /// The content bytes the insertions read so far cover.
    private(set) var contentEnd: UInt64 = 0

    init(agent: Int, agents: Int, counterLimit: UInt64, content: UnsafeBufferPointer<UInt8>, isASCII: Bool) {
        self.agent = agent
        self.agents = agents
        self.counterLimit = counterLimit
        self.content = content
        self.isASCII = isASCII
    }

    /// Reads the next entry.
    @inline(__always)
    mutating func next(_ reader: inout UnsafeByteReader) throws(DecodingError) -> LogEntry {
        let start = reader.offset
        let flags = try reader.readByte("entry flags")
        let gap = try reader.readVarint("entry counter")
        guard gap == 0 else { throw DecodingError.malformed("log entries of agent \(agent) are not contiguous", at: start) }
        let length = try reader.readVarint("entry length")
        guard length >= 1, length <= UInt64(TextOperationCoding.maximumRunLength),
            counter <= counterLimit, length <= counterLimit - counter
        else { throw DecodingError.malformed("log entry outside the agent's counters", at: start) }
        let entry: LogEntry
        if flags & 1 == 0 {
            let originLeft = try reader.readReference(kind: (flags >> 1) & 3, agent: agent, from: counter, agents: agents)
            let rightParent = try reader.readReference(kind: (flags >> 3) & 3, agent: agent, from: counter, agents: agents)
            let byteStart = try reader.readVarint("content offset")
            let utf8Count = try reader.readVarint("content length")
            guard byteStart == contentEnd, utf8Count <= UInt64(content.count) - byteStart, length <= utf8Count else {
                throw DecodingError.malformed("log entry content outside the agent's content", at: start)
            }
            // The content is valid UTF-8 and the insertions tile it: each must start on a
            // character and hold exactly its characters.
            guard isASCII ? utf8Count == length
                : utf8Count == 0 || content[Int(byteStart)] & 0xC0 != 0x80
                    && UTF8Scan.scalarCount(of: content[Int(byteStart)..<Int(byteStart + utf8Count)]) == Int(length)
            else {
                throw DecodingError.malformed("log entry content is not its \(length) characters", at: start)
            }
            contentEnd += utf8Count
            entry = .insert(InsertRecord(
                counter: counter, length: Int(length), originLeft: originLeft, rightParent: rightParent,
                byteStart: Int(byteStart), utf8Count: Int(utf8Count)))
        } else {
            let targetAgent = try reader.readVarint("target agent")
            let targetCounter = try reader.readVarint("target counter")
            guard targetAgent < UInt64(agents) else {
                throw DecodingError.malformed("deletion target agent \(targetAgent) unknown", at: start)
            }
            entry = .delete(DeleteRecord(
                counter: counter, length: Int(length),
                target: ItemRef(agent: Int32(targetAgent), counter: targetCounter), isBackward: flags & 2 != 0))
        }
        counter += length
        return entry
    }
}

extension UnsafeByteReader {
    /// Reads an item reference of the state encoding: `kind` 0 none, 1 the same agent
    /// (signed distance back from `counter`), 2 another agent (agent · counter).
    @inline(__always)
    mutating func readReference(kind: UInt8, agent: Int, from counter: UInt64, agents: Int) throws(DecodingError) -> ItemRef {
        switch kind {
        case 0: return .none
        case 1:
            let distance = try readSignedVarint("reference")
            return ItemRef(agent: Int32(agent), counter: UInt64(bitPattern: Int64(bitPattern: counter) &- distance))
        default:
            return try readOtherAgentReference(kind: kind, agents: agents)
        }
    }

    @inline(never)
    private mutating func readOtherAgentReference(kind: UInt8, agents: Int) throws(DecodingError) -> ItemRef {
        guard kind == 2 else { throw DecodingError.malformed("reference kind \(kind)", at: offset) }
        let start = offset
        let other = try readVarint("reference agent")
        guard other < UInt64(agents) else { throw DecodingError.malformed("reference agent \(other) unknown", at: start) }
        return ItemRef(agent: Int32(other), counter: try readVarint("reference counter"))
    }
}
