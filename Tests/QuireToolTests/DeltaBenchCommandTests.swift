import Foundation
import Testing

/// A small sequential trace from the shared folder beside the repository.
private let smallTrace = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/traces/sequential/friendsforever_flat.json.gz").path

@Suite("quire bench delta (the real binary)")
struct DeltaBenchCommandTests {
    @Test("--json prints one object with every documented field")
    func jsonFields() throws {
        let run = try QuireExecutable.run(["bench", "delta", "--trace", smallTrace, "--runs", "1", "--json"])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.standardOutput.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect(object["benchmark"] as? String == "delta")
        #expect(object["trace"] as? String == "friendsforever_flat")
        #expect(object["ops"] as? Int == 26_078)
        #expect(object["runs"] as? Int == 1)
        #expect(object["batch"] as? Int == 26_078)  // all patches in one change
        #expect(object["keystrokes"] as? Int == 1_000)
        // One change per trace transaction, plus the one creating the record.
        let changes = try #require(object["changes"] as? Int)
        #expect(changes > 26_000)
        #expect(object["batched_changes"] as? Int == 2)
        for field in ["delta_bytes", "batched_delta_bytes", "end_chars"] {
            #expect((object[field] as? Int ?? 0) > 0, "\(field)")
        }
        for field in ["delta_deflated_bytes", "batched_delta_deflated_bytes"] {
            #expect(object[field] is Int, "missing \(field)")
        }
        #expect((object["batched_delta_bytes"] as? Int ?? .max) < object["delta_bytes"] as? Int ?? 0)
        #expect((object["store_bytes_after_typing"] as? Int ?? 0) > 0)
        for field in ["import_ms", "batched_import_ms", "export_ms", "keystroke_file_bytes", "keystroke_export_us", "open_and_read_ms", "sync_catch_up_ms"] {
            let value = try #require(object[field] as? Double, "missing \(field)")
            #expect(value > 0, "\(field) = \(value)")
        }
        #expect((object["keystroke_file_bytes"] as? Double ?? 0) < 64)
        #expect(object["correct"] as? Bool == true)
    }

    @Test("a concurrent trace is refused with a message")
    func concurrentTrace() throws {
        let concurrent = smallTrace.replacingOccurrences(of: "sequential/friendsforever_flat", with: "concurrent/friendsforever")
        let run = try QuireExecutable.run(["bench", "delta", "--trace", concurrent, "--runs", "1"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("needs a sequential trace"))
    }
}
