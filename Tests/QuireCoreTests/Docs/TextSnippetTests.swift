import QuireCore
import Testing

// The ```swift block of docs/text.md, verbatim (modulo indentation), run.
// `DocSnippetCheckTests` (QuireTests) fails when the block is not found here.
@Suite("docs/text.md snippets")
struct TextSnippetTests {
    @Test("the text guide's example merges both replicas into \"Howdy brave world!\" and encodes what theirs lacks")
    func example() throws {
        // docs/text.md
        let mine = ReplicatedText(replica: ReplicaID(1))
        try mine.insert("Hello world", at: 0)
        let theirs = mine.fork(as: ReplicaID(2))
        try mine.insert("brave ", at: 6)
        try theirs.replace(0..<5, with: "Howdy")
        try theirs.insert("!", at: theirs.count(in: .utf16), unit: .utf16)   // an NSRange location
        mine.merge(theirs); theirs.merge(mine)                               // both: "Howdy brave world!"
        let delta = mine.encodedOperations(since: theirs.version)            // what theirs lacks

        #expect(mine.string == "Howdy brave world!")
        #expect(theirs.string == "Howdy brave world!")
        #expect(!delta.isEmpty)   // the header of an empty delta, at least
    }
}
