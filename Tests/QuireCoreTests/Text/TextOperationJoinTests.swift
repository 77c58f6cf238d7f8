@testable import QuireCore
import Testing

/// Keystroke changes travel as runs whose text operations are joined
/// (`TextOperation.concatenated`) and cut back at the changes' lengths
/// (`TextOperation.split`): a run of keystrokes must cost what the same edits cost in the
/// text's own log, Backspace included.
@Suite("Text operations: joining keystrokes into runs")
struct TextOperationJoinTests {
    /// Types `edits` into a fresh text, one local edit each, and returns the text and each
    /// edit's operations as the store takes them (`localOperations(since:)`).
    private func keystrokes(_ edits: [(ReplicatedText) throws -> Void]) throws -> (ReplicatedText, [[TextOperation]]) {
        let text = ReplicatedText(replica: ReplicaID(7))
        var groups: [[TextOperation]] = []
        for edit in edits {
            let before = text.localCounter
            try edit(text)
            groups.append(text.localOperations(since: before))
        }
        return (text, groups)
    }

    @Test("a one-character deletion has no direction: made backward, it equals, hashes and encodes as the forward one")
    func oneCharacterDeletionIsForward() throws {
        let id = OperationID(replica: ReplicaID(7), counter: 9)
        let target = OperationID(replica: ReplicaID(7), counter: 4)
        let backward = TextDeletion(id: id, target: target, length: 1, isBackward: true)
        let forward = TextDeletion(id: id, target: target, length: 1)
        #expect(!backward.isBackward)
        #expect(backward == forward)
        #expect(Set([backward, forward]).count == 1)
        #expect(TextOperationCoding.encode([.delete(backward)]) == TextOperationCoding.encode([.delete(forward)]))
        // Longer deletions keep their direction.
        let longBackward = TextDeletion(id: id, target: target, length: 2, isBackward: true)
        #expect(longBackward.isBackward)
        #expect(longBackward != TextDeletion(id: id, target: target, length: 2))
        // A backward run cut down to one character is forward, as a replica makes it.
        #expect(longBackward.droppingFirst(1) == TextDeletion(id: id.advanced(by: 1), target: OperationID(replica: ReplicaID(7), counter: 3), length: 1))
    }

    @Test("Backspaces typed one change each join into one backward deletion, and split back into the same keystrokes")
    func backspacesJoin() throws {
        var edits: [(ReplicatedText) throws -> Void] = []
        for character in "hello" { edits.append { try $0.insert(String(character), at: $0.count) } }
        for _ in 0..<4 { edits.append { try $0.delete(($0.count - 1)..<$0.count) } }
        let (text, groups) = try keystrokes(edits)
        #expect(text.string == "h")
        let joined = TextOperation.concatenated(groups)
        #expect(joined.count == 2)
        guard case .delete(let deletion)? = joined.last else {
            Issue.record("the last joined operation is not a deletion: \(joined)")
            return
        }
        #expect(deletion.length == 4 && deletion.isBackward)
        let lengths = groups.map { $0.reduce(UInt64(0)) { $0 + UInt64($1.length) } }
        #expect(TextOperation.split(joined, lengths: lengths) == groups)
    }

    @Test("random typing, Backspace, Delete and pastes, one change each, join into exactly the text's own log", arguments: 0..<12)
    func randomSessionsJoinLikeTheLog(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var edits: [(ReplicatedText) throws -> Void] = []
        for _ in 0..<600 {
            let choice = random.next() % 10
            let place = random.next()
            switch choice {
            case 0..<5:  // type at the caret: the end, or somewhere else now and then
                edits.append { text in
                    let position = place % 8 == 0 ? Int(place % UInt64(text.count + 1)) : text.count
                    try text.insert(place % 13 == 0 ? "é" : "x", at: position)
                }
            case 5..<8:  // Backspace at the end
                edits.append { text in if text.count > 0 { try text.delete((text.count - 1)..<text.count) } }
            case 8:  // Delete key somewhere
                edits.append { text in
                    guard text.count > 0 else { return }
                    let position = Int(place % UInt64(text.count))
                    try text.delete(position..<position + 1)
                }
            default:  // a paste, or a selection deleted
                edits.append { text in
                    if place % 2 == 0 || text.count < 3 {
                        try text.insert("pasted", at: Int(place % UInt64(text.count + 1)))
                    } else {
                        let start = Int(place % UInt64(text.count - 2))
                        try text.delete(start..<start + 3)
                    }
                }
            }
        }
        let (text, groups) = try keystrokes(edits)
        let joined = TextOperation.concatenated(groups.filter { !$0.isEmpty })
        #expect(joined == text.operations(since: VersionVector()))
        let lengths = groups.filter { !$0.isEmpty }.map { $0.reduce(UInt64(0)) { $0 + UInt64($1.length) } }
        #expect(TextOperation.split(joined, lengths: lengths) == groups.filter { !$0.isEmpty })
    }
}
