import Foundation
import Quire
import QuireTestSupport
import Testing
@testable import QuireTool

/// A note record for the stores these tests build through the library.
private struct Note: Record {
    static let typeName = "note"
    static let siblingNameField: String? = "title"
    var title: String
}

/// Builds a store in `directory` holding notes with a text each, through the library.
@discardableResult
private func makeStore(at directory: String, notes: [String]) throws -> [RecordID] {
    let store = try Store(directory: directory)
    defer { try? store.close() }
    return try notes.map { title in
        try store.write { tx in
            let note = try tx.insert(Note(title: title))
            try tx.insert("Text of \(title)", at: 0, in: note.text("body"))
            return note
        }
    }
}

/// `quire status --json` for a store, decoded.
private func status(of store: String) throws -> [String: Any] {
    let run = try QuireExecutable.run(["status", "--store", store, "--json"])
    #expect(run.status == 0, "stderr: \(run.standardError)")
    return try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
}

@Suite("quire export, import and status (the real binary)")
struct StoreCommandTests {
    @Test("export, import into a second store: both show the same version and store ID")
    func exportImportStatus() throws {
        try withTemporaryDirectory { temp in
            let laptop = temp.appending("laptop"), phone = temp.appending("phone")
            try makeStore(at: laptop, notes: ["Ode", "Sonnet"])
            let delta = temp.appending("all.qdelta")

            let export = try QuireExecutable.run(["export", "--store", laptop, "-o", delta])
            #expect(export.status == 0, "stderr: \(export.standardError)")
            #expect(export.standardOutput.contains("wrote \(delta): "))
            #expect(export.standardOutput.contains("2 changes of 1 replica"))
            #expect(FileManager.default.fileExists(atPath: delta))

            let imported = try QuireExecutable.run(["import", "--store", phone, delta])
            #expect(imported.status == 0, "stderr: \(imported.standardError)")
            #expect(imported.standardOutput.contains("created a new store at \(phone)"))
            #expect(imported.standardOutput.contains("\(delta): 2 applied, 0 already known, 0 pending; 2 records, 2 texts"))

            let laptopStatus = try status(of: laptop), phoneStatus = try status(of: phone)
            #expect(laptopStatus["version"] as? [String: Int] == phoneStatus["version"] as? [String: Int])
            #expect((laptopStatus["version"] as? [String: Int])?.values.reduce(0, +) ?? 0 > 0)
            #expect(laptopStatus["store_id"] as? String == phoneStatus["store_id"] as? String)
            #expect(laptopStatus["replica"] as? String != phoneStatus["replica"] as? String)
            #expect(phoneStatus["record_count"] as? Int == 2)
            #expect(phoneStatus["pending_changes"] as? Int == 0)

            let again = try QuireExecutable.run(["import", "--store", phone, delta])
            #expect(again.status == 0)
            #expect(again.standardOutput.contains("0 applied, 2 already known"))
        }
    }

    @Test("export --since a peer's version file carries only what the peer lacks")
    func exportSinceVersionFile() throws {
        try withTemporaryDirectory { temp in
            let laptop = temp.appending("laptop"), phone = temp.appending("phone")
            try makeStore(at: laptop, notes: ["Ode"])
            let first = temp.appending("first.qdelta"), versionFile = temp.appending("phone.version")
            #expect(try QuireExecutable.run(["export", "--store", laptop, "--all", "-o", first]).status == 0)
            #expect(try QuireExecutable.run(["import", "--store", phone, first]).status == 0)

            let written = try QuireExecutable.run(["status", "--store", phone, "--version-out", versionFile])
            #expect(written.status == 0, "stderr: \(written.standardError)")
            #expect(written.standardOutput.contains("wrote the version to \(versionFile)"))
            let text = try String(contentsOfFile: versionFile, encoding: .utf8)
            #expect(text.hasPrefix("quire-version 1\nstore "))

            let nothing = try QuireExecutable.run(["export", "--store", laptop, "--since", versionFile, "-o", temp.appending("none")])
            #expect(nothing.status == 0)
            #expect(nothing.standardOutput.contains("nothing to export"))
            #expect(!FileManager.default.fileExists(atPath: temp.appending("none")))

            try makeStore(at: laptop, notes: ["Haiku"])
            let second = temp.appending("second.qdelta")
            let export = try QuireExecutable.run(["export", "--store", laptop, "--since", versionFile, "-o", second])
            #expect(export.status == 0, "stderr: \(export.standardError)")
            #expect(export.standardOutput.contains("1 change of 1 replica"))
            let imported = try QuireExecutable.run(["import", "--store", phone, second])
            #expect(imported.standardOutput.contains("1 applied, 0 already known, 0 pending"))
            #expect(try status(of: laptop)["version"] as? [String: Int] == status(of: phone)["version"] as? [String: Int])
        }
    }

    @Test("export --since a version file of another store is refused; import of another store's file too")
    func otherLineage() throws {
        try withTemporaryDirectory { temp in
            let mine = temp.appending("mine"), theirs = temp.appending("theirs")
            try makeStore(at: mine, notes: ["Ode"])
            try makeStore(at: theirs, notes: ["Elegy"])
            let version = temp.appending("theirs.version")
            #expect(try QuireExecutable.run(["status", "--store", theirs, "--version-out", version]).status == 0)
            let export = try QuireExecutable.run(["export", "--store", mine, "--since", version, "-o", temp.appending("d")])
            #expect(export.status == 1)
            #expect(export.standardError.contains("\(version) is the version of store "))
            #expect(export.standardError.contains("use the version file of a replica of this store, or export with --all"))

            let delta = temp.appending("theirs.qdelta")
            #expect(try QuireExecutable.run(["export", "--store", theirs, "-o", delta]).status == 0)
            let imported = try QuireExecutable.run(["import", "--store", mine, delta])
            #expect(imported.status == 1)
            #expect(imported.standardError.contains("refused: the delta file belongs to store"))
            // `mine` has only its own changes: it says how to join, and --join does.
            #expect(imported.standardError.contains("wrote to it before its first sync"))
            #expect(imported.standardError.contains("'quire import --join'"))
            let joined = try QuireExecutable.run(["import", "--store", mine, "--join", delta])
            #expect(joined.status == 0, "\(joined.standardError)")
            #expect(joined.standardOutput.contains("1 applied, 0 already known, 0 pending"))
            #expect(try status(of: mine)["store_id"] as? String == status(of: theirs)["store_id"] as? String)
        }
    }

    @Test("a corrupt file is refused with its reason and exit 1; the other files are still imported")
    func corruptFile() throws {
        try withTemporaryDirectory { temp in
            let laptop = temp.appending("laptop"), phone = temp.appending("phone")
            try makeStore(at: laptop, notes: ["Ode", "Sonnet", "Villanelle"])
            let good = temp.appending("good.qdelta"), bad = temp.appending("bad.qdelta")
            #expect(try QuireExecutable.run(["export", "--store", laptop, "-o", good]).status == 0)
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: good)))
            bytes[bytes.count / 2] ^= 0x5A
            try Data(bytes).write(to: URL(fileURLWithPath: bad))

            let run = try QuireExecutable.run(["import", "--store", phone, bad, good])
            #expect(run.status == 1)
            // A flipped byte in the deflated payload makes its codes run past the end, so
            // the file reads as cut short; either way the remedy names the sender.
            #expect(run.standardError.contains("quire: \(bad): refused: the delta file is "))
            #expect(run.standardError.contains("fetch it again from its sender"))
            #expect(run.standardError.contains("quire: error: 1 of 2 delta files were refused"))
            #expect(run.standardOutput.contains("\(good): 3 applied"))
            #expect(try status(of: phone)["record_count"] as? Int == 3)
        }
    }

    @Test("a file that is not a delta file, and a missing file, are refused")
    func notADeltaFile() throws {
        try withTemporaryDirectory { temp in
            let junk = temp.appending("notes.txt")
            try Data("hello".utf8).write(to: URL(fileURLWithPath: junk))
            let run = try QuireExecutable.run(["import", "--store", temp.appending("s"), junk, temp.appending("missing.qdelta")])
            #expect(run.status == 1)
            #expect(run.standardError.contains("\(junk): refused: not a Quire delta file"))
            #expect(run.standardError.contains("missing.qdelta: refused: cannot read \(temp.appending("missing.qdelta")) (no such file)"))
            #expect(run.standardError.contains("quire: error: none of the 2 delta files can be imported (see above); no store was created at \(temp.appending("s"))"))
            #expect(!FileManager.default.fileExists(atPath: temp.appending("s")))
        }
    }

    @Test("importing only missing files into a new store fails without creating the store")
    func missingFilesCreateNoStore() throws {
        try withTemporaryDirectory { temp in
            let run = try QuireExecutable.run(["import", "--store", temp.appending("s"), temp.appending("none.qdelta")])
            #expect(run.status == 1)
            #expect(run.standardError.contains("quire: error: cannot read \(temp.appending("none.qdelta")) (no such file)"))
            #expect(!FileManager.default.fileExists(atPath: temp.appending("s")))
        }
    }

    @Test("status and export need an existing store and say how to name one")
    func missingStore() throws {
        try withTemporaryDirectory { temp in
            for arguments in [["status"], ["export", "-o", temp.appending("d")]] {
                let run = try QuireExecutable.run(arguments + ["--store", temp.appending("nowhere")])
                #expect(run.status == 1)
                #expect(run.standardError.contains("quire: error: no store at \(temp.appending("nowhere")); pass --store DIR"))
            }
        }
    }

    @Test("QUIRE_STORE names the store when --store is absent")
    func environmentVariable() throws {
        try withTemporaryDirectory { temp in
            let store = temp.appending("env-store")
            try makeStore(at: store, notes: ["Ode"])
            let run = try QuireExecutable.run(["status"], environment: ["QUIRE_STORE": store])
            #expect(run.status == 0, "stderr: \(run.standardError)")
            #expect(run.standardOutput.hasPrefix("store       \(store)\n"))
            #expect(run.standardOutput.contains("records     1\n"))
        }
    }

    @Test("usage errors exit 2 with the command's usage", arguments: [
        (["export"], "missing option '--output FILE'"),
        (["export", "--since", "v", "--all", "-o", "f"], "--since and --all exclude each other"),
        (["import"], "missing argument 'FILE'"),
        (["status", "extra"], "unexpected argument 'extra'"),
        (["status", "--store"], "option '--store' requires a value"),
        (["bench", "delta"], "missing option '--trace FILE'"),
        (["bench", "delta", "--trace", "t", "--runs", "0"], "option '--runs' must be at least 1, not 0"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let run = try QuireExecutable.run(arguments)
        #expect(run.status == 2)
        #expect(run.standardError.contains("quire: \(message)"), "stderr: \(run.standardError)")
        #expect(run.standardError.contains("usage: quire \(arguments[0])"))
    }

    @Test("every store command's help has an example", arguments: ["export", "import", "status"])
    func helpExample(command: String) throws {
        let run = try QuireExecutable.run([command, "--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("Example:\n  quire \(command) "))
        #expect(run.standardOutput.contains("--store DIR"))
        #expect(run.standardOutput.contains("[env: QUIRE_STORE]"))
    }
}
