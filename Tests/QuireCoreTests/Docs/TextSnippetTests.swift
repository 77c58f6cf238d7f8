import Foundation
import QuireCore
import Testing

// The ```swift blocks of docs/text.md, verbatim (modulo indentation), run.
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

    @Test("the versions example reads, diffs, restores and forks the text before a replace")
    func versions() throws {
        let text = ReplicatedText(replica: ReplicaID(1))
        try text.insert("Hello world", at: 0)
        let storage = NSMutableString(string: "Hello world")   // a text view's storage

        // docs/text.md § Versions, diffs and restore
        let draft = text.version
        try text.replace(0..<5, with: "Howdy")
        let before = try text.string(at: draft)           // "Hello world": the text before the replace
        let diff = try text.diff(from: draft, to: text.version)
        for edit in diff.edits.reversed() {               // ranges of the old text, scalars and UTF-16
            storage.replaceCharacters(in: NSRange(edit.deletedUTF16Range), with: edit.insertedText)
        }
        let operations = try text.restore(to: draft)      // new local edits: send them like any other
        let then = try text.fork(at: draft, as: ReplicaID(9))   // an editable replica at that version

        #expect(before == "Hello world")
        #expect(storage as String == "Howdy world")
        #expect(text.string == "Hello world")
        #expect(!operations.isEmpty)
        #expect(then.string == "Hello world")
    }
}
