import Foundation
import QuireTestSupport
import Testing

@Suite("quire demo (the real binary)")
struct DemoCommandTests {
    /// The output with replica IDs and byte counts masked, the parts that may vary.
    private func masked(_ text: String) -> String {
        text.replacing(/[0-9a-f]{16}/, with: "<replica>").replacing(/\d+ bytes/, with: "<n> bytes")
            .replacing(/in \/[^\n]*\(kept\)/, with: "in <dir> (kept)")
    }

    @Test("the demo converges: it says identical and nothing lost, and the kept replicas' trees are equal")
    func converges() throws {
        try withTemporaryDirectory { temp in
            let dir = temp.appending("demo")
            let run = try QuireExecutable.run(["demo", "--dir", dir])
            #expect(run.status == 0, "\(run.standardError)")
            let output = run.standardOutput
            #expect(output.contains("identical: yes — both replicas hold the same tree, the same texts and the same version"))
            #expect(output.contains("nothing lost:"))
            #expect(output.contains("the folder the laptop moved and the phone renamed is 'My Poetry/Publications/Sources'"))
            #expect(output.contains("trash inside Set Aside, with its text \"Gleams and is gone; the cliffs of England stand\""))
            #expect(output.contains("   Dover Beach                                        Dover Beach\n"))
            #expect(output.contains("   Upon the straits; on the French coast the light    Upon the straits; on the French coast the light\n"))

            let laptop = AppTool(store: dir + "/laptop.quire"), phone = AppTool(store: dir + "/phone.quire")
            let laptopTree = try laptop.ok(["tree", "--json"]), phoneTree = try phone.ok(["tree", "--json"])
            #expect(laptopTree == phoneTree)
            #expect(laptopTree.contains("\"Late idea\""))
            #expect(try laptop.ok(["cat", "My Poetry/Your Poetry/Draft/Ode"]) == phone.ok(["cat", "My Poetry/Your Poetry/Draft/Ode"]))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/deltas").sorted()
                == ["1-laptop-to-phone.qdelta", "2-laptop-to-phone.qdelta", "3-phone-to-laptop.qdelta"])

            // The restore the demo suggests works on the kept store.
            try laptop.ok(["restore", "Set Aside/Late idea", "My Poetry/Your Poetry/Draft"])
            #expect(try laptop.ok(["cat", "My Poetry/Your Poetry/Draft/Late idea"]) == "Gleams and is gone; the cliffs of England stand")
        }
    }

    @Test("the demo prints the same apart from replica IDs on every run, and leaves no temporary files")
    func deterministic() throws {
        let first = try QuireExecutable.run(["demo"]), second = try QuireExecutable.run(["demo"])
        #expect(first.status == 0 && second.status == 0)
        #expect(masked(first.standardOutput) == masked(second.standardOutput))
        #expect(first.standardOutput.contains("in a temporary directory (use --dir DIR to keep it)"))
    }

    @Test("--dir must be new or empty")
    func nonEmptyDirectory() throws {
        try withTemporaryDirectory { temp in
            try Data("x".utf8).write(to: URL(fileURLWithPath: temp.appending("file")))
            let run = try QuireExecutable.run(["demo", "--dir", temp.path])
            #expect(run.status == 1)
            #expect(run.standardError.contains("\(temp.path) is not an empty directory; give a new or empty one to --dir"))
        }
    }
}
