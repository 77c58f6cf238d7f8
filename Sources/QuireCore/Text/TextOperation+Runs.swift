/// Joining the text operations of consecutive changes into as few operations as possible,
/// and cutting them back at the changes' boundaries: how a run of keystroke changes
/// travels (one list of operations for the whole run, each change's share given by its
/// length in counters).
///
/// Joining is exact: ``split(_:lengths:)`` at the joined operations' original boundaries
/// gives back the operations that were joined. (A one-character deletion has no direction
/// — ``TextDeletion`` makes it forward — so a run of Backspaces joins into one backward
/// deletion and cuts back into the same one-character deletions.) No joined operation is
/// longer than ``TextOperationCoding/maximumRunLength``, what one encoded operation may be.
extension TextOperation {
    /// `self` followed by `next` as one operation, when cutting that at `self`'s length
    /// gives `self` and `next` back; `nil` otherwise.
    ///
    /// ```swift
    /// // "a" then "b" typed after it: one insertion of "ab"
    /// let ab = a.joined(with: b)
    /// ```
    ///
    /// - Parameter next: The operation that follows `self` (in counters of its replica).
    /// - Returns: The joined operation, or `nil` when the two do not form one run.
    public func joined(with next: TextOperation) -> TextOperation? {
        guard next.id.replica == id.replica, next.id.counter == id.counter &+ UInt64(length),
            length + next.length <= TextOperationCoding.maximumRunLength
        else { return nil }
        switch (self, next) {
        case (.insert(let first), .insert(let second)):
            guard second.originLeft == first.lastID, second.rightParent == first.rightParent else { return nil }
            return .insert(TextInsertion(
                id: first.id, originLeft: first.originLeft, rightParent: first.rightParent,
                bytes: { var bytes = first.bytes; bytes.append(second.bytes); return bytes }(), length: first.length + second.length))
        case (.delete(let first), .delete(let second)):
            guard second.target.replica == first.target.replica else { return nil }
            let length = first.length + second.length
            // Forwards (the Delete key): neither goes backward, targets adjacent.
            if !first.goesBackward, !second.goesBackward,
                second.target.counter == first.target.counter &+ UInt64(first.length) {
                return .delete(TextDeletion(id: first.id, target: first.target, length: length, isBackward: false))
            }
            // Backwards (Backspace): each one character or going backward (a one-character
            // deletion has no direction), the second starting just before the first ends.
            guard first.length == 1 || first.goesBackward, second.length == 1 || second.goesBackward,
                first.target.counter >= UInt64(length - 1),  // the joined run stays above counter 0
                second.target.counter == first.target.counter - UInt64(first.length)
            else { return nil }
            return .delete(TextDeletion(id: first.id, target: first.target, length: length, isBackward: true))
        default:
            return nil
        }
    }

    /// The operations of consecutive changes joined into as few as possible (see
    /// ``joined(with:)``), in order.
    ///
    /// - Parameter groups: Each change's operations, in counter order.
    /// - Returns: The joined operations; complexity O(total operations + UTF-8 bytes).
    public static func concatenated<Groups: Sequence>(_ groups: Groups) -> [TextOperation]
    where Groups.Element == [TextOperation] {
        var result: [TextOperation] = []
        for group in groups { append(group, joiningOnto: &result) }
        return result
    }

    /// Appends `next` to `operations`, each joined onto the one before it where the two
    /// form one run (see ``joined(with:)``): ``concatenated(_:)`` one group at a time,
    /// for a caller that grows a joined list as changes come.
    ///
    /// - Complexity: O(next's operations + UTF-8 bytes); `operations` grows in place.
    public static func append(_ next: [TextOperation], joiningOnto operations: inout [TextOperation]) {
        for operation in next where !join(operation, ontoLastOf: &operations) {
            operations.append(operation)
        }
    }

    /// Joins `next` onto the last element of `operations` when the two form one run;
    /// an insertion's characters are appended in place, not copied again.
    private static func join(_ next: TextOperation, ontoLastOf operations: inout [TextOperation]) -> Bool {
        guard let last = operations.last else { return false }
        guard case .insert(var insertion) = last, case .insert(let second) = next else {
            guard let joined = last.joined(with: next) else { return false }
            operations[operations.count - 1] = joined
            return true
        }
        guard second.id.replica == insertion.id.replica,
            second.id.counter == insertion.id.counter &+ UInt64(insertion.length),
            second.originLeft == insertion.lastID, second.rightParent == insertion.rightParent,
            insertion.length + second.length <= TextOperationCoding.maximumRunLength
        else { return false }
        // Overwrite the element first, so `insertion` holds the only reference to its
        // characters and they grow in place.
        operations[operations.count - 1] = next
        insertion.bytes.append(second.bytes)
        insertion.length += second.length
        operations[operations.count - 1] = .insert(insertion)
        return true
    }

    /// Cuts `operations` (contiguous counters of one replica) into consecutive pieces of
    /// `lengths` counters each.
    ///
    /// ```swift
    /// let perChange = TextOperation.split(joined, lengths: [1, 1, 3])
    /// ```
    ///
    /// - Parameters:
    ///   - operations: Operations whose counters follow each other.
    ///   - lengths: The counters of each piece, each at least 1.
    /// - Returns: One list of operations per length, or `nil` when the lengths do not add
    ///   up to the operations' counters or the operations are not contiguous.
    public static func split(_ operations: [TextOperation], lengths: [UInt64]) -> [[TextOperation]]? {
        var pieces: [[TextOperation]] = []
        pieces.reserveCapacity(lengths.count)
        var index = 0
        var current: TextOperation?  // what is left of operations[index - 1]
        var piece: [TextOperation] = []
        for length in lengths {
            guard length > 0 else { return nil }
            var needed = length
            piece.removeAll(keepingCapacity: true)
            while needed > 0 {
                if current == nil {
                    guard index < operations.count else { return nil }
                    if let previous = piece.last ?? pieces.last?.last,
                        operations[index].id != previous.id.advanced(by: UInt64(previous.length)) {
                        return nil
                    }
                    current = operations[index]
                    index += 1
                }
                let operation = current!
                if UInt64(operation.length) <= needed {
                    piece.append(operation)
                    needed -= UInt64(operation.length)
                    current = nil
                } else {
                    piece.append(operation.prefix(Int(needed)))
                    current = operation.droppingFirst(Int(needed))
                    needed = 0
                }
            }
            pieces.append(piece)
        }
        guard current == nil, index == operations.count else { return nil }
        return pieces
    }
}
