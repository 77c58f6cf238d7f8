import Foundation
import QuireTestSupport
import Testing

@Suite("quire cards (the real binary)")
struct CardsCommandTests {
    /// `quire cards note list CATEGORY --json`, decoded.
    private func notes(_ quire: AppTool, _ category: String) throws -> [[String: Any]] {
        let text = try quire.ok(["cards", "note", "list", category, "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test("categories, notes and clues: add, list, edit, reorder, remove")
    func lifecycle() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["cards", "category", "add", "Capitals"])
            try quire.ok(["cards", "category", "add", "Rivers"])
            #expect(try quire.ok(["cards", "category", "list"]) == "Capitals  (0 notes)\nRivers  (0 notes)\n")

            #expect(try quire.ok(["cards", "note", "add", "Capitals", "--answer", "Paris"]) == "added note Capitals/1: Paris\n")
            try quire.ok(["cards", "note", "add", "Capitals", "--answer", "Rome"])
            #expect(try quire.ok(["cards", "note", "add", "Capitals", "--answer", "Oslo", "--at", "1"]) == "added note Capitals/1: Oslo\n")
            try quire.ok(["cards", "clue", "add", "Capitals/2", "City of light"])
            try quire.ok(["cards", "clue", "add", "Capitals/2", "On the Seine", "--at", "1"])
            #expect(try quire.ok(["cards", "clue", "list", "Capitals/2"]) == "1. On the Seine\n2. City of light\n")
            #expect(try quire.ok(["cards", "note", "list", "Capitals"]) == "1. Oslo  (0 clues)\n2. Paris  (2 clues)\n3. Rome  (0 clues)\n")

            try quire.ok(["cards", "note", "move", "Capitals/3", "--to", "1"])
            #expect(try notes(quire, "Capitals").compactMap { $0["answer"] as? String } == ["Rome", "Oslo", "Paris"])
            try quire.ok(["cards", "note", "edit", "Capitals/1", "--answer", "Rome, Italy"])
            try quire.ok(["cards", "clue", "edit", "Capitals/3/1", "On the river Seine"])
            try quire.ok(["cards", "clue", "move", "Capitals/3/2", "--to", "1"])
            let listed = try notes(quire, "Capitals")
            #expect(listed.compactMap { $0["answer"] as? String } == ["Rome, Italy", "Oslo", "Paris"])
            #expect(listed[2]["clues"] as? [String] == ["City of light", "On the river Seine"])

            try quire.ok(["cards", "clue", "rm", "Capitals/3/1"])
            try quire.ok(["cards", "note", "rm", "Capitals/2"])
            #expect(try quire.ok(["cards", "note", "list", "Capitals"]) == "1. Rome, Italy  (0 clues)\n2. Paris  (1 clue)\n")
            // A note by its ID.
            let paris = try #require(try notes(quire, "Capitals").last?["id"] as? String)
            #expect(try quire.ok(["cards", "clue", "list", paris]) == "1. On the river Seine\n")

            try quire.ok(["cards", "category", "rename", "Rivers", "Streams"])
            let removed = try quire.ok(["cards", "category", "rm", "Streams"])
            #expect(try quire.ok(["cards", "category", "list"]) == "Capitals  (2 notes)\n")
            let id = try restoreID(in: removed)
            #expect(try quire.ok(["restore", id]) == "restored the category 'Streams'\n")
            let json = try quire.ok(["cards", "category", "list", "--json"])
            let categories = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
            #expect(categories.compactMap { $0["title"] as? String } == ["Capitals", "Streams"])
            #expect(categories.first?["notes"] as? Int == 2)
        }
    }

    @Test("the quiz reads answers from standard input and keeps score")
    func quiz() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["cards", "category", "add", "Capitals"])
            try quire.ok(["cards", "note", "add", "Capitals", "--answer", "Paris"])
            try quire.ok(["cards", "clue", "add", "Capitals/1", "City of light"])
            try quire.ok(["cards", "note", "add", "Capitals", "--answer", "Rome"])
            try quire.ok(["cards", "note", "add", "Capitals", "--answer", "Oslo"])
            let output = try quire.ok(["cards", "quiz", "Capitals"], input: "  paris.\nMilan\n\n")
            #expect(output.hasPrefix("1/3 [Capitals]\n  - City of light\nyour answer: right!\n2/3 [Capitals]\n  (no clues)\nyour answer: the answer is: Rome\n"))
            #expect(output.hasSuffix("score: 1/3\n"))
            let stopped = try quire.ok(["cards", "quiz"], input: "Paris\n")
            #expect(stopped.hasSuffix("score: 1/1 (stopped after 1 of 3)\n"))
        }
    }

    @Test("errors name what is missing and what to do", arguments: [
        (["cards", "note", "list", "Nope"], 1, "no category 'Nope'; there are 'Capitals'"),
        (["cards", "note", "edit", "Capitals/5", "--answer", "x"], 1, "'Capitals' has 1 note, so there is no note 5"),
        (["cards", "clue", "list", "Capitals"], 1, "'Capitals' does not name a note as CATEGORY/N"),
        (["cards", "clue", "rm", "Capitals/1/3"], 1, "note 'Capitals/1' has 0 clues, so there is no clue 3"),
        (["cards", "category", "add", "Capitals"], 1, "a category titled 'Capitals' exists already"),
        (["cards", "category", "add", ""], 2, "a name cannot be empty"),
        (["cards", "note", "add", "Capitals"], 2, "missing option '--answer TEXT'"),
        (["cards", "note", "add", "Capitals", "--answer", " "], 2, "expected an answer that is not empty"),
        (["cards", "note", "move", "Capitals/1"], 2, "missing option '--to INDEX'"),
        (["cards", "note", "move", "Capitals/1", "--to", "0"], 2, "option '--to' must be at least 1"),
        (["cards", "clue", "add", "Capitals/1"], 2, "missing argument 'TEXT'"),
        (["cards", "flip"], 2, "unknown command 'flip'"),
    ] as [([String], Int32, String)])
    func errors(arguments: [String], status: Int32, message: String) throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["cards", "category", "add", "Capitals"])
            try quire.ok(["cards", "note", "add", "Capitals", "--answer", "Paris"])
            let result = try quire.run(arguments)
            #expect(result.status == status, "\(result.standardError)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }
    }
}
