/// The UTF-8 of one insertion: up to 15 bytes held inline, longer ones in an array.
///
/// Typing inserts a character or a few at a time, and an import or a merge decodes
/// hundreds of thousands of such insertions: held inline, they cost no allocation, no
/// reference counting and no deallocation. ``TextInsertion/utf8`` hands out an array
/// for callers that want one; the CRDT's own paths read the bytes in place.
struct InsertedBytes: Hashable, Sendable {
    private enum Storage: Sendable {
        /// Sixteen bytes as in memory: the bytes first, the count in the last byte
        /// (read back through `littleEndian`, so on any byte order).
        case inline(UInt64, UInt64)
        case array([UInt8])
    }

    /// The most bytes held inline: 16 less the count's byte.
    static let inlineCapacity = 15

    private var storage: Storage

    init() { storage = .inline(0, 0) }

    init(_ bytes: some Collection<UInt8>) {
        if let made = bytes.withContiguousStorageIfAvailable({ InsertedBytes($0) }) {
            self = made
        } else {
            self = Array(bytes).withUnsafeBufferPointer { InsertedBytes($0) }
        }
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= Self.inlineCapacity else {
            storage = .array(Array(bytes))
            return
        }
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { raw in
            if let base = bytes.baseAddress { raw.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
            raw[Self.inlineCapacity] = UInt8(bytes.count)
        }
        storage = .inline(words.0, words.1)
    }

    var count: Int {
        switch storage {
        case .inline(_, let high): Self.inlineCount(high)
        case .array(let array): array.count
        }
    }

    /// The bytes as an array (a copy when they are inline).
    var array: [UInt8] {
        switch storage {
        case .inline: withUnsafeBufferPointer { Array($0) }
        case .array(let array): array
        }
    }

    /// Calls `body` with the bytes in place.
    func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        switch storage {
        case .inline(let low, let high):
            var words = (low, high)
            let count = Self.inlineCount(high)
            return try withUnsafeBytes(of: &words) { raw throws(E) in
                try body(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count))
            }
        case .array(let array):
            return try array.withUnsafeBufferPointer { buffer throws(E) in try body(buffer) }
        }
    }

    /// The count kept in the last of the sixteen bytes, the top byte of the second word
    /// read as little-endian.
    @inline(__always)
    private static func inlineCount(_ high: UInt64) -> Int { Int(high.littleEndian >> 56) }

    /// The bytes in `range` (offsets from the first byte).
    func extracting(_ range: Range<Int>) -> InsertedBytes {
        withUnsafeBufferPointer { InsertedBytes(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Appends `other`; an array that grows is grown in place when it is the only copy.
    mutating func append(_ other: InsertedBytes) {
        let total = count + other.count
        if total <= Self.inlineCapacity {
            self = withUnsafeBufferPointer { own in
                other.withUnsafeBufferPointer { added in InsertedBytes(Array(own) + Array(added)) }
            }
            return
        }
        var bytes: [UInt8]
        if case .array(let array) = storage {
            bytes = array
            storage = .inline(0, 0)  // `bytes` is then the only copy
        } else {
            bytes = self.array
        }
        bytes.reserveCapacity(total)
        other.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
        storage = .array(bytes)
    }

    static func == (lhs: InsertedBytes, rhs: InsertedBytes) -> Bool {
        lhs.withUnsafeBufferPointer { left in rhs.withUnsafeBufferPointer { right in left.elementsEqual(right) } }
    }

    func hash(into hasher: inout Hasher) {
        withUnsafeBufferPointer { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }
}
