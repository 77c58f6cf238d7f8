import Foundation
import Testing
@testable import QuireTool

@Suite("quire bench tree")
struct TreeBenchCommandTests {
    @Test("--json prints one object with every documented field, and the replicas converge")
    func jsonFields() async throws {
        let run = await runTool(["bench", "tree", "--nodes", "60", "--moves", "300", "--replicas", "3", "--seed", "4",
                                 "--batch", "50", "--durability", "nosync", "--no-limits", "--json"])
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
        #expect(object["one_spot_inserts"] == nil, "--no-limits leaves the limits out")
    }

    @Test("without --json it prints a table")
    func table() async {
        let run = await runTool(["bench", "tree", "--nodes", "20", "--moves", "40", "--durability", "nosync"] + Self.smallLimits)
        #expect(run.status == 0, "stderr: \(run.errorOutput)")
        #expect(run.output.contains("local move, in memory (µs)"))
        #expect(run.output.contains("converged"))
        #expect(run.output.contains("inserts at one spot"))
        #expect(run.output.contains("data.mdb per node (bytes)"))
    }

    /// Caps small enough for a debug build to finish in a few seconds.
    static let smallLimits = ["--limit-inserts", "2000", "--limit-drags", "2000", "--limit-appends", "20000",
                              "--store-nodes", "20000", "--store-folders", "100"]

    @Test("--limits-only --json reports every limit: a count at its cap or an error, key lengths and bytes per node")
    func limitsJSON() async throws {
        let run = await runTool(["bench", "tree", "--limits-only", "--json"] + Self.smallLimits)
        #expect(run.status == 0, "stderr: \(run.errorOutput)")
        #expect(run.output.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["benchmark"] as? String == "tree")
        #expect(object["converged"] == nil, "--limits-only leaves the CRDT scenario out")
        #expect(object["limits_durability"] as? String == "noSync")
        for (count, limit, error, cap) in [("one_spot_inserts", "one_spot_limit", "one_spot_error", 2_000),
                                           ("drags_to_top", "drags_limit", "drags_error", 2_000),
                                           ("appends_one_folder", "appends_limit", "appends_error", 20_000)] {
            let done = try #require(object[count] as? Int, "missing \(count)")
            #expect(object[limit] as? Int == cap)
            // The error field is always there: null when the run reached its cap.
            let failure = try #require(object[error], "missing \(error)")
            if done == cap {
                #expect(failure is NSNull, "\(error) = \(failure) although \(count) reached its cap")
            } else {
                #expect(done > 0 && done < cap, "\(count) = \(done)")
                #expect(!((failure as? String) ?? "").isEmpty, "\(count) stopped at \(done) without an error")
            }
        }
        for field in ["max_key_bytes_one_spot", "max_key_bytes_drags", "max_key_bytes_appends"] {
            let bytes = try #require(object[field] as? Int, "missing \(field)")
            #expect(bytes > 0, "\(field) = \(bytes)")
        }
        #expect(object["store_leaves"] as? Int == 20_000)
        #expect(object["store_folders"] as? Int == 100)
        #expect(object["store_nodes_created"] as? Int == 20_101)
        let perNode = try #require(object["store_file_bytes_per_node"] as? Double)
        let treePerNode = try #require(object["store_bytes_per_node"] as? Double)
        #expect(perNode > 0)
        #expect(treePerNode > 0 && treePerNode < perNode, "tree \(treePerNode) of \(perNode) bytes per node")
        #expect((object["store_data_bytes"] as? Int ?? 0) > (object["store_tree_bytes"] as? Int ?? .max))
    }

    @Test("bad numbers are usage errors", arguments: [
        ["--nodes", "0"], ["--replicas", "many"], ["--seed", "-1"], ["--durability", "often"], ["--limit-inserts", "0"],
        ["--limit-drags", "-3"], ["--limit-appends", "lots"], ["--store-nodes", "0"], ["--store-folders", "0"],
        ["--limits-only", "--no-limits"],
    ])
    func badOptions(options: [String]) async {
        let run = await runTool(["bench", "tree"] + options)
        #expect(run.status == 2)
        #expect(run.errorOutput.contains("usage: quire bench tree"))
    }
}
