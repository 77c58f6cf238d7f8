import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Properties: store convergence")
struct StoreConvergencePropertyTests {
    @Test("300 seeded schedules over real stores (records, texts, hierarchy; lossy, duplicated, reordered delta files; reopening) converge")
    func seededSchedules() throws {
        var failures = 0
        for seed in UInt64(1)...300 {
            var random = SplitMix64(seed: seed &* 0x9E37_79B9)
            let bytes = (0..<(40 + Int(seed % 80))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let directory = try TemporaryDirectory(prefix: "quire-property")
            defer { directory.remove() }
            do {
                try StoreConvergenceSchedule(bytes: bytes, directory: directory.path, maximumSteps: 30).run()
            } catch {
                Issue.record("seed \(seed) (bytes \(bytes)): \(error)")
                failures += 1
                if failures >= 3 { return }
            }
        }
    }

    @Test("the store convergence checker reports two hand-made stores that differ, and not once they have synced")
    func checkerReportsDivergence() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let item = try a.write { tx in
            let item = try tx.insert(ScheduleItem(title: "one", count: 1, tag: nil))
            try tx.insert("text", at: 0, in: item.text("body"))
            return item
        }
        try b.importDelta(try #require(try a.exportDelta()))
        #expect(StoreDigest.divergences([try StoreDigest.of(a), try StoreDigest.of(b)]).isEmpty)

        try a.write { tx in try tx.update(item, as: ScheduleItem.self) { $0.count = 2 } }
        try b.write { tx in try tx.insert("!", at: 4, in: item.text("body")) }
        let differences = StoreDigest.divergences([try StoreDigest.of(a), try StoreDigest.of(b)])
        #expect(differences.contains { $0.contains("version") })
        #expect(differences.contains { $0.contains("count=2") && $0.contains("count=1") })

        try b.importDelta(try #require(try a.exportDelta(since: b.version)))
        try a.importDelta(try #require(try b.exportDelta(since: a.version)))
        #expect(StoreDigest.divergences([try StoreDigest.of(a), try StoreDigest.of(b)]).isEmpty)

        // Same version, different contents: a deleted record against a live one.
        let other = StoreDigest(version: try StoreDigest.of(a).version,
                                records: try StoreDigest.of(a).records.map { $0.replacingOccurrences(of: "deleted=false", with: "deleted=true") },
                                problems: [])
        #expect(!StoreDigest.divergences([try StoreDigest.of(a), other]).isEmpty)
        #expect(StoreDigest.divergences([StoreDigest(version: VersionVector(), records: [], problems: ["x is not reachable"])]) == ["replica 0: x is not reachable"])
    }
}
