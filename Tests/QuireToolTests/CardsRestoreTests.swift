import Foundation
import QuireTestSupport
import Testing

/// The ID an `rm` message tells to restore by: what follows "quire restore ".
func restoreID(in message: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let start = try #require(message.range(of: "quire restore "), "no restore command in: \(message)", sourceLocation: sourceLocation).upperBound
    return String(message[start...].prefix { !$0.isWhitespace && $0 != "'" })
}

@Suite("quire restore: every kind of record the tool deletes (the real binary)")
struct CardsRestoreTests {
    @Test("a deleted clue or note goes back where it was, by the ID 'cards … rm' printed")
    func notesAndClues() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["cards", "category", "add", "C"])
            try quire.ok(["cards", "note", "add", "C", "--answer", "Paris"])
            try quire.ok(["cards", "note", "add", "C", "--answer", "Rome"])
            try quire.ok(["cards", "clue", "add", "C/2", "Eternal city"])

            let clue = try restoreID(in: quire.ok(["cards", "clue", "rm", "C/2/1"]))
            #expect(try quire.ok(["cards", "clue", "list", "C/2"]).contains("has no clues yet"))
            #expect(try quire.ok(["restore", clue]) == "restored the clue \(clue) into the note C/2\n")
            #expect(try quire.ok(["cards", "clue", "list", "C/2"]) == "1. Eternal city\n")

            let removed = try quire.ok(["cards", "note", "rm", "C/1"])
            #expect(removed.hasPrefix("moved note C/1 to the trash ("))
            let note = try restoreID(in: removed)
            #expect(try quire.ok(["cards", "note", "list", "C"]) == "1. Rome  (1 clue)\n")
            #expect(try quire.ok(["restore", note]) == "restored the note \(note) into the category 'C'\n")
            // Back first, where it was, not after Rome.
            #expect(try quire.ok(["cards", "note", "list", "C"]) == "1. Paris  (0 clues)\n2. Rome  (1 clue)\n")
            let again = try quire.run(["restore", note])
            #expect(again.status == 1)
            #expect(again.standardError.contains("the note \(note) is not in the trash"))

            // A note whose category went to the trash after it: restore the category first,
            // or give another category.
            try quire.ok(["cards", "note", "rm", note])
            let category = try restoreID(in: quire.ok(["cards", "category", "rm", "C"]))
            let orphan = try quire.run(["restore", note])
            #expect(orphan.status == 1)
            #expect(orphan.standardError.contains("restore that first (quire restore \(category))"), "\(orphan.standardError)")
            try quire.ok(["cards", "category", "add", "D"])
            #expect(try quire.ok(["restore", note, "D"]) == "restored the note \(note) into the category 'D'\n")
        }
    }

    @Test("a folder restores by the ID 'quire rm' printed")
    func binderRecordByID() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "P", "--type", "prose"])
            try quire.ok(["mkdir", "P/Your Prose/Draft/Odes"])
            let id = try restoreID(in: quire.ok(["rm", "P/Your Prose/Draft/Odes"]))
            #expect(try quire.ok(["restore", id]) == "restored P/Your Prose/Draft/Odes\n")
        }
    }

    @Test("a category whose title is in use again stays in the trash until one is renamed; --deleted lists it")
    func categoryTitleTaken() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["cards", "category", "add", "K"])
            try quire.ok(["cards", "note", "add", "K", "--answer", "old"])
            let old = try restoreID(in: quire.ok(["cards", "category", "rm", "K"]))
            #expect(try quire.ok(["cards", "category", "list", "--deleted"]) == "K  (1 note)  \(old)\n")
            try quire.ok(["cards", "category", "add", "K"])

            let refused = try quire.run(["restore", old])
            #expect(refused.status == 1)
            #expect(refused.standardError.contains("a category titled 'K' exists already"), "\(refused.standardError)")
            #expect(try quire.ok(["cards", "note", "list", "K"]).contains("'K' has no notes yet"))
            #expect(try quire.ok(["cards", "category", "list"]) == "K  (0 notes)\n")

            try quire.ok(["cards", "category", "rename", "K", "K2"])
            #expect(try quire.ok(["restore", old]) == "restored the category 'K'\n")
            #expect(try quire.ok(["cards", "note", "list", "K"]) == "1. old  (0 clues)\n")
            #expect(try quire.ok(["cards", "category", "list", "--deleted"]) == "no deleted categories\n")
            let json = try quire.ok(["cards", "category", "list", "--deleted", "--json"])
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any])
            #expect(entries.isEmpty)
        }
    }
}
