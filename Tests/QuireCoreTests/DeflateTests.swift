import QuireCore
import Testing

@Suite("DEFLATE")
struct DeflateTests {
    /// Streams zlib wrote (raw deflate, `compressobj(level, DEFLATED, -15)`), with what they
    /// inflate to: one per block type.
    static let zlibVectors: [(name: String, stream: [UInt8], text: String)] = [
        ("empty, fixed block", [3, 0], ""),
        ("fixed Huffman with an overlapping match", [243, 72, 205, 201, 201, 215, 81, 240, 192, 164, 20, 1],
         "Hello, Hello, Hello, Hello!"),
        ("stored block", [1, 3, 0, 252, 255, 97, 98, 99], "abc"),
        ("dynamic Huffman", [
            181, 202, 71, 1, 128, 48, 12, 0, 64, 43, 81, 128, 154, 26, 232, 158, 52, 221, 75, 61, 24, 224, 201, 251,
            142, 24, 9, 185, 91, 238, 129, 21, 156, 17, 20, 46, 112, 253, 78, 21, 112, 200, 2, 237, 229, 64, 207, 6,
            129, 250, 2, 242, 91, 166, 140, 11, 169, 180, 177, 206, 135, 59, 98, 202, 165, 182, 62, 230, 218, 231, 91, 30],
         String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 3)
            + String(repeating: "abcdefghijklmnopqrstuvwxyz", count: 2)),
    ]

    @Test("streams zlib wrote inflate to their text", arguments: zlibVectors.indices)
    func zlibStreams(_ index: Int) throws {
        let vector = Self.zlibVectors[index]
        #expect(try Inflate.inflate(vector.stream, count: vector.text.utf8.count) == Array(vector.text.utf8), "\(vector.name)")
    }

    static func inputs() -> [(name: String, bytes: [UInt8])] {
        var random = SplitMix64(seed: 11)
        let noise = (0..<70_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var words: [UInt8] = []
        let vocabulary = ["the ", "replica ", "merges ", "text ", "offline ", "中文 ", "😀 ", "quire, ", "and\n"]
        while words.count < 300_000 {
            words += Array(vocabulary[Int(random.next() % UInt64(vocabulary.count))].utf8)
        }
        return [
            ("empty", []),
            ("one byte", [42]),
            ("three bytes", Array("abc".utf8)),
            ("a run of one byte (distance-1 matches)", [UInt8](repeating: 7, count: 100_000)),
            ("random bytes (stored blocks)", noise),
            ("words (dynamic blocks, several of them)", words),
            ("noise then words", Array(noise.prefix(5_000)) + words.prefix(50_000)),
        ]
    }

    @Test("deflate then inflate gives the input back, smaller where it repeats", arguments: inputs().indices)
    func roundTrips(_ index: Int) throws {
        let (name, bytes) = Self.inputs()[index]
        let packed = Deflate.deflate(bytes)
        #expect(try Inflate.inflate(packed, count: bytes.count) == bytes, "\(name)")
        // Incompressible input costs at most the stored blocks' headers.
        #expect(packed.count <= bytes.count + 5 * (bytes.count / 32_768 + 2), "\(name)")
        if name.hasPrefix("words") { #expect(packed.count * 3 < bytes.count, "\(name): \(packed.count) bytes") }
        if name.hasPrefix("a run") { #expect(packed.count < 1_000, "\(name): \(packed.count) bytes") }
    }

    @Test("every truncation of a stream throws")
    func truncations() {
        let text = Array(String(repeating: "offline-first text, merged ", count: 40).utf8)
        let packed = Deflate.deflate(text)
        for cut in 0..<packed.count {
            #expect(throws: DecodingError.self) { try Inflate.inflate(packed[..<cut], count: text.count) }
        }
    }

    @Test("a stream that inflates to more or fewer bytes than declared throws")
    func declaredLength() {
        let text = Array("Hello, Hello, Hello, Hello!".utf8)
        let packed = Deflate.deflate(text)
        #expect(throws: DecodingError.self) { try Inflate.inflate(packed, count: text.count - 1) }
        #expect(throws: DecodingError.self) { try Inflate.inflate(packed, count: text.count + 1) }
        #expect(throws: DecodingError.self) { try Inflate.inflate(packed, count: 0) }
    }

    @Test("a declared length no stream of that size could produce throws before allocating")
    func declaredLengthBomb() {
        // 2 bytes could at most inflate to about 2 KiB: a terabyte is refused up front.
        do {
            _ = try Inflate.inflate([3, 0], count: 1 << 40)
            Issue.record("a terabyte from two bytes was accepted")
        } catch {
            #expect(error.problem.contains("cannot inflate"))
        }
        #expect(throws: DecodingError.self) { try Inflate.inflate([3, 0], count: -1) }
    }

    /// Each is wrong in exactly one way (zlib refuses the last two with "invalid distance
    /// too far back" and "invalid code lengths set").
    static let malformedStreams: [(name: String, stream: [UInt8], count: Int)] = [
        ("reserved block type", [0b111], 0),
        ("stored length without its complement", [1, 3, 0, 0, 0, 97, 98, 99], 3),
        ("stored block longer than the input", [1, 9, 0, 246, 255, 97, 98, 99], 3),
        ("bytes after the final block", [3, 0, 0], 0),
        ("no final block", [2, 0], 0),
        // Fixed block: literal "a", then a 3-byte match at distance 2.
        ("match reaching before the start", [75, 4, 66, 0], 4),
        // Dynamic block whose 19 code-length codes are all one bit long.
        ("over-subscribed code-length code", [5, 224, 147, 36, 73, 146, 36, 73, 146, 0, 0, 0], 1),
    ]

    @Test("malformed streams throw", arguments: malformedStreams.indices)
    func malformed(_ index: Int) {
        let (name, stream, count) = Self.malformedStreams[index]
        #expect(throws: DecodingError.self, "\(name)") { try Inflate.inflate(stream, count: count) }
    }

    @Test("random bytes never crash the inflater")
    func randomStreams() {
        var random = SplitMix64(seed: 3)
        for round in 0..<2_000 {
            let count = 1 + Int(random.next() % 64)
            var stream = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if round % 2 == 0 { stream[0] = stream[0] & ~0b110 | 0b100 }  // mostly dynamic blocks
            _ = try? Inflate.inflate(stream, count: Int(random.next() % 512))
        }
    }
}
