import Foundation
import LMDB
import Quire
import QuireTestSupport
import Testing

/// A record for the stores these tests build through the library.
private struct Note: Record {
    static let typeName = "tools.note"
    var title: String
}

/// Writes a note with a text into the store at `directory` (created when missing).
private func addNote(_ title: String, to directory: String, typing words: Int = 1) throws {
    let store = try Store(directory: directory)
    defer { try? store.close() }
    let note = try store.write { tx in try tx.insert(Note(title: title)) }
    for index in 0..<words {
        try store.write { tx in try tx.insert("word\(index) ", at: 0, in: note.text("body")) }
    }
}

private func json(_ run: ProcessResult) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
}

@Suite("quire verify, compact and info (the real binary)")
struct StoreToolCommandTests {
    @Test("verify: a healthy store exits 0; a damaged one lists the problem precisely and exits 1")
    func verify() throws {
        try withTemporaryDirectory { temp in
            let store = temp.appending("store")
            try addNote("Ode", to: store, typing: 3)
            let healthy = try QuireExecutable.run(["verify", "--store", store])
            #expect(healthy.status == 0, "stderr: \(healthy.standardError)")
            #expect(healthy.standardOutput.contains("healthy: checked 4 changes, 0 pending, 1 records, 1 nodes"))

            // Damage: remove the children-index entry of the note.
            var configuration = Environment.Configuration()
            configuration.maxDatabases = 16
            let environment = try Environment(path: store, configuration: configuration)
            let children = try environment.openDatabase(named: "tree.children")
            try environment.write { tx in
                let key = try #require(try tx.entries(in: children).first).key
                let removed = try tx.removeValue(forKey: key, in: children)
                #expect(removed)
            }
            try environment.close()

            let damaged = try QuireExecutable.run(["verify", "--store", store])
            #expect(damaged.status == 1)
            #expect(damaged.standardOutput.contains("1 problem in 4 changes"))
            #expect(damaged.standardOutput.contains("tree.children ["))
            #expect(damaged.standardOutput.contains("has no entry in the children index under its parent"))
            #expect(damaged.standardError.contains("the store has 1 problem (listed above)"))
            let report = try json(try QuireExecutable.run(["verify", "--json", "--store", store]))
            #expect(report["healthy"] as? Bool == false)
            let problems = try #require(report["problems"] as? [[String: Any]])
            #expect(problems.count == 1)
            #expect(problems.first?["check"] as? String == "tree")
            #expect(problems.first?["database"] as? String == "tree.children")
            #expect((problems.first?["remedy"] as? String)?.contains("backup") == true)
        }
    }

    @Test("verify and compact name a missing store and exit 1")
    func missingStore() throws {
        try withTemporaryDirectory { temp in
            for command in ["verify", "compact", "info"] {
                let run = try QuireExecutable.run([command, "--store", temp.appending("nothing")])
                #expect(run.status == 1, "\(command)")
                #expect(run.standardError.contains("no store at"), "\(command): \(run.standardError)")
            }
        }
    }

    @Test("compact in place shrinks a grown file; --output writes a copy and leaves the store")
    func compact() throws {
        try withTemporaryDirectory { temp in
            let store = temp.appending("store")
            try addNote("Ode", to: store, typing: 400)
            let inPlace = try QuireExecutable.run(["compact", "--store", store])
            #expect(inPlace.status == 0, "stderr: \(inPlace.standardError)")
            #expect(inPlace.standardOutput.contains("compacted \(store): data file "))
            #expect(!inPlace.standardOutput.contains("pruned"))
            #expect(try QuireExecutable.run(["verify", "--store", store]).status == 0)

            let copy = temp.appending("backup")
            let run = try QuireExecutable.run(["compact", "--json", "--store", store, "--output", copy])
            #expect(run.status == 0, "stderr: \(run.standardError)")
            let report = try json(run)
            #expect(report["output"] as? String == copy)
            #expect((report["bytes_after"] as? Int ?? 0) > 0)
            #expect(FileManager.default.fileExists(atPath: copy + "/data.mdb"))
            #expect(try QuireExecutable.run(["verify", "--store", copy]).status == 0)
        }
    }

    @Test("compact --folder prunes what every replica acknowledged in the sync folder; export of the pruned history is refused clearly")
    func compactWithFolder() throws {
        try withTemporaryDirectory { temp in
            let laptop = temp.appending("laptop"), phone = temp.appending("phone"), folder = temp.appending("sync")
            try addNote("Ode", to: laptop, typing: 20)
            #expect(try QuireExecutable.run(["sync", "--store", laptop, folder]).status == 0)
            #expect(try QuireExecutable.run(["sync", "--store", phone, folder]).status == 0)
            #expect(try QuireExecutable.run(["sync", "--store", laptop, folder]).status == 0)

            let run = try QuireExecutable.run(["compact", "--store", laptop, "--folder", folder])
            #expect(run.status == 0, "stderr: \(run.standardError)")
            #expect(run.standardOutput.contains("pruned 21 changes"), "stdout: \(run.standardOutput)")
            #expect(try QuireExecutable.run(["verify", "--store", laptop]).status == 0)
            let info = try json(try QuireExecutable.run(["info", "--json", "--store", laptop]))
            #expect((info["kept_from"] as? [String: Any])?.count == 1)

            let export = try QuireExecutable.run(["export", "--all", "--store", laptop, "-o", temp.appending("all.qdelta")])
            #expect(export.status == 1)
            #expect(export.standardError.contains("pruned the changes of replica"))
            #expect(export.standardError.contains("import a full delta exported by a replica that kept its whole history"))
            // The phone kept everything and can still give it.
            #expect(try QuireExecutable.run(["export", "--all", "--store", phone, "-o", temp.appending("all.qdelta")]).status == 0)
        }
    }

    @Test("compact with an unacknowledged replica prunes nothing and says why; a malformed --ack is a usage error")
    func compactBlocked() throws {
        try withTemporaryDirectory { temp in
            let laptop = temp.appending("laptop"), phone = temp.appending("phone"), folder = temp.appending("sync")
            try addNote("Ode", to: laptop, typing: 2)
            #expect(try QuireExecutable.run(["sync", "--store", laptop, folder]).status == 0)
            #expect(try QuireExecutable.run(["sync", "--store", phone, folder]).status == 0)
            try addNote("Elegy", to: phone)
            #expect(try QuireExecutable.run(["sync", "--store", phone, folder]).status == 0)
            #expect(try QuireExecutable.run(["sync", "--store", laptop, folder]).status == 0)
            // A version file of the phone passed by hand works like its ack.
            let version = temp.appending("phone.version")
            #expect(try QuireExecutable.run(["status", "--store", phone, "--version-out", version]).status == 0)
            let phoneID = try #require(try json(try QuireExecutable.run(["status", "--json", "--store", phone]))["replica"] as? String)
            let blocked = try QuireExecutable.run(["compact", "--store", laptop, "--ack", "00000000000000aa=\(version)"])
            #expect(blocked.status == 0)
            #expect(blocked.standardOutput.contains("pruned nothing: no acknowledgement from replica \(phoneID)"), "stdout: \(blocked.standardOutput)")
            let pruned = try QuireExecutable.run(["compact", "--store", laptop, "--ack", "\(phoneID)=\(version)"])
            #expect(pruned.standardOutput.contains("pruned 5 changes"), "stdout: \(pruned.standardOutput)")

            let usage = try QuireExecutable.run(["compact", "--store", laptop, "--ack", "phone.version"])
            #expect(usage.status == 2)
            #expect(usage.standardError.contains("--ack takes REPLICA=VERSIONFILE"))
        }
    }

    @Test("info lists every LMDB database of the store with its entries and bytes")
    func info() throws {
        try withTemporaryDirectory { temp in
            let store = temp.appending("store")
            try addNote("Ode", to: store, typing: 2)
            let text = try QuireExecutable.run(["info", "--store", store])
            #expect(text.status == 0, "stderr: \(text.standardError)")
            #expect(text.standardOutput.contains("replica "))
            #expect(text.standardOutput.contains("database           entries   pages       bytes  depth"))
            let report = try json(try QuireExecutable.run(["info", "--json", "--store", store]))
            let databases = try #require(report["databases"] as? [[String: Any]])
            #expect(databases.compactMap { $0["name"] as? String } == [
                "meta", "changes", "pending", "records", "texts", "text-strings", "text-slots", "names",
                "tree.log", "tree.nodes", "tree.children", "tree.meta",
            ])
            // The note's creation, and its two keystrokes folded into one run when the
            // command closed the store (a checkpoint).
            #expect(databases.first { $0["name"] as? String == "changes" }?["entries"] as? Int == 2)
            #expect((report["page_size"] as? Int ?? 0) >= 4096)
            #expect((report["status"] as? [String: Any])?["record_count"] as? Int == 1)
        }
    }

    @Test("each store tool's help has an example")
    func help() throws {
        for command in ["verify", "compact", "info"] {
            let run = try QuireExecutable.run([command, "--help"])
            #expect(run.status == 0)
            #expect(run.standardOutput.contains("Example:\n  quire \(command) "), "\(command)")
        }
    }
}
