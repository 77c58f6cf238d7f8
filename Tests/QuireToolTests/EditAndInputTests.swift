import Foundation
import QuireTestSupport
import Testing

/// `quire write` with standard input that is not text, and `quire edit` when the editor
/// fails: clear errors, nothing applied, and nothing of the user's lost.
@Suite("quire write and edit: unusable input and failing editors (the real binary)")
struct EditAndInputTests {
    static let ode = "My Poetry/Your Poetry/Draft/Ode"

    /// A store with a poetry project and the file `ode` reading `text`.
    static func store(in temp: TemporaryDirectory, text: String = "The sea is calm tonight.") throws -> AppTool {
        let quire = AppTool(store: temp.appending("store"))
        try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
        try quire.ok(["write", ode], input: text)
        return quire
    }

    /// Runs `quire write ode` through the shell with `redirection` for standard input.
    static func write(_ quire: AppTool, redirection: String) throws -> ProcessResult {
        let executable = try BuiltProducts.executable(named: "quire").path
        return try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" write \"$1\" \(redirection)", executable, ode],
                              environment: ["QUIRE_STORE": quire.store])
    }

    /// An executable script `name` in `temp` running `body` (with the file as `$1`).
    static func script(_ name: String, _ body: String, in temp: TemporaryDirectory) throws -> String {
        let path = temp.appending(name)
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    /// The temporary copy a message names: the word after "Your version is in ", up to ":".
    static func keptCopy(in message: String) throws -> String {
        let after = try #require(message.range(of: "Your version is in ")).upperBound
        return String(message[after...].prefix { $0 != ":" })
    }

    @Test("write with standard input closed, or a directory, fails with a clear error and changes nothing")
    func unusableStandardInput() throws {
        try withTemporaryDirectory { temp in
            let quire = try Self.store(in: temp)
            let closed = try Self.write(quire, redirection: "<&-")
            #expect(closed.status == 1, "\(closed)")
            #expect(closed.standardError.contains("standard input is closed; give the text on standard input"), "\(closed.standardError)")
            let directory = try Self.write(quire, redirection: "< \(temp.path.shellQuotedForTest)")
            #expect(directory.status == 1, "\(directory)")
            #expect(directory.standardError.contains("standard input is a directory, not text"), "\(directory.standardError)")
            #expect(try quire.ok(["cat", Self.ode]) == "The sea is calm tonight.")
            #expect(try Self.write(quire, redirection: "< /dev/null").status == 0)  // empty input empties the file
            #expect(try quire.ok(["cat", Self.ode]) == "")
        }
    }

    @Test("an editor that saves and then exits non-zero applies nothing and keeps the saved copy")
    func failingEditorKeepsCopy() throws {
        try withTemporaryDirectory { temp in
            let quire = try Self.store(in: temp)
            let editor = try Self.script("saves-then-fails", "printf 'The sea is wild tonight.' > \"$1\"\nexit 3", in: temp)
            let failed = try quire.run(["edit", Self.ode], environment: ["EDITOR": editor, "VISUAL": "", "TMPDIR": temp.path])
            #expect(failed.status == 1)
            #expect(failed.standardError.contains("exited with status 3 after saving; nothing was applied"), "\(failed.standardError)")
            let copy = try Self.keptCopy(in: failed.standardError)
            #expect(try String(contentsOfFile: copy, encoding: .utf8) == "The sea is wild tonight.")
            #expect(failed.standardError.contains("quire write"))
            #expect(try quire.ok(["cat", Self.ode]) == "The sea is calm tonight.")
        }
    }

    @Test("an editor that saves text that is not UTF-8 applies nothing and keeps the copy it names")
    func invalidUTF8KeepsCopy() throws {
        try withTemporaryDirectory { temp in
            let quire = try Self.store(in: temp)
            let editor = try Self.script("latin1", "printf 'caf\\351' > \"$1\"", in: temp)
            let failed = try quire.run(["edit", Self.ode], environment: ["EDITOR": editor, "VISUAL": "", "TMPDIR": temp.path])
            #expect(failed.status == 1)
            #expect(failed.standardError.contains("the edited text is not UTF-8; nothing was applied"), "\(failed.standardError)")
            let copy = try Self.keptCopy(in: failed.standardError)
            #expect(FileManager.default.contents(atPath: copy) == Data([0x63, 0x61, 0x66, 0xE9]))
            #expect(try quire.ok(["cat", Self.ode]) == "The sea is calm tonight.")
        }
    }

    @Test("edit with no $VISUAL, no $EDITOR and no vi on PATH says to set $EDITOR")
    func noEditor() throws {
        try withTemporaryDirectory { temp in
            let quire = try Self.store(in: temp)
            let empty = temp.appending("empty-bin")
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
            let run = try quire.run(["edit", Self.ode], environment: ["EDITOR": "", "VISUAL": "", "PATH": empty])
            #expect(run.status == 1)
            #expect(run.standardError.contains("no editor: $VISUAL and $EDITOR are not set and there is no vi on PATH; set EDITOR"),
                    "\(run.standardError)")
        }
    }
}

extension String {
    /// The string in single quotes for `/bin/sh`.
    var shellQuotedForTest: String { "'" + replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
