import Foundation
import Testing
@testable import QuireTool

@Suite("quire bench tree")
struct TreeBenchCommandTests {
    @Test("--json prints one object with every documented field, and the replicas converge")
    func jsonFields() async throws {
        let run = await runTool(["bench", "tree", "--nodes", "60", "--moves", "300", "--replicas", "3", "--seed", "4",
                                 "--batch", "50", "--durability", "nosync", "--json"])
        #expect(run.status == 0, "stderr: \(run.errorOutput)")
        #expect(run.output.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["benchmark"] as? String == "tree")
        #expect(object["nodes"] as? Int == 60)
        #expect(object["replicas"] as? Int == 3)
        #expect(object["persisted_batch"] as? Int == 50)
        for field in ["create_us_per_node", "local_move_us", "persisted_move_us", "merge_ms", "persisted_merge_ms"] {
            let value = try #require(object[field] as? Double, "missing \(field)")
            #expect(value > 0, "\(field) = \(value)")
        }
        #expect((object["merge_ms_per_replica"] as? [Double])?.count == 3)
        #expect((object["log_bytes"] as? Int ?? 0) > 0)
        #expect(object["skipped_cycle_moves"] is Int)
        #expect(object["merge_skipped_moves"] is Int)
        #expect(object["converged"] as? Bool == true)
        #expect(object["persisted_consistent"] as? Bool == true)
    }

    @Test("without --json it prints a table")
    func table() async {
        let run = await runTool(["bench", "tree", "--nodes", "20", "--moves", "40", "--durability", "nosync"])
        #expect(run.status == 0)
        #expect(run.output.contains("local move, in memory (µs)"))
        #expect(run.output.contains("converged"))
    }

    @Test("bad numbers are usage errors", arguments: [["--nodes", "0"], ["--replicas", "many"], ["--seed", "-1"], ["--durability", "often"]])
    func badOptions(options: [String]) async {
        let run = await runTool(["bench", "tree"] + options)
        #expect(run.status == 2)
        #expect(run.errorOutput.contains("usage: quire bench tree"))
    }
}
