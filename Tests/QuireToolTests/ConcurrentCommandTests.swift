import Foundation
import Quire
import QuireApps
import QuireTestSupport
import Testing

@Suite("quire commands on a store that another process uses (the real binary)")
struct ConcurrentCommandTests {
    @Test("20 parallel 'quire touch' into one folder: all exit 0, all 20 files are there, verify is healthy")
    func parallelTouches() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "P", "--type", "prose"])
            let runs = Locked<[AppRun]>([])
            let threads = (0..<20).map { index in
                TestThread {
                    let run = try quire.run(["touch", "P/Your Prose/Draft/file \(index)"])
                    runs.update { $0.append(run) }
                }
            }
            for thread in threads { try thread.join() }
            for run in runs.get() { #expect(run.status == 0, "\(run.standardError)") }
            let draft = try quire.tree("P/Your Prose/Draft")
            #expect(Set(childNames(draft)) == Set((0..<20).map { "file \($0)" }))
            let verify = try quire.run(["verify"])
            #expect(verify.status == 0, "\(verify.standardOutput) \(verify.standardError)")
        }
    }

    @Test("'quire project create' while an app holds the store open: the project is there for both, and stays")
    func commandWhileAppHoldsStore() throws {
        try withTemporaryDirectory { temp in
            let path = temp.appending("store")
            let app = try Store(directory: path)
            let before = try app.read { tx in try tx.all(Project.self).count }
            let quire = AppTool(store: path)
            try quire.ok(["project", "create", "Novel", "--type", "prose"])
            // The app sees the tool's project at its next read, and its own write after it
            // does not overwrite it.
            let seen = try app.read { tx in try tx.all(Project.self).map(\.value.name) }
            #expect(before == 0)
            #expect(seen == ["Novel"])
            try app.write { tx in try createProject(name: "Essays", type: .prose, created: Date(), in: tx) }
            try app.close()
            let list = try quire.ok(["project", "list"])
            #expect(list.contains("Novel") && list.contains("Essays"))
            let verify = try quire.run(["verify"])
            #expect(verify.status == 0, "\(verify.standardOutput) \(verify.standardError)")
        }
    }
}
