/// One replicated change to a text: a run of inserted characters or a run of deletions.
///
/// Operations are what replicas exchange. Every character inserted and every character
/// deleted is one operation with its own ``OperationID``; consecutive ones of a replica
/// travel as one run.
public enum TextOperation: Hashable, Sendable {
    /// Characters inserted one after another.
    case insert(TextInsertion)
    /// Characters deleted.
    case delete(TextDeletion)

    /// The ID of the first operation of the run.
    public var id: OperationID {
        switch self {
        case .insert(let insertion): insertion.id
        case .delete(let deletion): deletion.id
        }
    }

    /// The number of operations in the run (characters inserted or deleted).
    public var length: Int {
        switch self {
        case .insert(let insertion): insertion.length
        case .delete(let deletion): deletion.length
        }
    }

    /// The first `count` operations of the run.
    func prefix(_ count: Int) -> TextOperation {
        switch self {
        case .insert(let insertion):
            let end = insertion.byteOffset(ofScalar: count)
            return .insert(TextInsertion(id: insertion.id, originLeft: insertion.originLeft,
                                         rightParent: insertion.rightParent, bytes: insertion.bytes.extracting(0..<end), length: count))
        case .delete(let deletion):
            return .delete(TextDeletion(id: deletion.id, target: deletion.target, length: count, isBackward: deletion.isBackward))
        }
    }

    /// Gives an insertion its characters (a decoder fills them in after the rest); a
    /// deletion is left as it is.
    mutating func setInsertedBytes(_ bytes: InsertedBytes) {
        switch consume self {
        case .insert(var insertion):
            insertion.bytes = bytes
            self = .insert(insertion)
        case .delete(let deletion):
            self = .delete(deletion)
        }
    }

    /// The run without its first `count` operations (which a replica already has).
    func droppingFirst(_ count: Int) -> TextOperation {
        switch self {
        case .insert(let insertion): .insert(insertion.droppingFirst(count))
        case .delete(let deletion): .delete(deletion.droppingFirst(count))
        }
    }
}

/// Characters inserted one after another by one replica: the first after `originLeft`,
/// each next one right after its predecessor, all with the same `rightParent`.
public struct TextInsertion: Hashable, Sendable {
    /// The ID of the first character; character `k` has `id.counter + k`.
    public var id: OperationID
    /// The visible character the first one was typed after; `nil` at the start.
    public var originLeft: OperationID?
    /// The characters' right parent (FugueMax): the item that followed the insertion point
    /// when it was made; `nil` for the end.
    public var rightParent: OperationID?
    /// The characters, in UTF-8.
    public var utf8: [UInt8] {
        get { bytes.array }
        set { bytes = InsertedBytes(newValue) }
    }
    /// The characters, in UTF-8, held inline when short (see ``InsertedBytes``).
    var bytes: InsertedBytes
    /// The number of characters (Unicode scalars).
    public var length: Int

    /// Creates an insertion of `text`.
    public init(id: OperationID, originLeft: OperationID?, rightParent: OperationID?, text: String) {
        self.id = id
        self.originLeft = originLeft
        self.rightParent = rightParent
        self.bytes = InsertedBytes(text.utf8)
        self.length = text.unicodeScalars.count
    }

    init(id: OperationID, originLeft: OperationID?, rightParent: OperationID?, utf8: [UInt8], length: Int) {
        self.init(id: id, originLeft: originLeft, rightParent: rightParent, bytes: InsertedBytes(utf8), length: length)
    }

    init(id: OperationID, originLeft: OperationID?, rightParent: OperationID?, bytes: InsertedBytes, length: Int) {
        self.id = id
        self.originLeft = originLeft
        self.rightParent = rightParent
        self.bytes = bytes
        self.length = length
    }

    /// The inserted text.
    public var text: String { bytes.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } }

    /// The ID of the last character.
    var lastID: OperationID { id.advanced(by: UInt64(length - 1)) }

    func droppingFirst(_ count: Int) -> TextInsertion {
        let start = byteOffset(ofScalar: count)
        return TextInsertion(id: id.advanced(by: UInt64(count)), originLeft: id.advanced(by: UInt64(count - 1)),
                             rightParent: rightParent, bytes: bytes.extracting(start..<bytes.count), length: length - count)
    }

    /// The UTF-8 offset of the scalar at `offset`.
    func byteOffset(ofScalar offset: Int) -> Int {
        bytes.withUnsafeBufferPointer { utf8 in
            if utf8.count == length { return offset }
            var byte = 0
            for _ in 0..<offset where byte < utf8.count { byte += UTF8Scan.sequenceLength(leading: utf8[byte]) }
            return min(byte, utf8.count)
        }
    }
}

/// Characters deleted by one replica: operation `id.counter + k` deletes the item
/// `target.counter + k` (forwards, as the Delete key does) or `target.counter − k`
/// (backwards, as Backspace does).
///
/// A one-character deletion has no direction: it is always forward, however it was made
/// (the initializer clears ``isBackward`` for it, and equality ignores it), so the same
/// keystroke compares, hashes, encodes and joins the same wherever it was cut from.
public struct TextDeletion: Hashable, Sendable {
    /// The ID of the first deletion.
    public var id: OperationID
    /// The item the first deletion removes.
    public var target: OperationID
    /// The number of deletions.
    public var length: Int
    /// Whether successive deletions remove successively earlier items; always `false`
    /// for a one-character deletion made by the initializer.
    public var isBackward: Bool

    /// Creates a deletion run.
    public init(id: OperationID, target: OperationID, length: Int, isBackward: Bool = false) {
        self.id = id
        self.target = target
        self.length = length
        self.isBackward = isBackward && length > 1
    }

    /// The direction that matters: backward only when more than one item is deleted.
    var goesBackward: Bool { isBackward && length > 1 }

    public static func == (lhs: TextDeletion, rhs: TextDeletion) -> Bool {
        lhs.id == rhs.id && lhs.target == rhs.target && lhs.length == rhs.length && lhs.goesBackward == rhs.goesBackward
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(target)
        hasher.combine(length)
        hasher.combine(goesBackward)
    }

    /// The deleted items as one forward range: its first item and length.
    var targetRange: (first: OperationID, count: Int) {
        goesBackward ? (OperationID(replica: target.replica, counter: target.counter - UInt64(length - 1)), length) : (target, length)
    }

    func droppingFirst(_ count: Int) -> TextDeletion {
        TextDeletion(
            id: id.advanced(by: UInt64(count)),
            target: OperationID(
                replica: target.replica,
                counter: isBackward ? target.counter - UInt64(count) : target.counter + UInt64(count)),
            length: length - count, isBackward: isBackward)
    }
}
