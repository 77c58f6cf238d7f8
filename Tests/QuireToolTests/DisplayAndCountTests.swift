import Foundation
import QuireTestSupport
import Testing

/// What the tool prints about text users typed: characters counted as a reader counts
/// them, lists one record per line with control characters shown, and the messages of
/// verify and demo when they cannot start.
@Suite("quire counts and lists as users see them (the real binary)")
struct DisplayAndCountTests {
    static let ode = "My Poetry/Your Poetry/Draft/Ode"

    @Test("wc and tree --json count characters as grapheme clusters: emoji with skin tones, ZWJ families, flags, CRLF are one each")
    func graphemeCounts() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
            // 5 emoji of 17 Unicode scalars, then a CRLF: 6 characters as a reader sees them.
            let text = "👋🏽👨‍👩‍👧‍👦🇫🇷❤️👩🏾‍💻\r\n"
            #expect(text.count == 6 && text.unicodeScalars.count == 19)
            try quire.ok(["write", Self.ode], input: text)
            #expect(try quire.ok(["wc", Self.ode]) == "      0 words       6 characters  \(Self.ode)\n")
            try quire.ok(["write", Self.ode], input: "Hi there\r\nfriend")
            #expect(try quire.ok(["wc", "My Poetry"]).hasSuffix("      3 words      15 characters  total, 1 file\n"))
            #expect(try quire.tree(Self.ode)["characters"] as? Int == 15)
        }
    }

    @Test("answers and clues with ESC, line breaks and bidi controls list one per line with them shown; --json and quiz input keep them exact")
    func controlCharactersShown() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["cards", "category", "add", "Capitals"])
            let answer = "Paris\n\u{1B}[31mred\u{1B}[0m\tx\u{202E}y"
            let added = try quire.ok(["cards", "note", "add", "Capitals", "--answer", answer])
            #expect(added == "added note Capitals/1: Paris\\n␛[31mred␛[0m\\tx\\u{202E}y\n")
            try quire.ok(["cards", "clue", "add", "Capitals/1", "line one\r\nline two\u{7}"])
            try quire.ok(["cards", "note", "add", "Capitals", "--answer", "Rome"])

            let notes = try quire.ok(["cards", "note", "list", "Capitals"])
            #expect(notes == "1. Paris\\n␛[31mred␛[0m\\tx\\u{202E}y  (1 clue)\n2. Rome  (0 clues)\n")
            #expect(!notes.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
            #expect(try quire.ok(["cards", "clue", "list", "Capitals/1"]) == "1. line one\\r\\nline two␇\n")

            let json = try quire.ok(["cards", "note", "list", "Capitals", "--json"])
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
            #expect(entries.first?["answer"] as? String == answer)
            #expect((entries.first?["clues"] as? [String])?.first == "line one\r\nline two\u{7}")
        }
    }

    @Test("verify --json prints one JSON object saying why when the store cannot be checked")
    func verifyJSONWithoutStore() throws {
        try withTemporaryDirectory { temp in
            let file = temp.appending("file")
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            for directory in [temp.appending("nothing"), file] {
                let run = try QuireExecutable.run(["verify", "--json", "--store", directory])
                #expect(run.status == 1)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any],
                                          "stdout: \(run.standardOutput)")
                #expect(object["healthy"] as? Bool == false)
                #expect(object["directory"] as? String == directory)
                // A missing directory has no store; a file is named as one.
                let why = directory == file ? "\(directory) is a file, not a store directory" : "no store at \(directory)"
                #expect((object["error"] as? String)?.contains(why) == true, "\(object)")
                #expect(run.standardOutput.split(separator: "\n").count == 1)
                #expect(run.standardError.contains(why))
            }
        }
    }

    @Test("demo --dir FILE says FILE is a file, not a directory")
    func demoDirectoryIsAFile() throws {
        try withTemporaryDirectory { temp in
            let file = temp.appending("notes.txt")
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            let run = try QuireExecutable.run(["demo", "--dir", file])
            #expect(run.status == 1)
            #expect(run.standardError.contains("\(file) is a file, not a directory; give a new or empty directory to --dir"), "\(run.standardError)")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "x")
        }
    }
}
