@testable import QuireCore
import Testing

/// Every run a text makes or keeps fits the encodings' bound
/// (``TextOperationCoding/maximumRunLength``): a longer insert, deletion or typing streak
/// is split into runs that continue one another, so nothing a text accepted fails to
/// encode, load or decode later. The bound is small here; `StoreLongTextTests` uses the
/// real one through the store.
@Suite("Text runs: never longer than the encodings take")
struct TextRunBoundTests {
    static let bound = 4

    /// The lengths of every run `text` keeps or hands out: tree runs, log entries, and
    /// operations for a replica that has nothing.
    static func runLengths(_ text: ReplicatedText) -> [Int] {
        var lengths: [Int] = []
        text.tree.forEachRun { lengths.append($0.length) }
        for log in text.logs { lengths += log.map(\.length) }
        lengths += text.operations(since: VersionVector()).map(\.length)
        return lengths
    }

    @Test("one insert longer than the bound becomes runs within it, ASCII or not")
    func longInsert() throws {
        for content in ["abcdefghijklmnopq", "é😀中a€b😀éé中x"] {
            let text = ReplicatedText(replica: ReplicaID(1), maximumRunLength: Self.bound)
            try text.insert("[]", at: 0)
            try text.insert(content, at: 1)
            #expect(text.string == "[\(content)]")
            #expect(Self.runLengths(text).allSatisfy { $0 <= Self.bound }, "\(Self.runLengths(text))")
            #expect(text.count(in: .utf16) == "[\(content)]".utf16.count)
            #expect(text.count(in: .utf8) == "[\(content)]".utf8.count)
            // The pieces mean what one run means: a copy integrates them to the same text,
            // and the saved state loads.
            let copy = ReplicatedText(replica: ReplicaID(2))
            try copy.apply(TextOperationCoding.decode(TextOperationCoding.encode(text.operations(since: VersionVector()))))
            #expect(copy.string == text.string)
            #expect(try ReplicatedText(replica: ReplicaID(1), state: text.encodedState()).string == text.string)
        }
    }

    @Test("typing and deleting past the bound keep every run within it")
    func typingAndDeleting() throws {
        let text = ReplicatedText(replica: ReplicaID(1), maximumRunLength: Self.bound)
        for character in "the quick brown fox" { try text.insert(String(character), at: text.count) }
        #expect(Self.runLengths(text).allSatisfy { $0 <= Self.bound }, "\(Self.runLengths(text))")
        try text.delete(1..<18)  // forwards, over several runs
        for _ in 0..<1 { try text.delete(text.count - 1..<text.count) }
        #expect(text.string == "t")
        try text.insert("abcdefghij", at: 1)
        for _ in 0..<9 { try text.delete(text.count - 1..<text.count) }  // backspacing
        #expect(text.string == "ta")
        #expect(Self.runLengths(text).allSatisfy { $0 <= Self.bound }, "\(Self.runLengths(text))")
        let copy = ReplicatedText(replica: ReplicaID(2))
        try copy.apply(TextOperationCoding.decode(TextOperationCoding.encode(text.operations(since: VersionVector()))))
        #expect(copy.string == "ta")
    }

    @Test("a remote run longer than the bound is integrated in pieces")
    func longRemoteRuns() throws {
        let author = ReplicatedText(replica: ReplicaID(1))
        try author.insert("0123456789abcdefghij", at: 0)
        try author.delete(2..<17)
        let text = ReplicatedText(replica: ReplicaID(2), maximumRunLength: Self.bound)
        try text.apply(author.operations(since: VersionVector()))
        #expect(text.string == author.string)
        #expect(text.version == author.version)
        #expect(Self.runLengths(text).allSatisfy { $0 <= Self.bound }, "\(Self.runLengths(text))")
    }

    @Test("concurrent inserts at the seams between pieces land as they do in one run")
    func seamsConverge() throws {
        // Replica 1 types the same long insert with and without the bound; replica 3
        // inserts concurrently at every seam; both versions of replica 1 must agree.
        let split = ReplicatedText(replica: ReplicaID(1), maximumRunLength: Self.bound)
        let whole = ReplicatedText(replica: ReplicaID(1))
        try split.insert("abcdefghijklmnop", at: 0)
        try whole.insert("abcdefghijklmnop", at: 0)
        let other = whole.fork(as: ReplicaID(3))
        for seam in [12, 8, 4] { try other.insert("|", at: seam) }
        try split.insert("<", at: 8)
        try whole.insert("<", at: 8)
        split.merge(other)
        whole.merge(other)
        #expect(split.string == whole.string)
        #expect(split.string.contains("|"))
    }
}
