@testable import QuireCore
import Testing

@Suite("Binary encoding")
struct EncodingTests {
    @Test("varints round-trip at every width, small values in one byte")
    func varints() throws {
        var writer = ByteWriter()
        let values: [UInt64] = [0, 1, 127, 128, 300, 16_383, 16_384, 1 << 35, .max - 1, .max]
        for value in values { writer.write(varint: value) }
        let signed: [Int64] = [0, -1, 1, -64, 63, -65, .min, .max]
        for value in signed { writer.write(signedVarint: value) }
        var reader = ByteReader(writer.bytes)
        for value in values { #expect(try reader.readVarint() == value) }
        for value in signed { #expect(try reader.readSignedVarint() == value) }
        #expect(reader.isAtEnd)

        var small = ByteWriter()
        small.write(varint: 127)
        small.write(signedVarint: -64)
        #expect(small.bytes.count == 2)
    }

    @Test("the unchecked writer writes what ByteWriter writes, and keeps no large slack")
    func uncheckedWriter() throws {
        let values: [UInt64] = [0, 1, 127, 128, 300, 16_383, 16_384, 1 << 35, .max - 1, .max]
        let signed: [Int64] = [0, -1, 1, -64, 63, -65, .min, .max]
        let content = Array("naïve café".utf8)
        var checked = ByteWriter()
        checked.write(byte: 0x7F)
        for value in values { checked.write(varint: value) }
        for value in signed { checked.write(signedVarint: value) }
        checked.write(lengthPrefixed: content)
        checked.write(raw: [1, 2, 3])

        #expect(values.map(UnsafeByteWriter.varintSize) == [1, 1, 1, 2, 2, 2, 3, 6, 10, 10])
        let bound = 1 + (values.count + signed.count + 1) * UnsafeByteWriter.varintSize(.max) + content.count + 3
        for slack in [0, 10 * bound] {
            let unchecked = UnsafeByteWriter.bytes(atMost: bound + slack) { writer in
                writer.checkRoom(for: bound)
                writer.write(byte: 0x7F)
                for value in values { writer.write(varint: value) }
                for value in signed { writer.write(signedVarint: value) }
                writer.write(lengthPrefixed: content)
                [UInt8]([1, 2, 3]).withUnsafeBytes { writer.write(raw: $0) }
            }
            #expect(unchecked == checked.bytes)
        }
        let large = UnsafeByteWriter.bytes(atMost: 1 << 20) { $0.write(byte: 1) }
        #expect(large == [1])
        #expect(large.capacity < 1 << 19, "a bound mostly unused is not kept")
    }

    @Test("a length prefix written after its bytes equals one written before, at every width",
          arguments: [0, 1, 127, 128, 129, 16_383, 16_384, 70_000])
    func lengthPrefixedInPlace(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var before = ByteWriter()
        before.write(byte: 0xAB)
        before.write(lengthPrefixed: payload)
        before.write(byte: 0xCD)
        var after = ByteWriter()
        after.write(byte: 0xAB)
        after.writeLengthPrefixed { writer in
            for chunk in stride(from: 0, to: length, by: 1_000) { writer.write(raw: payload[chunk..<min(length, chunk + 1_000)]) }
        }
        after.write(byte: 0xCD)
        #expect(after.bytes == before.bytes)
        var reader = ByteReader(after.bytes)
        #expect(try reader.readByte() == 0xAB)
        #expect(Array(try reader.readLengthPrefixed("payload")) == payload)
    }

    @Test("truncated, overlong and overflowing varints throw")
    func badVarints() {
        var truncated = ByteReader([0x80, 0x80])
        #expect(throws: DecodingError.self) { try truncated.readVarint() }
        var overlong = ByteReader([UInt8](repeating: 0x80, count: 11) + [0])
        #expect(throws: DecodingError.self) { try overlong.readVarint() }
        var overflow = ByteReader([UInt8](repeating: 0xFF, count: 9) + [0x02])
        #expect(throws: DecodingError.self) { try overflow.readVarint() }
    }

    @Test("counts are checked against the limit and the bytes left before allocating")
    func counts() throws {
        var writer = ByteWriter()
        writer.write(varint: 1_000_000)
        var reader = ByteReader(writer.bytes)
        do {
            _ = try reader.readCount("items", limit: 10)
            Issue.record("a count over the limit was accepted")
        } catch {
            #expect(error.description.contains("exceeds the limit"))
        }
        var short = ByteReader(writer.bytes)
        #expect(throws: DecodingError.self) { try short.readCount("items", limit: .max, minimumElementSize: 1) }
    }

    @Test("strings must be valid UTF-8")
    func strings() throws {
        var writer = ByteWriter()
        writer.write(string: "Chapter 1")  // ASCII: read without validation
        writer.write(string: "Chapter 1 — 😀")
        writer.write(lengthPrefixed: [0x41, 0xC3, 0x28])
        var reader = ByteReader(writer.bytes)
        #expect(try reader.readString("name") == "Chapter 1")
        #expect(try reader.readString("name") == "Chapter 1 — 😀")
        #expect(throws: DecodingError.self) { try reader.readString("name") }
    }

    @Test("version vectors record runs, merge and compare")
    func versionVectors() {
        let a = ReplicaID(1), b = ReplicaID(2)
        var left = VersionVector()
        left.record(OperationID(replica: a, counter: 0), count: 5)
        #expect(left[a] == 5)
        #expect(left.contains(OperationID(replica: a, counter: 4)))
        #expect(!left.contains(OperationID(replica: a, counter: 5)))
        var right = VersionVector([b: 3, a: 2])
        #expect(!left.includes(right))
        right.formUnion(left)
        #expect(right == VersionVector([a: 5, b: 3]))
        #expect(right.includes(left))
        #expect(right.operationCount == 8)
        #expect(Timestamp(lamport: 3, replica: b) > Timestamp(lamport: 3, replica: a))
        #expect(Timestamp(lamport: 4, replica: a) > Timestamp(lamport: 3, replica: b))
    }
}
