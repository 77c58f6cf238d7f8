import LMDB
import QuireCore
import Testing

@Suite("Order-preserving key encoding")
struct KeyEncodingTests {
    private func expectOrderPreserved<T: Comparable & KeyComponent>(_ values: [T]) {
        for (a, b) in zip(values, values.dropFirst()) {
            #expect((a < b) == (Key(a) < Key(b)), "order of \(a) and \(b)")
            #expect((a == b) == (Key(a) == Key(b)))
        }
    }

    @Test("unsigned integers sort as numbers")
    func unsignedOrder() {
        var random = SplitMix64(seed: 1)
        var values: [UInt64] = [0, 1, 255, 256, .max, .max - 1]
        values += (0..<500).map { _ in random.next() >> (random.next() % 64) }
        expectOrderPreserved(values.shuffled(using: &random))
        #expect(Key(UInt32(0x0102_0304)).bytes == [1, 2, 3, 4])
    }

    @Test("signed integers sort as numbers, negatives first")
    func signedOrder() {
        var random = SplitMix64(seed: 2)
        var values: [Int64] = [.min, -1, 0, 1, .max, .min + 1]
        values += (0..<500).map { _ in Int64(bitPattern: random.next()) >> Int64(random.next() % 64) }
        expectOrderPreserved(values.shuffled(using: &random))
        expectOrderPreserved([Int8.min, -1, 0, 1, Int8.max, -100, 100])
    }

    @Test("strings and byte strings sort bytewise, prefixes first, zeros included")
    func stringOrder() {
        expectOrderPreserved(["", "a", "ab", "abc", "b", "Zebra", "zebra", "é", "日本", "a\u{0}b", "a\u{0}"].shuffled())
        let byteStrings: [[UInt8]] = [[], [0], [0, 0], [0, 1], [0, 0xFF], [1], [0xFF], [0xFF, 0]]
        for a in byteStrings {
            for b in byteStrings {
                #expect(a.lexicographicallyPrecedes(b) == (Key(a) < Key(b)), "\(a) vs \(b)")
            }
        }
    }

    @Test("composite keys sort by the first component, then the next")
    func compositeOrder() {
        let pairs: [(String, UInt64)] = [("a", 2), ("a", 10), ("ab", 0), ("b", 1), ("", 99)]
        for a in pairs {
            for b in pairs {
                let logical = a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
                #expect(logical == (Key(a.0, a.1) < Key(b.0, b.1)), "\(a) vs \(b)")
            }
        }
    }

    @Test("components read back exactly as written")
    func roundTrip() throws {
        let key = Key(UInt64(42), Int32(-7), "naïve\u{0}text", [UInt8]([0, 0xFF, 0]), UInt8(9))
        var reader = KeyReader(key)
        #expect(try reader.read(UInt64.self) == 42)
        #expect(try reader.read(Int32.self) == -7)
        #expect(try reader.read(String.self) == "naïve\u{0}text")
        #expect(try reader.read([UInt8].self) == [0, 0xFF, 0])
        #expect(try reader.read(UInt8.self) == 9)
        try reader.finish()
    }

    @Test("malformed keys throw errors naming the byte offset")
    func malformed() {
        var short = KeyReader([UInt8]([1, 2, 3]))
        #expect(throws: KeyReader.DecodingError.self) { try short.read(UInt64.self) }

        var unterminated = KeyReader([UInt8](Array("abc".utf8)))
        #expect(throws: KeyReader.DecodingError.self) { try unterminated.read(String.self) }

        var badEscape = KeyReader([UInt8]([0x61, 0x00, 0x05]))
        do {
            _ = try badEscape.read([UInt8].self)
            Issue.record("a bad escape was accepted")
        } catch {
            #expect(error.offset == 1)
            #expect(error.description.contains("byte 1"))
        }

        var badUTF8 = KeyReader(Key([UInt8]([0xC3, 0x28])))
        #expect(throws: KeyReader.DecodingError.self) { try badUTF8.read(String.self) }

        var trailing = KeyReader(Key(UInt8(1), UInt8(2)))
        #expect(throws: Never.self) { try trailing.read(UInt8.self) }
        #expect(throws: KeyReader.DecodingError.self) { try trailing.finish() }
    }

    @Test("compact integers sort as numbers, take as few bytes as they need, and refuse other encodings")
    func compactIntegers() throws {
        let values: [UInt64] = [0, 1, 255, 256, 65_535, 65_536, 1 << 40, .max - 1, .max]
        let keys = values.map { Key(CompactInteger($0), UInt8(7)) }
        #expect(keys == keys.sorted())
        #expect(Key(CompactInteger(0)).bytes == [0])
        #expect(Key(CompactInteger(300)).bytes == [2, 1, 44])
        for value in values {
            var reader = KeyReader(Key(CompactInteger(value), UInt8(7)))
            #expect(try reader.read(CompactInteger.self).value == value)
            #expect(try reader.read(UInt8.self) == 7)
            try reader.finish()
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let a = random.next() >> (random.next() % 64), b = random.next() >> (random.next() % 64)
            #expect((Key(CompactInteger(a)) < Key(CompactInteger(b))) == (a < b))
        }
        for bad: [UInt8] in [[9, 1, 1, 1, 1, 1, 1, 1, 1, 1], [2, 0, 5], [3, 1, 2], []] {
            var reader = KeyReader(bad)
            #expect(throws: KeyReader.DecodingError.self) { try reader.read(CompactInteger.self) }
        }
    }
}
