import Foundation
import Quire
import QuireTestSupport
import Testing

/// A record for the stores these tests build through the library.
private struct Poem: Record {
    static let typeName = "poem"
    var title: String
}

private func addPoem(_ title: String, to directory: String) throws {
    let store = try Store(directory: directory)
    defer { try? store.close() }
    try store.write { tx in
        let poem = try tx.insert(Poem(title: title))
        try tx.insert("Lines of \(title)", at: 0, in: poem.text("body"))
    }
}

private func statusJSON(_ arguments: [String]) throws -> [String: Any] {
    let run = try QuireExecutable.run(["status", "--json"] + arguments)
    #expect(run.status == 0, "stderr: \(run.standardError)")
    return try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
}

@Suite("quire sync (the real binary)")
struct SyncCommandTests {
    @Test("two stores syncing through one folder end with the same version; status --folder shows both")
    func twoReplicas() throws {
        try withTemporaryDirectory { temp in
            let laptop = temp.appending("laptop"), phone = temp.appending("phone"), folder = temp.appending("Dropbox/Notes.sync")
            try addPoem("Ode", to: laptop)

            let first = try QuireExecutable.run(["sync", "--store", laptop, folder])
            #expect(first.status == 0, "stderr: \(first.standardError)")
            #expect(first.standardOutput.contains("wrote "))
            #expect(first.standardOutput.contains("synced: 1 file written, 0 imported"))

            let joined = try QuireExecutable.run(["sync", "--store", phone, folder])
            #expect(joined.status == 0, "stderr: \(joined.standardError)")
            #expect(joined.standardOutput.contains("created a new store at \(phone)"))
            #expect(joined.standardOutput.contains(".qdelta: 1 applied, 0 already known, 0 pending; 1 record, 1 text"))

            try addPoem("Elegy", to: phone)
            #expect(try QuireExecutable.run(["sync", "--store", phone, folder]).status == 0)
            let back = try QuireExecutable.run(["sync", "--store", laptop, folder])
            #expect(back.standardOutput.contains("1 applied"), "stdout: \(back.standardOutput)")
            #expect(try QuireExecutable.run(["sync", "--store", phone, folder]).status == 0)

            let laptopStatus = try statusJSON(["--store", laptop, "--folder", folder])
            let phoneStatus = try statusJSON(["--store", phone])
            #expect(laptopStatus["version"] as? [String: Int] == phoneStatus["version"] as? [String: Int])
            #expect(laptopStatus["record_count"] as? Int == 2)
            let folderState = try #require(laptopStatus["folder"] as? [String: Any])
            let replicas = try #require(folderState["replicas"] as? [[String: Any]])
            #expect(Set(replicas.compactMap { $0["replica"] as? String })
                == [laptopStatus["replica"] as? String, phoneStatus["replica"] as? String].compactMap { $0 }.reduce(into: Set()) { $0.insert($1) })
            #expect(replicas.allSatisfy { $0["ack"] is [String: Int] })

            let text = try QuireExecutable.run(["status", "--store", laptop, "--folder", folder])
            #expect(text.standardOutput.contains("sync folder \(folder): 2 replica(s)"))
            #expect(text.standardOutput.contains("(this replica)"))
        }
    }

    @Test("a replica's ack file in the folder works as a version file for export --since")
    func ackAsVersionFile() throws {
        try withTemporaryDirectory { temp in
            let laptop = temp.appending("laptop"), phone = temp.appending("phone"), folder = temp.appending("sync")
            try addPoem("Ode", to: laptop)
            #expect(try QuireExecutable.run(["sync", "--store", laptop, folder]).status == 0)
            #expect(try QuireExecutable.run(["sync", "--store", phone, folder]).status == 0)
            let phoneReplica = try #require(try statusJSON(["--store", phone])["replica"] as? String)
            try addPoem("Elegy", to: laptop)
            let delta = temp.appending("for-phone.qdelta")
            let export = try QuireExecutable.run(
                ["export", "--store", laptop, "--since", folder + "/" + phoneReplica + "/ack", "-o", delta])
            #expect(export.status == 0, "stderr: \(export.standardError)")
            #expect(export.standardOutput.contains("1 change of 1 replica"))
        }
    }

    @Test("a new store that cannot join says so and exits 1; once the writer has written its base file it joins; own conflict copies are removed")
    func lateJoiner() throws {
        try withTemporaryDirectory { temp in
            let laptop = temp.appending("laptop"), phone = temp.appending("phone"), late = temp.appending("late")
            let folder = temp.appending("sync")
            try addPoem("Ode", to: laptop)
            #expect(try QuireExecutable.run(["sync", "--store", laptop, folder]).status == 0)
            try addPoem("Elegy", to: laptop)
            for store in [laptop, phone, laptop] { #expect(try QuireExecutable.run(["sync", "--store", store, folder]).status == 0) }
            let replica = try #require(try statusJSON(["--store", laptop])["replica"] as? String)
            // The folder as an earlier quire left it: the laptop's files pruned, no base file.
            for name in try FileManager.default.contentsOfDirectory(atPath: folder + "/" + replica) where name.hasSuffix(".qdelta") {
                try FileManager.default.removeItem(atPath: folder + "/" + replica + "/" + name)
            }
            let stuck = try QuireExecutable.run(["sync", "--store", late, folder])
            #expect(stuck.status == 1)
            #expect(stuck.standardError.contains("has not joined the store that syncs through"), "stderr: \(stuck.standardError)")
            #expect(stuck.standardError.contains("quire import"))

            try Data("quire-ack 1\n".utf8).write(to: URL(fileURLWithPath: folder + "/" + replica + "/ack.sync-conflict-20261201-101500-7QWERTY"))
            let repair = try QuireExecutable.run(["sync", "--store", laptop, folder])
            #expect(repair.status == 0, "stderr: \(repair.standardError)")
            #expect(repair.standardOutput.contains("wrote base \(replica)/0-"), "stdout: \(repair.standardOutput)")
            #expect(repair.standardOutput.contains("removed conflict copy \(replica)/ack.sync-conflict-20261201-101500-7QWERTY"))

            let joined = try QuireExecutable.run(["sync", "--store", late, folder])
            #expect(joined.status == 0, "stderr: \(joined.standardError)")
            #expect(try statusJSON(["--store", late])["record_count"] as? Int == 2)
        }
    }

    @Test("a sync folder inside the store is refused with what to do")
    func folderInsideStore() throws {
        try withTemporaryDirectory { temp in
            let store = temp.appending("store")
            try addPoem("Ode", to: store)
            let run = try QuireExecutable.run(["sync", "--store", store, store + "/sync"])
            #expect(run.status == 1)
            #expect(run.standardError.contains("overlaps the store's directory"))
        }
    }

    @Test("sync needs a folder")
    func usage() throws {
        let run = try QuireExecutable.run(["sync"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("quire: missing argument 'FOLDER'\nusage: quire sync"))
    }
}
