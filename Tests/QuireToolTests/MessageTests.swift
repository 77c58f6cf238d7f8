import Foundation
import QuireTestSupport
import Testing

/// What the tool says about bad input (issue 16, item 10): what failed and what to do,
/// with suggested commands that can be copied into a shell (the real binary).
@Suite("quire messages: bad input says what failed and what to do (the real binary)", .timeLimit(.minutes(2)))
struct MessageTests {
    /// A store with a prose project "A" holding the folder "Set Aside", moved to the trash,
    /// with the file "idea" inside it.
    static func store(in temp: TemporaryDirectory) throws -> AppTool {
        let quire = AppTool(store: temp.appending("store"))
        try quire.ok(["project", "create", "A", "--type", "prose"])
        try quire.ok(["mkdir", "A/Your Prose/Draft/Set Aside"])
        try quire.ok(["touch", "A/Your Prose/Draft/Set Aside/idea"])
        try quire.ok(["rm", "A/Your Prose/Draft/Set Aside"])
        return quire
    }

    @Test("--store naming a file: project create, import, sync and cat say it is a file, not a store directory")
    func storeIsAFile() throws {
        try withTemporaryDirectory { temp in
            let file = temp.appending("file")
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            let quire = AppTool(store: file)
            let delta = temp.appending("d.qdelta")
            try Data("QD".utf8).write(to: URL(fileURLWithPath: delta))
            for arguments in [["project", "create", "P", "--type", "poetry"], ["sync", temp.appending("folder")], ["cat", "P/x"]] {
                let run = try quire.run(arguments)
                #expect(run.status == 1, "\(arguments): \(run.standardError)")
                #expect(run.standardError.contains("\(file) is a file, not a store directory"), "\(arguments): \(run.standardError)")
                #expect(!run.standardError.contains("NSCocoaErrorDomain"), "\(arguments): \(run.standardError)")
            }
            let good = temp.appending("good.qdelta")
            let source = AppTool(store: temp.appending("source"))
            try source.ok(["project", "create", "P", "--type", "poetry"])
            try source.ok(["export", "-o", good])
            let run = try quire.run(["import", good])
            #expect(run.standardError.contains("\(file) is a file, not a store directory"), "\(run.standardError)")
        }
    }

    @Test("import reads a FIFO and /dev/stdin, refuses a directory clearly, and creates no store for a damaged file")
    func importInputs() throws {
        try withTemporaryDirectory { temp in
            let source = AppTool(store: temp.appending("source"))
            try source.ok(["project", "create", "P", "--type", "poetry"])
            let good = temp.appending("good.qdelta")
            try source.ok(["export", "-o", good])
            let executable = try BuiltProducts.executable(named: "quire").path

            let fromStdin = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" import --store \"$1\" /dev/stdin < \"$2\"", executable, temp.appending("s1"), good])
            #expect(fromStdin.status == 0, "\(fromStdin.standardError)")
            #expect(fromStdin.standardOutput.contains("/dev/stdin: "), "\(fromStdin.standardOutput)")

            let fifo = temp.appending("pipe")
            #expect(mkfifo(fifo, 0o600) == 0)
            let fromFifo = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "cat \"$2\" > \"$3\" & exec \"$0\" import --store \"$1\" \"$3\"", executable, temp.appending("s2"), good, fifo])
            #expect(fromFifo.status == 0, "\(fromFifo.standardError)")

            let directory = try QuireExecutable.run(["import", "--store", temp.appending("s3"), temp.path])
            #expect(directory.status == 1)
            #expect(directory.standardError.contains("\(temp.path) is a directory, not a delta file"), "\(directory.standardError)")
            #expect(!directory.standardError.contains("NSCocoaErrorDomain"))

            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: good)))
            bytes.removeLast(bytes.count / 2)
            let cut = temp.appending("cut.qdelta")
            try Data(bytes).write(to: URL(fileURLWithPath: cut))
            let damaged = try QuireExecutable.run(["import", "--store", temp.appending("s4"), cut])
            #expect(damaged.status == 1)
            #expect(damaged.standardError.contains("the delta file is truncated"), "\(damaged.standardError)")
            #expect(damaged.standardError.contains("no store was created at \(temp.appending("s4"))"))
            #expect(!FileManager.default.fileExists(atPath: temp.appending("s4")))
        }
    }

    @Test("a path through the trash says so; suggested commands quote arguments without nesting quotes")
    func trashAndQuoting() throws {
        try withTemporaryDirectory { temp in
            let quire = try Self.store(in: temp)
            let cat = try quire.run(["cat", "Set Aside/idea"])
            #expect(cat.status == 1)
            #expect(cat.standardError.contains("'Set Aside' is in the trash, not at the top level"), "\(cat.standardError)")
            #expect(cat.standardError.contains("\"quire restore 'Set Aside/idea' DEST\""), "\(cat.standardError)")

            let folder = try quire.run(["cat", "A/Your Prose/Draft"])
            #expect(folder.standardError.contains("see its contents with \"quire tree 'A/Your Prose/Draft'\""), "\(folder.standardError)")
            #expect(!folder.standardError.contains("'quire tree 'A"))

            let top = try quire.run(["mkdir", "Odes"])
            #expect(top.standardError.contains("create a project with 'quire project create Odes --type poetry'"), "\(top.standardError)")
        }
    }

    @Test("restore into a place holding the name suggests renaming the other one, not choosing another name")
    func restoreClash() throws {
        try withTemporaryDirectory { temp in
            let quire = try Self.store(in: temp)
            try quire.ok(["mkdir", "A/Your Prose/Draft/Set Aside"])
            let run = try quire.run(["restore", "Set Aside"])
            #expect(run.status == 1)
            #expect(!run.standardError.contains("choose another name"), "\(run.standardError)")
            #expect(run.standardError.contains("rename that one first with 'quire rename "), "\(run.standardError)")
            #expect(run.standardError.contains("or restore this one into another folder with 'quire restore "), "\(run.standardError)")
        }
    }

    @Test("a 10,000-character name is not echoed whole: its first 60 characters, … and its length")
    func longNames() throws {
        try withTemporaryDirectory { temp in
            let quire = try Self.store(in: temp)
            let name = String(repeating: "n", count: 10_000)
            for arguments in [["mkdir", "A/Your Prose/Draft/\(name)"], ["cat", "A/\(name)/x"], ["project", "create", name, "--type", "poetry"]] {
                let run = try quire.run(arguments)
                #expect(run.status != 0)
                #expect(run.standardError.count < 1_000, "\(arguments.first!): \(run.standardError.count) characters")
                #expect(run.standardError.contains(String(repeating: "n", count: 60) + "… (10000 characters)"), "\(arguments.first!): \(run.standardError.prefix(300))")
            }
        }
    }
}
