import Foundation
import Testing
@testable import QuireTool

/// A small sequential trace from the shared folder beside the repository.
private let smallTrace = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/traces/sequential/sveltecomponent.json.gz").path

@Suite("quire bench autosave")
struct AutosaveBenchCommandTests {
    @Test("--json prints one object with every documented field, store and baseline, all positive")
    func jsonFields() async throws {
        let run = await runTool(["bench", "autosave", "--keystrokes", "50", "--trace", smallTrace, "--json"])
        #expect(run.status == 0, "stderr: \(run.errorOutput)")
        #expect(run.output.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["benchmark"] as? String == "autosave")
        #expect(object["keystrokes"] as? Int == 50)
        #expect((object["edits"] as? Int ?? 0) >= 50)
        for field in [
            "commit_p50_ms", "commit_p99_ms", "raw_commit_p50_ms", "commit_ratio",
            "nosync_commit_p50_ms", "raw_nosync_commit_p50_ms", "nosync_commit_ratio",
            "log_bytes_per_keystroke", "open_and_read_ms",
        ] {
            let value = try #require(object[field] as? Double, "missing \(field)")
            #expect(value > 0, "\(field) = \(value)")
        }
        #expect((object["file_growth_bytes"] as? Int ?? 0) > 0)
        #expect((object["document_chars"] as? Int ?? 0) > 0)
        #expect(object["correct"] as? Bool == true)
    }

    @Test("bad numbers are usage errors", arguments: [["--keystrokes", "0"], ["--runs", "few"]])
    func badOptions(options: [String]) async {
        let run = await runTool(["bench", "autosave"] + options)
        #expect(run.status == 2)
        #expect(run.errorOutput.contains("usage: quire bench autosave"))
    }
}
