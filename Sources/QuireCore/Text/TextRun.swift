/// A run of consecutive items in document order: characters one replica inserted one
/// after another (each the left origin of the next), all visible or all deleted.
///
/// Typing a word is one run; so is backspacing it away. The first item carries its left
/// origin; item `k > 0` has item `k − 1` as its left origin. All items share one right
/// parent: a character typed after its predecessor has the same next item after it.
struct TextRun {
    /// The replica that inserted the items.
    var replica: ReplicaID
    /// The counter of the first item; item `k` has `counter + k`.
    var counter: UInt64
    /// The number of items (Unicode scalars).
    var length: Int
    /// The UTF-16 length of the items' text.
    var utf16Count: Int
    /// The left origin of the first item: the visible item it was typed after.
    var originLeft: OperationID?
    /// The right parent of every item (see FugueMax in `docs/text.md`).
    var rightParent: OperationID?
    /// Whether the items are deleted (tombstones).
    var isDeleted: Bool
    /// The items' text, in UTF-8.
    var utf8: [UInt8]

    var firstID: OperationID { OperationID(replica: replica, counter: counter) }
    var lastID: OperationID { OperationID(replica: replica, counter: counter + UInt64(length - 1)) }
    var isASCII: Bool { utf8.count == length }

    var counts: TextCounts {
        isDeleted
            ? TextCounts(items: length)
            : TextCounts(items: length, scalars: length, utf16: utf16Count, utf8: utf8.count)
    }

    /// Whether the item `id` belongs to this run.
    @inline(__always)
    func contains(_ id: OperationID) -> Bool {
        id.replica == replica && id.counter >= counter && id.counter < counter + UInt64(length)
    }

    /// The left origin of the item at `offset`.
    @inline(__always)
    func originLeft(at offset: Int) -> OperationID? {
        offset == 0 ? originLeft : OperationID(replica: replica, counter: counter + UInt64(offset - 1))
    }

    /// The right parent of the item at `offset`.
    @inline(__always)
    func rightParent(at offset: Int) -> OperationID? { rightParent }

    /// Whether `next` continues this run: the same replica's following items, typed right
    /// after this run's last item, in the same state.
    func canAppend(_ next: TextRun) -> Bool {
        next.replica == replica && next.counter == counter + UInt64(length)
            && next.isDeleted == isDeleted && next.rightParent == rightParent && next.originLeft == lastID
    }

    mutating func append(_ next: TextRun) {
        length += next.length
        utf16Count += next.utf16Count
        utf8.append(contentsOf: next.utf8)
    }

    /// Splits off and returns the items from `offset` on; `self` keeps the ones before.
    mutating func split(at offset: Int) -> TextRun {
        let byte = byteOffset(ofScalar: offset)
        let rightBytes = Array(utf8[byte...])
        let rightUTF16 = isASCII ? length - offset : Self.utf16Count(of: rightBytes)
        let right = TextRun(
            replica: replica, counter: counter + UInt64(offset), length: length - offset,
            utf16Count: rightUTF16, originLeft: OperationID(replica: replica, counter: counter + UInt64(offset - 1)),
            rightParent: rightParent, isDeleted: isDeleted, utf8: rightBytes)
        utf8.removeSubrange(byte...)
        length = offset
        utf16Count -= rightUTF16
        return right
    }

    /// The UTF-8 offset of the scalar at `offset`.
    func byteOffset(ofScalar offset: Int) -> Int {
        if isASCII { return offset }
        var byte = 0
        var scalars = 0
        while scalars < offset {
            byte += Self.sequenceLength(leading: utf8[byte])
            scalars += 1
        }
        return byte
    }

    /// The scalar offset at a UTF-16 (or UTF-8) offset within the run's text, or `nil`
    /// when the offset falls inside one scalar.
    func scalarOffset(of unitOffset: Int, in unit: TextUnit) -> Int? {
        if unit == .unicodeScalars || isASCII { return unitOffset }
        var units = 0
        var scalars = 0
        var byte = 0
        while units < unitOffset {
            let width = Self.sequenceLength(leading: utf8[byte])
            units += unit == .utf8 ? width : (width == 4 ? 2 : 1)
            byte += width
            scalars += 1
        }
        return units == unitOffset ? scalars : nil
    }

    /// The visible size of the first `scalars` items in `unit`.
    func unitCount(ofFirst scalars: Int, in unit: TextUnit) -> Int {
        switch unit {
        case .unicodeScalars: return scalars
        case .utf8: return byteOffset(ofScalar: scalars)
        case .utf16:
            if isASCII { return scalars }
            var units = 0
            var byte = 0
            for _ in 0..<scalars {
                let width = Self.sequenceLength(leading: utf8[byte])
                units += width == 4 ? 2 : 1
                byte += width
            }
            return units
        }
    }

    static func sequenceLength(leading byte: UInt8) -> Int {
        byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
    }

    static func utf16Count(of utf8: some Collection<UInt8>) -> Int {
        var count = 0
        for byte in utf8 where byte & 0xC0 != 0x80 { count += byte >= 0xF0 ? 2 : 1 }
        return count
    }
}
