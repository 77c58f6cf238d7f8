@testable import QuireCore
import Testing

@Suite("Inserted bytes: short insertions inline, long ones in an array")
struct InsertedBytesTests {
    /// Every length from empty to well past the inline capacity, with bytes that differ
    /// at every position, so a byte lost, moved or taken from the count shows.
    static let samples: [[UInt8]] = (0...40).map { count in (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 201) } }

    @Test("bytes read back as written, from an array, a slice and a buffer, at every length")
    func readsBack() {
        for bytes in Self.samples {
            let stored = [
                InsertedBytes(bytes), InsertedBytes(([0xEE] + bytes + [0xFF])[1..<bytes.count + 1]),
                bytes.withUnsafeBufferPointer { InsertedBytes($0) },
            ]
            for value in stored {
                #expect(value.count == bytes.count)
                #expect(value.array == bytes)
                #expect(value.withUnsafeBufferPointer { Array($0) } == bytes)
                #expect(value == InsertedBytes(bytes))
                #expect(value.hashValue == InsertedBytes(bytes).hashValue)
            }
        }
    }

    @Test("pieces and appends match the array's, inline and not, across the inline limit")
    func extractAndAppend() {
        for bytes in Self.samples {
            let value = InsertedBytes(bytes)
            for start in stride(from: 0, through: bytes.count, by: 3) {
                for end in stride(from: start, through: bytes.count, by: 4) {
                    #expect(value.extracting(start..<end).array == Array(bytes[start..<end]))
                }
            }
            for other in Self.samples where other.count % 5 == 0 {
                var joined = value
                joined.append(InsertedBytes(other))
                #expect(joined.array == bytes + other)
                #expect(joined == InsertedBytes(bytes + other))
            }
        }
        // An array grown in place leaves the value it was copied from alone.
        let original = InsertedBytes(Self.samples[30])
        var grown = original
        grown.append(InsertedBytes(Self.samples[20]))
        #expect(original.array == Self.samples[30])
        #expect(grown.array == Self.samples[30] + Self.samples[20])
    }

    @Test("different bytes of the same length, or a prefix, are not equal")
    func inequality() {
        for bytes in Self.samples where !bytes.isEmpty {
            var changed = bytes
            changed[changed.count - 1] ^= 1
            #expect(InsertedBytes(bytes) != InsertedBytes(changed))
            #expect(InsertedBytes(bytes) != InsertedBytes(bytes.dropLast()))
        }
    }

    @Test("an insertion's public UTF-8 and text agree with its stored bytes, and survive a cut and a join")
    func insertionBytes() throws {
        let replica = ReplicaID(7)
        for text in ["ab", "héllo", "😀x", "a longer insertion of many characters", "中文中文中文中文"] {
            var insertion = TextInsertion(id: OperationID(replica: replica, counter: 0), originLeft: nil, rightParent: nil, text: text)
            #expect(insertion.utf8 == Array(text.utf8))
            #expect(insertion.text == text)
            let scalars = Array(text.unicodeScalars)
            let cut = max(1, scalars.count / 2)
            guard cut < scalars.count else { continue }  // a one-character insertion has nothing to cut
            let operation = TextOperation.insert(insertion)
            guard case .insert(let head) = operation.prefix(cut), case .insert(let tail) = operation.droppingFirst(cut) else {
                Issue.record("a cut insertion is not an insertion")
                continue
            }
            #expect(head.text + tail.text == text)
            #expect(TextOperation.insert(head).joined(with: .insert(tail)) == operation)
            insertion.utf8 = Array("z".utf8)
            #expect(insertion.text == "z")
        }
    }
}
