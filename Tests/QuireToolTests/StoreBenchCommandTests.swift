import Foundation
import Testing
@testable import QuireTool

@Suite("quire bench store (the real binary, which starts itself as child processes)")
struct StoreBenchCommandTests {
    @Test("--json prints one object with every documented field; two writer processes lose nothing and share no ID")
    func jsonFields() throws {
        // 100 writes per process, not 1,000: in a debug build interleaved writes cost
        // about 25 ms each (each re-reads the store after the other process's commit).
        let run = try QuireExecutable.run(["bench", "store", "--records", "2000", "--runs", "1", "--writes", "100", "--json"])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n")
        #expect(lines.count == 1)
        let line = try #require(lines.last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["benchmark"] as? String == "store")
        #expect(object["records"] as? Int == 2000)
        #expect(object["folders"] as? Int == 2)
        #expect(object["runs"] as? Int == 1)
        for field in [
            "build_ms", "open_ms", "rss_before_open_mb", "rss_after_open_mb", "first_write_ms", "rss_after_first_write_mb",
            "get_us", "raw_get_us", "get_ratio", "raw_renew_get_us",
            "children_page_ms", "children_all_ms", "import_ms", "reader_max_wait_ms", "bytes_per_record", "two_process_ms",
        ] {
            let value = try #require(object[field] as? Double, "missing \(field)")
            #expect(value > 0 && value.isFinite, "\(field) = \(value)")
        }
        let before = try #require(object["rss_before_open_mb"] as? Double)
        let after = try #require(object["rss_after_open_mb"] as? Double)
        #expect(after >= before)
        #expect(try #require(object["rss_after_first_write_mb"] as? Double) >= before)
        #expect(after < 4_096, "a 2,000-record store should not take gigabytes: \(after) MiB")
        #expect(object["children"] as? Int == 20_000)
        #expect(object["delta_records"] as? Int == 2000)
        #expect((object["delta_bytes"] as? Int ?? 0) > 2000)
        #expect((object["reader_reads"] as? Int ?? 0) >= 1)
        #expect((object["record_value_bytes"] as? Int ?? 0) > 0)
        let dataBytes = try #require(object["data_bytes"] as? Int)
        let perRecord = try #require(object["bytes_per_record"] as? Double)
        #expect(abs(perRecord - Double(dataBytes) / 2000) < 1e-6)
        #expect(object["two_process_writes_per_process"] as? Int == 100)
        #expect(object["two_process_writes"] as? Int == 200)
        #expect(object["two_process_lost"] as? Int == 0)
        #expect(object["two_process_duplicate_ids"] as? Int == 0)
    }

    @Test("the child modes are left out of --help")
    func hiddenModes() async {
        let run = await runTool(["bench", "store", "--help"])
        #expect(run.status == 0)
        #expect(run.output.contains("--records N"))
        #expect(!run.output.contains("--open-child"))
        #expect(!run.output.contains("--writer-child"))
    }

    @Test("bad numbers are usage errors", arguments: [["--records", "0"], ["--runs", "few"], ["--writes", "-1"]])
    func badOptions(options: [String]) async {
        let run = await runTool(["bench", "store"] + options)
        #expect(run.status == 2)
        #expect(run.errorOutput.contains("usage: quire bench store"))
    }
}
