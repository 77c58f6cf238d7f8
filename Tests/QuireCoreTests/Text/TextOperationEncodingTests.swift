import QuireCore
import Testing

@Suite("Text operation encoding: the content column")
struct TextOperationEncodingTests {
    /// A replica that typed and edited about 60 KB of mixed-script text.
    static func largeDocument() throws -> ReplicatedText {
        let text = ReplicatedText(replica: ReplicaID(0xC0FFEE))
        var random = SeededRandom(seed: 21)
        let words = ["replica ", "merge ", "offline ", "keystroke ", "中文 ", "😀 ", "e\u{301}t\u{301}e\u{301} ", "quire\n"]
        for _ in 0..<8_000 {
            let count = text.count
            if count > 20, random.next() % 5 == 0 {
                let start = Int(random.next() % UInt64(count - 4))
                try text.delete(start..<start + 1 + Int(random.next() % 4))
            } else {
                // Mostly typing at the end, sometimes somewhere else.
                let position = random.next() % 4 == 0 ? Int(random.next() % UInt64(count + 1)) : count
                try text.insert(words[Int(random.next() % UInt64(words.count))], at: position)
            }
        }
        return text
    }

    @Test("a large history round-trips with its content as it is (the container compresses), and merges into the same text")
    func largeHistory() throws {
        let a = try Self.largeDocument()
        let operations = a.operations(since: VersionVector())
        let bytes = TextOperationCoding.encode(operations)
        let utf8 = operations.reduce(0) { total, operation in
            if case .insert(let insertion) = operation { return total + insertion.utf8.count }
            return total
        }
        #expect(bytes[0] & 1 == 0, "the deflated bit is not set")
        var content: [UInt8] = []
        for case .insert(let insertion) in operations { content += insertion.utf8 }
        #expect(content.count == utf8)
        #expect(Array(bytes.suffix(utf8)) == content, "the content column ends the encoding, as it is")
        #expect(try TextOperationCoding.decode(bytes) == operations)
        let b = ReplicatedText(replica: ReplicaID(2))
        try b.applyEncoded(bytes)
        #expect(b.string == a.string)
        #expect(b.version == a.version)
    }

    @Test("a keystroke after a large document is still a few bytes")
    func keystroke() throws {
        let a = try Self.largeDocument()
        let before = a.version
        try a.insert("x", at: a.count / 2)
        let delta = a.encodedOperations(since: before)
        #expect(delta.count <= 24, "\(delta.count) bytes")
        #expect(delta[0] & 1 == 0)
        let deletion = a.version
        try a.delete(3..<4)
        #expect(a.encodedOperations(since: deletion).count <= 24)
    }

    @Test("every truncation, and every broken UTF-8 in a history's content, throws; no corruption crashes")
    func malformedColumn() throws {
        let text = ReplicatedText(replica: ReplicaID(5))
        var random = SeededRandom(seed: 9)
        let words = ["typing ", "offline ", "merging ", "later ", "中文 ", "😀 ", "quire ", "text\n"]
        let typed = (0..<400).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined()
        try text.insert(typed, at: 0)
        try text.delete(10..<20)
        let bytes = text.encodedOperations(since: VersionVector())
        for cut in 0..<bytes.count {
            let b = ReplicatedText(replica: ReplicaID(2))
            #expect(throws: TextError.self) { try b.applyEncoded(Array(bytes[..<cut])) }
            #expect(b.string.isEmpty)
        }
        // A flipped high bit in the content column never leaves valid UTF-8 of the same
        // characters behind: always refused.
        let contentStart = bytes.count - typed.utf8.count  // deleted characters keep their text: all of it is there
        for _ in 0..<200 {
            var corrupted = bytes
            corrupted[contentStart + Int(random.next() % UInt64(bytes.count - contentStart))] ^= 0x80
            let b = ReplicatedText(replica: ReplicaID(2))
            #expect(throws: TextError.self) { try b.applyEncoded(corrupted) }
            #expect(b.string.isEmpty)
        }
        // Any corruption anywhere: refused, or decoded; never a crash.
        for _ in 0..<500 {
            var corrupted = bytes
            corrupted[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            _ = try? ReplicatedText(replica: ReplicaID(2)).applyEncoded(corrupted)
        }
    }

    /// The operation headers of one replica's insertions whose UTF-8 lengths add up to
    /// `count` × `bytesEach`, followed by `column`.
    static func insertions(count: Int, characters: Int, bytesEach: Int, deflated: Bool, column: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(varint: 1 << 1 | (deflated ? 1 : 0))
        writer.write(raw: [1, 0, 0, 0, 0, 0, 0, 0])
        writer.write(varint: UInt64(count))
        for _ in 0..<count {
            let ascii = bytesEach == characters
            writer.write(byte: ascii ? 1 << 5 : 0)  // insertion, no references
            writer.write(varint: 0)  // replica 0
            writer.write(signedVarint: 0)  // right after the previous one
            writer.write(varint: UInt64(characters))
            if !ascii { writer.write(varint: UInt64(bytesEach)) }
        }
        writer.write(raw: column)
        return writer.bytes
    }

    @Test("a content length the bytes do not hold, or past the limit, is refused before allocating")
    func contentBomb() {
        // 16 Mi characters declared, two bytes to hold them.
        let bomb = Self.insertions(
            count: 1, characters: TextOperationCoding.maximumRunLength, bytesEach: TextOperationCoding.maximumRunLength,
            deflated: false, column: [3, 0])
        do {
            _ = try TextOperationCoding.decode(bomb)
            Issue.record("16 Mi characters in two bytes were accepted")
        } catch {
            #expect("\(error)".contains("content is 2 bytes, the insertions need 16777216"), "\(error)")
        }
        // Past the content limit: refused while reading the headers.
        let tooMuch = Self.insertions(
            count: 5, characters: TextOperationCoding.maximumRunLength, bytesEach: 4 * TextOperationCoding.maximumRunLength,
            deflated: false, column: [3, 0])
        do {
            _ = try TextOperationCoding.decode(tooMuch)
            Issue.record("content over the limit was accepted")
        } catch {
            #expect("\(error)".contains("exceeds"), "\(error)")
        }
    }

    static let mismatchedColumns: [(name: String, characters: Int, bytesEach: Int, deflated: Bool, column: [UInt8])] = [
        ("too short", 2, 2, false, Array("abc".utf8)),
        ("too long", 2, 2, false, Array("abcdef".utf8)),
        ("not UTF-8", 2, 2, false, [0x61, 0xFF, 0x62, 0x63]),
        ("non-ASCII in an ASCII insertion", 2, 2, false, Array("aé".utf8) + [0x62]),
        // Valid as a whole, but the first insertion would end inside "é".
        ("split inside a character", 1, 2, false, Array("aéb".utf8)),
        // The reserved bit earlier builds set on a deflated column; this stream is "abcd".
        ("flagged deflated", 2, 2, true, [0x4B, 0x4C, 0x4A, 0x4E, 0x01, 0x00]),
    ]

    @Test("content that does not match the insertions is refused", arguments: mismatchedColumns.indices)
    func mismatchedContent(_ index: Int) {
        let (name, characters, bytesEach, deflated, column) = Self.mismatchedColumns[index]
        let bytes = Self.insertions(count: 2, characters: characters, bytesEach: bytesEach, deflated: deflated, column: column)
        #expect(throws: TextError.self, "\(name)") { try TextOperationCoding.decode(bytes) }
    }

    @Test("well-formed hand-made content decodes")
    func handMade() throws {
        let bytes = Self.insertions(count: 2, characters: 2, bytesEach: 2, deflated: false, column: Array("abcd".utf8))
        let operations = try TextOperationCoding.decode(bytes)
        #expect(operations.count == 2)
        if case .insert(let second) = operations[1] { #expect(second.text == "cd") } else { Issue.record("not an insertion") }
    }

    @Test("a content column flagged deflated (as earlier builds wrote one) is refused, saying so")
    func deflatedColumnRefused() {
        // "abcd" as one raw DEFLATE stream (zlib, fixed Huffman block).
        let bytes = Self.insertions(count: 2, characters: 2, bytesEach: 2, deflated: true, column: [0x4B, 0x4C, 0x4A, 0x4E, 0x01, 0x00])
        do {
            _ = try TextOperationCoding.decode(bytes)
            Issue.record("a deflated column was accepted")
        } catch {
            #expect("\(error)".contains("content column is deflated"), "\(error)")
        }
    }
}
