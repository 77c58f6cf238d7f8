import Foundation
import Testing
@testable import QuireTool

@Suite("quire bench lmdb")
struct BenchCommandTests {
    @Test("--json prints one object with every documented field, layer and baseline")
    func jsonFields() async throws {
        let run = await runTool(["bench", "lmdb", "--runs", "1", "--commits", "3", "--reads", "20", "--entries", "50", "--durability", "nosync", "--json"])
        #expect(run.status == 0, "stderr: \(run.errorOutput)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["benchmark"] as? String == "lmdb")
        #expect(object["durability"] as? String == "noSync")
        #expect(object["entries"] as? Int == 50)
        for field in ["commit_us", "raw_commit_us", "read_ns", "raw_read_ns", "bulk_put_ms", "raw_bulk_put_ms", "scan_ms", "raw_scan_ms"] {
            let value = try #require(object[field] as? Double, "missing \(field)")
            #expect(value > 0, "\(field) = \(value)")
        }
        let commit = try #require(object["commit_us"] as? Double)
        let rawCommit = try #require(object["raw_commit_us"] as? Double)
        let ratio = try #require(object["commit_ratio"] as? Double)
        #expect(abs(ratio - commit / rawCommit) < 1e-9)
        #expect((object["data_bytes"] as? Int ?? 0) > 0)
    }

    @Test("without --json it prints a table with the layer, the baseline and the ratio")
    func table() async {
        let run = await runTool(["bench", "lmdb", "--runs", "1", "--commits", "2", "--reads", "10", "--entries", "20", "--durability", "nosync"])
        #expect(run.status == 0)
        #expect(run.output.contains("layer   baseline   ratio"))
        #expect(run.output.contains("tiny commit (µs)"))
    }

    @Test("bad numbers and an unknown durability are usage errors", arguments: [
        ["--runs", "0"], ["--entries", "lots"], ["--durability", "sometimes"],
    ])
    func badOptions(options: [String]) async {
        let run = await runTool(["bench", "lmdb"] + options)
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errorOutput.contains("usage: quire bench lmdb"))
    }
}
