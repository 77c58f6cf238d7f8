@testable import QuireCore
import Testing

@Suite("Run tree structure")
struct RunTreeTests {
    /// Thousands of scattered edits grow the tree to several levels (leaves split, branches
    /// split, the root grows); its counts, parent links and ID index must stay exact.
    @Test("counts, parent links and the ID index stay exact through splits at every level")
    func invariantsThroughSplits() throws {
        var random = SeededRandom(seed: 5)
        let text = ReplicatedText(replica: ReplicaID(1))
        var model: [Unicode.Scalar] = []
        for step in 0..<6_000 {
            if !model.isEmpty && random.next() % 4 == 0 {
                let start = Int(random.next() % UInt64(model.count))
                let length = 1 + Int(random.next() % UInt64(min(3, model.count - start)))
                try text.delete(start..<start + length)
                model.removeSubrange(start..<start + length)
            } else {
                let position = Int(random.next() % UInt64(model.count + 1))
                let piece = ["a", "bc", "é", "😀"][Int(random.next() % 4)]
                try text.insert(piece, at: position)
                model.insert(contentsOf: piece.unicodeScalars, at: position)
            }
            if step % 500 == 499 {
                #expect(text.invariantViolations == [], "step \(step)")
                #expect(text.string == String(String.UnicodeScalarView(model)), "step \(step)")
            }
        }
        #expect(text.tree.depth >= 3, "the test should reach a tree with branches of branches")
        let loaded = try ReplicatedText(replica: ReplicaID(2), state: text.encodedState())
        #expect(loaded.invariantViolations == [])
        #expect(loaded.string == text.string)
    }

    @Test("the invariant checker reports a corrupted count")
    func checkerFails() throws {
        let text = ReplicatedText(replica: ReplicaID(1))
        try text.insert("hello", at: 0)
        #expect(text.invariantViolations.isEmpty)
        text.tree.corruptCountsForTesting()
        #expect(!text.invariantViolations.isEmpty)
    }
}
