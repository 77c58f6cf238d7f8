import QuireCore
import Testing

@Suite("Reverting edits by identity")
struct TextRevertTests {
    private func edit(_ text: ReplicatedText, _ body: (ReplicatedText) throws -> Void) rethrows -> ReplicatedText.EditFootprint {
        let before = text.version
        try body(text)
        return ReplicatedText.EditFootprint(text.operations(since: before))
    }

    @Test("reverting an insertion deletes exactly the inserted characters")
    func revertInsert() throws {
        let text = ReplicatedText(replica: ReplicaID(1))
        try text.insert("Hello world", at: 0)
        let typo = try edit(text) { try $0.insert("XY😀", at: 5) }
        #expect(text.string == "HelloXY😀 world")
        text.revert(typo)
        #expect(text.string == "Hello world")
    }

    @Test("reverting a deletion brings the characters back where they were")
    func revertDelete() throws {
        let text = ReplicatedText(replica: ReplicaID(1))
        try text.insert("Hello brave 🌍 world", at: 0)
        let cut = try edit(text) { try $0.delete(6..<14) }
        #expect(text.string == "Hello world")
        text.revert(cut)
        #expect(text.string == "Hello brave 🌍 world")
    }

    @Test("reverting a replacement, then reverting the revert, round-trips")
    func revertReplace() throws {
        let text = ReplicatedText(replica: ReplicaID(1))
        try text.insert("one two three", at: 0)
        let replace = try edit(text) { try $0.replace(4..<7, with: "2") }
        #expect(text.string == "one 2 three")
        let undo = try edit(text) { $0.revert(replace) }
        #expect(text.string == "one two three")
        text.revert(undo)
        #expect(text.string == "one 2 three")
    }

    @Test("a revert keeps a concurrent edit by another replica and merges like any edit")
    func revertKeepsConcurrentEdits() throws {
        let mine = ReplicatedText(replica: ReplicaID(1))
        try mine.insert("abc", at: 0)
        let theirs = mine.fork(as: ReplicaID(2))
        let insert = try edit(mine) { try $0.insert("XYZ", at: 1) }
        try theirs.insert("!", at: 3)
        mine.merge(theirs)
        theirs.merge(mine)
        #expect(mine.string == "aXYZbc!")
        mine.revert(insert)
        theirs.merge(mine)
        #expect(mine.string == "abc!")
        #expect(theirs.string == mine.string)
    }

    @Test("characters another replica already deleted are not deleted twice")
    func revertSkipsGoneCharacters() throws {
        let mine = ReplicatedText(replica: ReplicaID(1))
        let insert = try edit(mine) { try $0.insert("abcdef", at: 0) }
        let theirs = mine.fork(as: ReplicaID(2))
        try theirs.delete(2..<4)
        mine.merge(theirs)
        let undo = try edit(mine) { $0.revert(insert) }
        #expect(mine.string == "")
        #expect(undo.deleted.reduce(0) { $0 + $1.counters.count } == 4)
    }

    @Test("a footprint followed by operations equals one followed by their footprint, keystroke by keystroke")
    func followedByOperations() throws {
        var random = SeededRandom(seed: 44)
        let text = ReplicatedText(replica: ReplicaID(3))
        var inPlace = ReplicatedText.EditFootprint([])
        var built = ReplicatedText.EditFootprint([])
        for step in 0..<600 {
            let before = text.version
            let count = text.count
            switch random.next() % 6 {
            case 0 where count > 0:
                let start = Int(random.next() % UInt64(count))
                try text.delete(start..<min(count, start + 1 + Int(random.next() % 3)))
            case 1:
                try text.insert("wörd", at: Int(random.next() % UInt64(count + 1)))
            default:  // typing on, mostly at the end
                try text.insert(step.isMultiple(of: 7) ? "é" : "a", at: random.next() % 5 == 0 ? Int(random.next() % UInt64(count + 1)) : count)
            }
            let operations = text.operations(since: before)
            inPlace.formFollowed(by: operations)
            built.formFollowed(by: ReplicatedText.EditFootprint(operations))
            #expect(inPlace == built)
        }
        #expect(!built.isEmpty)
    }
}
