import Foundation
import QuireTestSupport
import Testing

@Suite("quire binder commands (the real binary)")
struct BinderCommandTests {
    static let draft = "My Poetry/Your Poetry/Draft"

    @Test("project create builds the 15-folder template; project list sorts by name and date, also as JSON")
    func projects() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            let created = try quire.run(["project", "create", "My Poetry", "--type", "poetry"])
            #expect(created.status == 0, "\(created.standardError)")
            #expect(created.standardOutput.hasPrefix("created the poetry project 'My Poetry' with 15 folders:\nMy Poetry (poetry)\n├── Your Poetry\n"))
            #expect(created.standardError.contains("created a new store at \(temp.appending("store"))"))
            try quire.ok(["project", "create", "Acts", "--type", "drama", "--details", "a play"])

            let tree = try quire.tree()
            let projects = try #require(tree["projects"] as? [[String: Any]])
            #expect(projects.compactMap { $0["name"] as? String } == ["My Poetry", "Acts"])
            #expect(childNames(projects[0]) == ["Your Poetry", "Publications", "Trash"])
            #expect(childNames(projects[1]) == ["Your Drama", "Publications", "Trash"])
            let work = try #require((projects[0]["children"] as? [[String: Any]])?.first)
            #expect(childNames(work) == ["All", "Draft", "Ready", "Set Aside", "Published", "Collections", "Submissions", "Research"])

            #expect(try quire.ok(["project", "list"]).split(separator: "\n").map { $0.prefix(9) } == ["Acts     ", "My Poetry"])
            #expect(try quire.ok(["project", "list", "--sort", "date"]).split(separator: "\n").map { $0.prefix(4) } == ["My P", "Acts"])
            let json = try quire.ok(["project", "list", "--json"])
            let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
            #expect(list.compactMap { $0["name"] as? String } == ["Acts", "My Poetry"])
            #expect(list.first?["details"] as? String == "a play")
            #expect(list.first?["type"] as? String == "drama")

            let again = try quire.run(["project", "create", "Acts", "--type", "prose"])
            #expect(again.status == 1)
            #expect(again.standardError.contains("already has a project named 'Acts'"))
            #expect(again.standardError.contains("choose another name"))
        }
    }

    @Test("mkdir, mv, rename, rm, restore and touch change the tree as asked")
    func folders() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
            try quire.ok(["mkdir", "\(Self.draft)/Sonnets"])
            try quire.ok(["mkdir", "-p", "\(Self.draft)/Odes/Early/Very early"])
            try quire.ok(["touch", "\(Self.draft)/Odes/Early/To Autumn"])
            #expect(try quire.ok(["touch", "\(Self.draft)/Odes/Early/To Autumn"]).contains("exists; left as it is"))
            #expect(childNames(try quire.tree("\(Self.draft)/Odes/Early")) == ["Very early", "To Autumn"])

            try quire.ok(["mv", "My Poetry/Your Poetry/Research", "My Poetry/Publications"])
            try quire.ok(["rename", "My Poetry/Publications/Research", "Sources"])
            try quire.ok(["mv", "\(Self.draft)/Sonnets", "My Poetry/Your Poetry", "--at", "1"])
            #expect(childNames(try quire.tree("My Poetry/Publications")) == ["Magazines", "Competitions", "Commissions", "Other", "Sources"])
            #expect(childNames(try quire.tree("My Poetry/Your Poetry")).first == "Sonnets")

            let removed = try quire.ok(["rm", "\(Self.draft)/Odes"])
            #expect(removed.contains("moved \(Self.draft)/Odes with the 3 records inside it to the trash; bring it back with: quire restore "))
            #expect(childNames(try quire.tree(Self.draft)) == [])
            let trash = try #require(try quire.tree()["trash"] as? [[String: Any]])
            #expect(trash.compactMap { $0["name"] as? String } == ["Odes"])
            #expect(try quire.ok(["tree"]).contains("In the trash (restorable with 'quire restore'):\n└── Odes\n"))

            let cat = try quire.run(["cat", "\(Self.draft)/Odes/Early/To Autumn"])
            #expect(cat.status == 1)
            #expect(cat.standardError.contains("no 'Odes' in 'My Poetry/Your Poetry/Draft'"))

            #expect(try quire.ok(["restore", "Odes"]) == "restored \(Self.draft)/Odes\n")  // where it was deleted from
            #expect(childNames(try quire.tree("\(Self.draft)/Odes/Early")) == ["Very early", "To Autumn"])
            try quire.ok(["rm", "\(Self.draft)/Odes"])
            try quire.ok(["restore", "Odes/Early/To Autumn", Self.draft])  // one file out of a deleted folder
            #expect(childNames(try quire.tree(Self.draft)) == ["To Autumn"])
        }
    }

    @Test("write stores the smallest edit, cat prints it back, wc counts, log lists the changes")
    func writeCatWordCountLog() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
            let ode = "\(Self.draft)/Ode"
            #expect(try quire.ok(["write", ode], input: "The sea is calm tonight.\n") == "created \(ode): +25 −0 characters, 5 words\n")
            let second = "The sea is calm tonight.\nThe tide is full, the moon lies fair\n"
            #expect(try quire.ok(["write", ode], input: second) == "wrote \(ode): +37 −0 characters, 13 words\n")
            #expect(try quire.ok(["write", ode], input: second.replacingOccurrences(of: "calm", with: "wild")) == "wrote \(ode): +4 −4 characters, 13 words\n")
            #expect(try quire.ok(["cat", ode]) == second.replacingOccurrences(of: "calm", with: "wild"))
            #expect(try quire.ok(["wc", ode]) == "     13 words      62 characters  \(ode)\n")
            #expect(try quire.ok(["wc", "My Poetry"]).hasSuffix("     13 words      62 characters  total, 1 file\n"))

            let log = try quire.ok(["log", ode]).split(separator: "\n")
            #expect(log.count == 3)
            #expect(log[0].contains("(this replica)  counter "))
            #expect(log[0].hasSuffix("created file 'Ode' in My Poetry/Your Poetry/Draft; text +25 −0 characters"))
            #expect(log[1].hasSuffix("text +37 −0 characters"))
            #expect(log[2].hasSuffix("text +4 −4 characters"))
            try quire.ok(["rename", ode, "Dover Beach"])
            try quire.ok(["rm", "\(Self.draft)/Dover Beach"])
            let json = try quire.ok(["log", "--json", "\(Self.draft)"])
            #expect(json.contains("\"created folder 'Draft' in My Poetry/Your Poetry\""))
            let status = try quire.run(["log", "\(Self.draft)/Dover Beach"])
            #expect(status.status == 1)
            #expect(status.standardError.contains("no 'Dover Beach' in 'My Poetry/Your Poetry/Draft'"))
        }
    }

    @Test("after compaction pruned the history, log lists what is kept and says so; restore still finds the old place")
    func prunedHistory() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "P", "--type", "prose"])
            try quire.ok(["write", "P/Your Prose/Draft/A"], input: "hi")
            let status = try JSONSerialization.jsonObject(with: Data(try quire.ok(["status", "--json"]).utf8)) as? [String: Any]
            let replica = try #require(status?["replica"] as? String)
            try quire.ok(["status", "--version-out", temp.appending("v")])
            try quire.ok(["compact", "--ack", "\(replica)=\(temp.appending("v"))"])
            try quire.ok(["write", "P/Your Prose/Draft/A"], input: "hi there")
            let log = try quire.ok(["log", "P/Your Prose/Draft/A"]).split(separator: "\n")
            #expect(log.count == 2, "\(log)")  // the creation is pruned, the second write kept
            #expect(log.first?.hasSuffix("text +6 −0 characters") == true)
            #expect(log.last == "(earlier changes were pruned by 'quire compact': they are not listed)")
            try quire.ok(["rm", "P/Your Prose/Draft/A"])
            #expect(try quire.ok(["restore", "A"]) == "restored P/Your Prose/Draft/A\n")  // the hierarchy kept its place
        }
    }

    @Test("edit applies what $EDITOR saved as a minimal edit; an editor that fails applies nothing")
    func edit() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
            let ode = "\(Self.draft)/Ode"
            try quire.ok(["write", ode], input: "The sea is calm tonight.")
            let saved = try quire.ok(["edit", ode], environment: ["EDITOR": "sed -i s/calm/wild/", "VISUAL": ""])
            #expect(saved == "saved \(ode): +4 −4 characters, 5 words\n")
            #expect(try quire.ok(["cat", ode]) == "The sea is wild tonight.")
            #expect(try quire.ok(["edit", ode], environment: ["EDITOR": "true", "VISUAL": ""]) == "no changes to \(ode)\n")
            let failed = try quire.run(["edit", ode], environment: ["EDITOR": "sed -i s/wild/x/ \"$1\"; false", "VISUAL": "", "TMPDIR": temp.path])
            #expect(failed.status == 1)
            #expect(failed.standardError.contains("exited with status 1 after saving; nothing was applied. Your version is in "))
            #expect(try quire.ok(["cat", ode]) == "The sea is wild tonight.")
            let folder = try quire.run(["edit", Self.draft], environment: ["EDITOR": "true"])
            #expect(folder.status == 1)
            #expect(folder.standardError.contains("'\(Self.draft)' is a folder, not a file"))
        }
    }

    @Test("a name two replicas both created is reported with IDs (also by tree --ids), and an ID picks one")
    func nameClash() throws {
        try withTemporaryDirectory { temp in
            let laptop = AppTool(store: temp.appending("laptop")), phone = AppTool(store: temp.appending("phone"))
            try laptop.ok(["project", "create", "My Poetry", "--type", "poetry"])
            try laptop.ok(["export", "-o", temp.appending("a.qdelta")])
            try phone.ok(["import", temp.appending("a.qdelta")])
            try laptop.ok(["mkdir", "\(Self.draft)/Chapter 1"])
            try phone.ok(["mkdir", "\(Self.draft)/Chapter 1"])
            try phone.ok(["export", "-o", temp.appending("b.qdelta")])
            let imported = try laptop.ok(["import", temp.appending("b.qdelta")])
            #expect(imported.contains("name clash: 2 records named \"Chapter 1\""))

            let tree = try laptop.ok(["tree", Self.draft])
            #expect(tree.components(separatedBy: ", name clash]").count == 3)
            let withIDs = try laptop.ok(["tree", "--ids", Self.draft])
            #expect(withIDs.components(separatedBy: ", name clash]").count == 3, "\(withIDs)")
            let ambiguous = try laptop.run(["mkdir", "\(Self.draft)/Chapter 1/Scene 1"])
            #expect(ambiguous.status == 1)
            #expect(ambiguous.standardError.contains("'Chapter 1' in 'My Poetry/Your Poetry/Draft' names 2 records"))
            #expect(ambiguous.standardError.contains("put the ID of the one you mean in the path"))

            let ids = try #require(try laptop.tree(Self.draft)["children"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            #expect(ids.count == 2)
            try laptop.ok(["mkdir", "\(Self.draft)/\(ids[0])/Scene 1"])
            try laptop.ok(["rename", ids[1], "Chapter 2"])
            #expect(childNames(try laptop.tree(Self.draft)).sorted() == ["Chapter 1", "Chapter 2"])
        }
    }

    @Test("errors: unknown paths and stores exit 1 with what to do; bad names and arguments exit 2", arguments: [
        (["tree", "Nope"], 1, "no 'Nope' in the top level (projects)"),
        (["mkdir", "My Poetry"], 1, "would be at the top level, which holds projects; create a project with \"quire project create 'My Poetry' --type poetry\""),
        (["mkdir", "My Poetry/Your Poetry/Draft/Bad\tname"], 2, "a name cannot contain control characters"),
        (["mkdir", "My Poetry/Your Poetry/Draft/ "], 2, "a name cannot be empty or only spaces"),
        (["rename", "My Poetry/Trash", String(repeating: "x", count: 256)], 2, "at most 255 characters"),
        (["rename", "My Poetry/Trash", "Your Poetry"], 1, "My Poetry already has a folder named 'Your Poetry'"),
        (["mv", "My Poetry/Your Poetry", "My Poetry/Your Poetry/Draft"], 1, "which is inside it; choose a folder outside it"),
        (["mv", "My Poetry", "My Poetry/Trash"], 1, "projects stay at the top level"),
        (["mv", "My Poetry/Trash", "My Poetry/Publications", "--at", "0"], 2, "option '--at' must be at least 1"),
        (["cat", "My Poetry/Trash"], 1, "'My Poetry/Trash' is a folder, not a file"),
        (["restore", "Trash"], 1, "no 'Trash' in the trash"),
        (["project", "create", "X", "--type", "sonnet"], 2, "expected prose, poetry or drama"),
        (["project", "create", "X"], 2, "missing option '--type TYPE'"),
        (["project", "list", "--sort", "size"], 2, "expected name or date"),
        (["write"], 2, "missing argument 'PATH'"),
    ] as [([String], Int32, String)])
    func errors(arguments: [String], status: Int32, message: String) throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
            let result = try quire.run(arguments)
            #expect(result.status == status, "\(result.standardError)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }
    }

    @Test("commands other than create need an existing store, and say how to make one")
    func missingStore() throws {
        try withTemporaryDirectory { temp in
            let result = try AppTool(store: temp.appending("none")).run(["tree"])
            #expect(result.status == 1)
            #expect(result.standardError.contains("no store at \(temp.appending("none")); create one with 'quire project create NAME --type poetry'"))
            #expect(!FileManager.default.fileExists(atPath: temp.appending("none")))
        }
    }

    @Test("every app command's help has an example", arguments: [
        ["project"], ["project", "create"], ["project", "list"], ["tree"], ["mkdir"], ["mv"], ["rename"], ["rm"],
        ["restore"], ["touch"], ["write"], ["cat"], ["diff"], ["edit"], ["wc"], ["log"], ["demo"],
        ["cards"], ["cards", "category"], ["cards", "category", "add"], ["cards", "category", "list"],
        ["cards", "category", "rename"], ["cards", "category", "rm"], ["cards", "note"], ["cards", "note", "add"],
        ["cards", "note", "list"], ["cards", "note", "edit"], ["cards", "note", "move"], ["cards", "note", "rm"],
        ["cards", "clue"], ["cards", "clue", "add"], ["cards", "clue", "list"], ["cards", "clue", "edit"],
        ["cards", "clue", "move"], ["cards", "clue", "rm"], ["cards", "quiz"],
    ])
    func helpExample(command: [String]) throws {
        let result = try QuireExecutable.run(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Example:\n  "), "\(command)")
        #expect(result.standardOutput.contains("quire \(command.joined(separator: " "))"))
    }
}
