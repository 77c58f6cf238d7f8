import Foundation
import QuireCore
import QuireTestSupport
import Testing
@testable import QuireTool

/// The shared folder beside the repository: conformance cases and traces.
private let shared = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared")

private func files(in folder: String) -> [String] {
    let directory = shared.appendingPathComponent(folder)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".json") || $0.hasSuffix(".json.gz") }.sorted()
        .map { directory.appendingPathComponent($0).path }
}

@Suite("Trace replay")
struct TraceReplayTests {
    @Test("the shared conformance cases and traces are present")
    func sharedFilesPresent() {
        #expect(files(in: "conformance/diamond-types").count == 100)
        #expect(files(in: "conformance/fuguemax").count == 60)
        #expect(files(in: "traces/sequential").count == 5)
        #expect(files(in: "traces/concurrent").count == 2)
        #expect(files(in: "traces/many-replicas").count == 1)
    }

    @Test("every conformance case replays to its endContent", arguments: files(in: "conformance/diamond-types") + files(in: "conformance/fuguemax"))
    func conformance(path: String) throws {
        let trace = try TraceFile.load(path)
        let text = try trace.replay().string
        #expect(text == trace.endContent)
        #expect(text == (try trace.referenceReplay().string), "differs from the per-agent reference replay")
    }

    @Test("every concurrent trace replays on one document to the per-agent reference's text and its endContent", arguments: files(in: "traces/concurrent"))
    func concurrentTraceMatchesReference(path: String) throws {
        let trace = try TraceFile.load(path)
        let replica = try trace.replay()
        let reference = try trace.referenceReplay()
        #expect(replica.string == trace.endContent)
        #expect(replica.string == reference.string)
        #expect(replica.version == reference.version)
        // The same operations (IDs, origins, targets), whatever their runs.
        #expect(characterOperations(replica) == characterOperations(reference))
    }

    /// The per-agent reference takes over 12 minutes here (one replica per transaction),
    /// so only `endContent` is checked; the history is the concurrent friendsforever one.
    @Test("the many-replicas trace (one agent per transaction) replays to its endContent", arguments: files(in: "traces/many-replicas"))
    func manyReplicas(path: String) throws {
        let trace = try TraceFile.load(path)
        let replica = try trace.replay()
        #expect(replica.string == trace.endContent)
        #expect(replica.pendingCount == 0)
    }

    @Test("the smaller traces (sequential and concurrent) replay to their endContent", arguments: [
        "traces/sequential/sveltecomponent.json.gz", "traces/sequential/clownschool_flat.json.gz",
        "traces/concurrent/friendsforever.json.gz", "traces/concurrent/clownschool.json.gz",
    ])
    func traces(name: String) throws {
        let trace = try TraceFile.load(shared.appendingPathComponent(name).path)
        let text = try trace.replay()
        #expect(text.string == trace.endContent)
    }

    @Test("quire trace replay --check reports OK, and a wrong endContent as MISMATCH with exit 1")
    func checkThroughTheTool() throws {
        let quire = try BuiltProducts.executable(named: "quire")
        let good = try runProcess(quire, ["trace", "replay", "--check", files(in: "conformance/fuguemax")[0]])
        #expect(good.status == 0)
        #expect(good.standardOutput.hasPrefix("OK "))
        #expect(good.standardOutput.split(separator: "\n").count == 1)

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let wrong = directory.appending("wrong.json")
        try #"{"endContent":"abd","txns":[{"patches":[[0,0,"abc"]]}]}"#.write(toFile: wrong, atomically: true, encoding: .utf8)
        let bad = try runProcess(quire, ["trace", "replay", "--check", wrong])
        #expect(bad.status == 1)
        #expect(bad.standardOutput.hasPrefix("MISMATCH "))
        #expect(bad.standardOutput.contains("first difference at 2"))

        let printed = try runProcess(quire, ["trace", "replay", wrong])
        #expect(printed.status == 0)
        #expect(printed.standardOutput == "abc")
    }

    @Test("corrupt or malformed trace files are refused with a clear error", arguments: [
        ("not json at all", "is not an editing trace"),
        (#"{"endContent":"x"}"#, "is not an editing trace"),
        (#"{"endContent":"","txns":[{"patches":[[3,0,"a"]]}]}"#, "does not fit"),
        (#"{"kind":"concurrent","endContent":"","txns":[{"parents":[4],"agent":0,"patches":[]}]}"#, "not an earlier transaction"),
    ])
    func malformedTraces(content: String, message: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("trace.json")
        try content.write(toFile: path, atomically: true, encoding: .utf8)
        let run = await runTool(["trace", "replay", "--check", path])
        #expect(run.status == 1)
        #expect(run.errorOutput.contains(message), "stderr: \(run.errorOutput)")
    }

    @Test("a truncated gzip file is refused")
    func truncatedGzip() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let original = try Data(contentsOf: shared.appendingPathComponent("traces/concurrent/clownschool.json.gz"))
        let path = directory.appending("cut.json.gz")
        try original.prefix(original.count / 2).write(to: URL(fileURLWithPath: path))
        let run = await runTool(["trace", "replay", path])
        #expect(run.status == 1)
        #expect(run.errorOutput.contains("truncated") || run.errorOutput.contains("corrupt"))
    }

    @Test("bench text reports every documented field and a correct replay")
    func benchText() async throws {
        let path = files(in: "conformance/fuguemax")[1]
        let run = await runTool(["bench", "text", "--trace", path, "--runs", "1", "--json"])
        #expect(run.status == 0, "stderr: \(run.errorOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        for field in ["trace", "ops", "local_replay_ms", "encode_ms", "history_bytes", "merge_ms", "state_bytes",
                      "load_ms", "rss_mb", "keystroke_delta_bytes"] {
            #expect(object[field] != nil, "missing \(field)")
        }
        #expect(object["history_ms"] == nil, "a concurrent trace is not typed into a store")
        #expect(object["correct"] as? Bool == true)
    }

    @Test("bench text on a sequential trace types it one change per keystroke and times its store history")
    func benchTextHistory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // 1,200 keystrokes (the log folds them into runs) and 300 backspaces.
        var patches: [String] = []
        for index in 0..<1_200 { patches.append("{\"patches\":[[\(index),0,\"\(index % 7 == 0 ? "é" : "a")\"]]}") }
        for index in 0..<300 { patches.append("{\"patches\":[[\(1_199 - index),1,\"\"]]}") }
        let end = (0..<900).map { $0 % 7 == 0 ? "é" : "a" }.joined()
        let path = directory.appending("typed.json")
        try "{\"startContent\":\"\",\"endContent\":\"\(end)\",\"txns\":[\(patches.joined(separator: ","))]}"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let run = await runTool(["bench", "text", "--trace", path, "--runs", "1", "--json"])
        #expect(run.status == 0, "stderr: \(run.errorOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["history_entries"] as? Int == 1_500)
        #expect((object["history_ms"] as? Double ?? 0) > 0)
        #expect(object["correct"] as? Bool == true)
    }
}
