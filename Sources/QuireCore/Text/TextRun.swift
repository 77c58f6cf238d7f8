/// A reference to an item inside one ``RunTree``: the replica as the tree's dense agent
/// number, and the item's counter. `agent < 0` means none (the document's start or end).
struct ItemRef: Equatable {
    var agent: Int32
    var counter: UInt64

    static let none = ItemRef(agent: -1, counter: 0)

    @inline(__always) var isNone: Bool { agent < 0 }

    @inline(__always) func advanced(by offset: Int) -> ItemRef {
        ItemRef(agent: agent, counter: counter &+ UInt64(offset))
    }
}

/// A run of consecutive items in document order: characters one replica inserted one
/// after another (each the left origin of the next), all visible or all deleted.
///
/// Typing a word is one run; so is backspacing it away. The first item carries its left
/// origin; item `k > 0` has item `k − 1` as its left origin. All items share one right
/// parent: a character typed after its predecessor has the same next item after it.
///
/// A plain value (no references), so moving runs around costs no reference counting; the
/// characters live in the agent's content buffer at ``byteStart``.
struct TextRun {
    /// The inserting replica, as the tree's agent number.
    var agent: Int32
    /// Whether the items are deleted (tombstones).
    var isDeleted: Bool
    /// The counter of the first item; item `k` has `counter + k`.
    var counter: UInt64
    // Sizes are stored as 32-bit values so that a run is 64 bytes: a run never exceeds
    // 2^24 characters, and an agent's content buffer stays below 2 GiB.
    private var storedLength: Int32
    private var storedUTF16Count: Int32
    private var storedUTF8Count: Int32
    private var storedByteStart: Int32
    /// The left origin of the first item: the visible item it was typed after.
    var originLeft: ItemRef
    /// The right parent of every item (see FugueMax in `docs/text.md`).
    var rightParent: ItemRef

    init(
        agent: Int32, isDeleted: Bool, counter: UInt64, length: Int, utf16Count: Int, utf8Count: Int,
        byteStart: Int, originLeft: ItemRef, rightParent: ItemRef
    ) {
        self.agent = agent
        self.isDeleted = isDeleted
        self.counter = counter
        self.storedLength = Int32(truncatingIfNeeded: length)
        self.storedUTF16Count = Int32(truncatingIfNeeded: utf16Count)
        self.storedUTF8Count = Int32(truncatingIfNeeded: utf8Count)
        self.storedByteStart = Int32(truncatingIfNeeded: byteStart)
        self.originLeft = originLeft
        self.rightParent = rightParent
    }

    /// The number of items (Unicode scalars).
    @inline(__always) var length: Int {
        get { Int(storedLength) }
        set { storedLength = Int32(truncatingIfNeeded: newValue) }
    }
    /// The UTF-16 length of the items' text.
    @inline(__always) var utf16Count: Int {
        get { Int(storedUTF16Count) }
        set { storedUTF16Count = Int32(truncatingIfNeeded: newValue) }
    }
    /// The UTF-8 length of the items' text.
    @inline(__always) var utf8Count: Int {
        get { Int(storedUTF8Count) }
        set { storedUTF8Count = Int32(truncatingIfNeeded: newValue) }
    }
    /// Where the items' UTF-8 starts in the agent's content buffer.
    @inline(__always) var byteStart: Int {
        get { Int(storedByteStart) }
        set { storedByteStart = Int32(truncatingIfNeeded: newValue) }
    }

    @inline(__always) var isASCII: Bool { utf8Count == length }
    @inline(__always) var first: ItemRef { ItemRef(agent: agent, counter: counter) }
    @inline(__always) var last: ItemRef { ItemRef(agent: agent, counter: counter &+ UInt64(length - 1)) }

    var counts: TextCounts {
        isDeleted
            ? TextCounts(items: length)
            : TextCounts(items: length, scalars: length, utf16: utf16Count, utf8: utf8Count)
    }

    /// Whether the item `ref` belongs to this run.
    @inline(__always)
    func contains(_ ref: ItemRef) -> Bool {
        ref.agent == agent && ref.counter >= counter && ref.counter < counter &+ UInt64(length)
    }

    /// The left origin of the item at `offset`.
    @inline(__always)
    func originLeft(at offset: Int) -> ItemRef {
        offset == 0 ? originLeft : ItemRef(agent: agent, counter: counter &+ UInt64(offset - 1))
    }

    /// Whether `next` continues this run: the same replica's following items, typed right
    /// after this run's last item, with the same right parent, in the same state — and the
    /// two together hold at most `limit` items (the longest run the encodings accept).
    @inline(__always)
    func canAppend(_ next: TextRun, limit: Int) -> Bool {
        next.agent == agent && next.counter == counter &+ UInt64(length) && next.isDeleted == isDeleted
            && next.rightParent == rightParent && next.originLeft == last
            && next.byteStart == byteStart + utf8Count && length + next.length <= limit
    }

    @inline(__always)
    mutating func append(_ next: TextRun) {
        length += next.length
        utf16Count += next.utf16Count
        utf8Count += next.utf8Count
    }
}

/// UTF-8 helpers over content buffers.
@usableFromInline
enum UTF8Scan {
    @inline(__always)
    static func sequenceLength(leading byte: UInt8) -> Int {
        byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
    }

    static func utf16Count(of utf8: some Collection<UInt8>) -> Int {
        var count = 0
        for byte in utf8 where byte & 0xC0 != 0x80 { count += byte >= 0xF0 ? 2 : 1 }
        return count
    }

    /// Whether every byte is ASCII; eight bytes at a time.
    static func isASCII(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { isASCII($0) }
    }

    /// Whether every byte is ASCII; eight bytes at a time.
    @usableFromInline
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        isASCII(UnsafeRawBufferPointer(bytes))
    }

    private static func isASCII(_ raw: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let words = raw.count / 8
        var combined: UInt64 = 0
        for word in 0..<words { combined |= raw.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self) }
        index = words * 8
        while index < raw.count {
            combined |= UInt64(raw[index])
            index += 1
        }
        return combined & 0x8080_8080_8080_8080 == 0
    }

    static func scalarCount(of utf8: some Collection<UInt8>) -> Int {
        var count = 0
        for byte in utf8 where byte & 0xC0 != 0x80 { count += 1 }
        return count
    }
}
