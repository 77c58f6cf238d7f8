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

    /// A batch of 1,024 or more remote operations reserves the tree's tables first and the
    /// counter index fills the room it has; batches one after another (several imports)
    /// must give the text that one operation at a time gives.
    @Test("remote operations applied in large batches, one after another, give what one at a time gives",
          arguments: [1, 1_024, 1_500, 6_000])
    func batchedApply(batch: Int) throws {
        var random = SeededRandom(seed: 9)
        let author = ReplicatedText(replica: ReplicaID(3))
        var length = 0
        for _ in 0..<6_000 {
            if length > 0 && random.next() % 3 == 0 {
                let start = Int(random.next() % UInt64(length))
                try author.delete(start..<start + 1)
                length -= 1
            } else {
                try author.insert(["x", "yz", "ü"][Int(random.next() % 3)], at: Int(random.next() % UInt64(length + 1)))
                length = author.string.unicodeScalars.count
            }
        }
        let operations = author.operations(since: VersionVector())
        let reader = ReplicatedText(replica: ReplicaID(4))
        for start in stride(from: 0, to: operations.count, by: batch) {
            _ = try reader.apply(Array(operations[start..<min(operations.count, start + batch)]))
        }
        #expect(reader.string == author.string)
        #expect(reader.invariantViolations == [])
        #expect(reader.version == author.version)
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
