import Foundation
import QuireTestSupport
import Testing

@Suite("quire cat --at, diff and restore --to (the real binary)")
struct TextVersionCommandTests {
    static let ode = "My Poetry/Your Poetry/Draft/Ode"

    /// A store with the ode written twice, and the version files before and after the
    /// second write.
    private static func twoDrafts(in temp: TemporaryDirectory) throws -> (quire: AppTool, first: String, second: String) {
        let quire = AppTool(store: temp.appending("store"))
        try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
        try quire.ok(["write", ode], input: "Hello world\nsecond line")
        let first = temp.appending("first.version"), second = temp.appending("second.version")
        try quire.ok(["status", "--version-out", first])
        try quire.ok(["write", ode], input: "Hello there!\nsecond line\nthird")
        try quire.ok(["status", "--version-out", second])
        return (quire, first, second)
    }

    @Test("cat --at prints the file as it was at a version file's version, or at one given inline; now is the current text")
    func catAt() throws {
        try withTemporaryDirectory { temp in
            let (quire, first, second) = try Self.twoDrafts(in: temp)
            try quire.ok(["write", Self.ode], input: "Third draft")
            #expect(try quire.ok(["cat", Self.ode, "--at", first]) == "Hello world\nsecond line")
            #expect(try quire.ok(["cat", "--at", second, Self.ode]) == "Hello there!\nsecond line\nthird")
            #expect(try quire.ok(["cat", Self.ode, "--at", "now"]) == "Third draft")
            // The file's pairs inline: "REPLICA COUNTER" lines as REPLICA:COUNTER.
            let pairs = try String(contentsOfFile: first, encoding: .utf8).split(separator: "\n")
                .filter { $0.count > 17 && !$0.hasPrefix("store") && !$0.hasPrefix("quire") }
                .map { $0.replacingOccurrences(of: " ", with: ":") }.joined(separator: ",")
            #expect(try quire.ok(["cat", Self.ode, "--at", pairs]) == "Hello world\nsecond line")
        }
    }

    @Test("cat --at TIME prints the file as it was then (ISO 8601, UTC unless a zone is given); a time before it existed prints nothing")
    func catAtTime() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            let before = Date().addingTimeInterval(-2)
            try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
            try quire.ok(["write", Self.ode], input: "First draft")
            let first = Date()
            Thread.sleep(forTimeInterval: 1.2)  // the next change falls in a later second
            try quire.ok(["write", Self.ode], input: "Second draft")
            let iso = ISO8601DateFormatter()
            #expect(try quire.ok(["cat", Self.ode, "--at", iso.string(from: first)]) == "First draft")
            iso.timeZone = TimeZone(secondsFromGMT: 3_600)
            #expect(try quire.ok(["cat", Self.ode, "--at", iso.string(from: first)]) == "First draft", "with a zone")
            #expect(try quire.ok(["cat", Self.ode, "--at", ISO8601DateFormatter().string(from: Date().addingTimeInterval(60))]) == "Second draft")
            #expect(try quire.ok(["cat", Self.ode, "--at", ISO8601DateFormatter().string(from: before)]) == "")
            #expect(try quire.ok(["cat", Self.ode, "--at", "2000-01-01"]) == "")
            let malformed = try quire.run(["cat", Self.ode, "--at", "2026-13-45T99:00"])
            #expect(malformed.status != 0)
            // diff --from and restore --to take times too.
            let utc = ISO8601DateFormatter().string(from: first)
            #expect(try quire.ok(["diff", Self.ode, "--from", utc]).contains("-First"))
            try quire.ok(["restore", Self.ode, "--to", utc])
            #expect(try quire.ok(["cat", Self.ode]) == "First draft")
        }
    }

    @Test("cat --name prints a record's name, with --at the name it had then: a renamed file and folder show their old names; before the file existed is an error")
    func catNameAt() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
            let empty = temp.appending("empty.version"), first = temp.appending("first.version")
            try quire.ok(["status", "--version-out", empty])
            try quire.ok(["write", Self.ode], input: "Hello")
            try quire.ok(["status", "--version-out", first])
            try quire.ok(["rename", Self.ode, "Hymn"])
            try quire.ok(["rename", "My Poetry/Your Poetry/Draft", "Drafts"])
            let hymn = "My Poetry/Your Poetry/Drafts/Hymn"
            #expect(try quire.ok(["cat", hymn, "--name"]) == "Hymn\n")
            #expect(try quire.ok(["cat", hymn, "--name", "--at", first]) == "Ode\n")
            #expect(try quire.ok(["cat", "My Poetry/Your Poetry/Drafts", "--name", "--at", first]) == "Draft\n")
            #expect(try quire.ok(["cat", hymn, "--at", first]) == "Hello")
            let before = try quire.run(["cat", hymn, "--name", "--at", empty])
            #expect(before.status == 1)
            #expect(before.standardError.contains("did not exist yet"))
        }
    }

    @Test("cat --at refuses a version beyond the store and a missing version file, saying what to do")
    func catAtRefused() throws {
        try withTemporaryDirectory { temp in
            let (quire, _, _) = try Self.twoDrafts(in: temp)
            let beyond = try quire.run(["cat", Self.ode, "--at", "00000000000000a9:5"])
            #expect(beyond.status == 1)
            #expect(beyond.standardError.contains("replica 00000000000000a9"))
            #expect(beyond.standardError.contains("merge them first"))
            let missing = try quire.run(["cat", Self.ode, "--at", temp.appending("none.version")])
            #expect(missing.status == 1)
            #expect(missing.standardError.contains("quire status --version-out FILE"))
        }
    }

    @Test("diff prints each edit as its ranges, the deleted lines marked - and the typed ones +, uncoloured through a pipe; nothing for no change")
    func diff() throws {
        try withTemporaryDirectory { temp in
            let (quire, first, second) = try Self.twoDrafts(in: temp)
            let shown = try quire.ok(["diff", Self.ode, "--from", first])
            #expect(shown == "@ 6..<23 -> 6..<30\n-world\n-second line\n+there!\n+second line\n+third\n")
            #expect(!shown.contains("\u{1B}["))
            #expect(try quire.ok(["diff", Self.ode, "--from", first, "--to", second]) == shown)
            let back = try quire.ok(["diff", Self.ode, "--from", second, "--to", first])
            #expect(back == "@ 6..<30 -> 6..<23\n-there!\n-second line\n-third\n+world\n+second line\n")
            #expect(try quire.ok(["diff", Self.ode, "--from", second]) == "")
            let usage = try quire.run(["diff", Self.ode])
            #expect(usage.status == 2)
            #expect(usage.standardError.contains("--from"))
        }
    }

    @Test("restore --to puts the file's text back as a new edit; restore without it still takes records out of the trash")
    func restoreTo() throws {
        try withTemporaryDirectory { temp in
            let (quire, first, second) = try Self.twoDrafts(in: temp)
            #expect(try quire.ok(["restore", Self.ode, "--to", first]).hasPrefix("restored \(Self.ode) to \(first)"))
            #expect(try quire.ok(["cat", Self.ode]) == "Hello world\nsecond line")
            #expect(try quire.ok(["cat", Self.ode, "--at", second]) == "Hello there!\nsecond line\nthird")
            #expect(try quire.ok(["restore", Self.ode, "--to", first]).contains("nothing written"))
            try quire.ok(["rm", Self.ode])
            #expect(try quire.ok(["restore", "Ode"]).hasPrefix("restored "))
            #expect(try quire.ok(["cat", Self.ode]) == "Hello world\nsecond line")
        }
    }
}
