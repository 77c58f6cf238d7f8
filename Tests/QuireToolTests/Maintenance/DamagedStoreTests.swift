import Foundation
import QuireTestSupport
import Testing

@Suite("A damaged store file (the real binary)")
struct DamagedStoreTests {
    static let ode = "My Poetry/Your Poetry/Draft/Ode"

    /// A store with a project and a file with some text, at `temp/store`.
    private func makeStore(in temp: TemporaryDirectory) throws -> AppTool {
        let quire = AppTool(store: temp.appending("store"))
        try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
        try quire.ok(["write", Self.ode], input: String(repeating: "The sea is calm tonight. ", count: 400))
        return quire
    }

    @Test("a data.mdb truncated to half: verify reports it (text and --json) with exit 1; status, tree, cat, compact exit 1 with the message instead of a bus error")
    func halfTruncated() throws {
        try withTemporaryDirectory { temp in
            let quire = try makeStore(in: temp)
            let data = quire.store + "/data.mdb"
            let full = try #require(try FileManager.default.attributesOfItem(atPath: data)[.size] as? Int)
            let handle = try #require(FileHandle(forWritingAtPath: data))
            try handle.truncate(atOffset: UInt64(full / 2))
            try handle.close()

            let verify = try quire.run(["verify"])
            #expect(verify.status == 1, "stderr: \(verify.standardError)")
            #expect(verify.standardOutput.contains("1 problem"), "stdout: \(verify.standardOutput)")
            #expect(verify.standardOutput.contains("data.mdb [meta pages]: the store file is truncated: it has \(full / 2) bytes, but its last committed transaction needs at least \(full)"))
            #expect(verify.standardOutput.contains("restore the store from a backup"))
            #expect(verify.standardError.contains("the store has 1 problem"))

            let json = try quire.run(["verify", "--json"])
            #expect(json.status == 1)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            #expect(report["healthy"] as? Bool == false)
            let problems = try #require(report["problems"] as? [[String: Any]])
            #expect(problems.count == 1)
            #expect(problems.first?["check"] as? String == "file")
            #expect(problems.first?["database"] as? String == "data.mdb")
            #expect((problems.first?["problem"] as? String)?.contains("truncated") == true)

            for arguments in [["status"], ["tree"], ["cat", Self.ode], ["compact"], ["log", Self.ode]] {
                let run = try quire.run(arguments)
                #expect(run.status == 1, "quire \(arguments): status \(run.status), stderr: \(run.standardError)")
                #expect(run.standardError.contains("the store file is truncated: it has \(full / 2) bytes"), "quire \(arguments): \(run.standardError)")
                #expect(run.standardError.contains("Restore the directory from a backup"), "quire \(arguments)")
            }
            // Nothing was written to the damaged file.
            #expect(try FileManager.default.attributesOfItem(atPath: data)[.size] as? Int == full / 2)
        }
    }
}
