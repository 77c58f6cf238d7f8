import Foundation
import QuireTestSupport
import Testing

/// Names and IDs on the command line: a name never has the form of an ID, so every path
/// argument reads an ID the same way; names with invisible characters, and arguments
/// that are not UTF-8, are refused.
@Suite("quire names and IDs in path arguments (the real binary)")
struct NameAndIDArgumentTests {
    static let draft = "My Poetry/Your Poetry/Draft"
    static let idLike = "cafebabecafebabe@2"

    /// A store with a poetry project and the file Draft/Ode.
    static func store(in temp: TemporaryDirectory) throws -> AppTool {
        let quire = AppTool(store: temp.appending("store"))
        try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
        try quire.ok(["touch", "\(draft)/Ode"])
        return quire
    }

    /// The ID `quire tree --json PATH` reports.
    static func id(of path: String, _ quire: AppTool) throws -> String {
        try #require(try quire.tree(path)["id"] as? String)
    }

    @Test("a name with the form of an ID is refused by project create, mkdir, mkdir -p, rename, touch, write and cards category add and rename")
    func idLikeNamesRefused() throws {
        try withTemporaryDirectory { temp in
            let quire = try Self.store(in: temp)
            try quire.ok(["cards", "category", "add", "Capitals"])
            let before = try quire.ok(["tree", "--ids"])
            let usageErrors: [[String]] = [
                ["project", "create", Self.idLike, "--type", "prose"],
                ["mkdir", "\(Self.draft)/\(Self.idLike)"],
                ["mkdir", "-p", "\(Self.draft)/New/\(Self.idLike)"],
                ["rename", "\(Self.draft)/Ode", Self.idLike],
                ["cards", "category", "add", Self.idLike],
                ["cards", "category", "rename", "Capitals", Self.idLike],
            ]
            for arguments in usageErrors {
                let run = try quire.run(arguments)
                #expect(run.status == 2, "\(arguments): \(run.standardError)")
                #expect(run.standardError.contains("cannot have the form of a record ID"), "\(arguments): \(run.standardError)")
            }
            // touch, write and the folders along mkdir -p read such a name as the ID it has the form of: no such record.
            for (arguments, input) in [(["touch", "\(Self.draft)/\(Self.idLike)"], ""), (["write", "\(Self.draft)/\(Self.idLike)"], "text"),
                                    (["mkdir", "-p", "\(Self.draft)/\(Self.idLike)/Deeper"], "")] {
                let run = try quire.run(arguments, input: input)
                #expect(run.status == 1, "\(arguments): \(run.standardError)")
                #expect(run.standardError.contains("no record \(Self.idLike) in 'My Poetry/Your Poetry/Draft'"), "\(arguments): \(run.standardError)")
                #expect(run.standardError.contains("read as a record ID"), "\(arguments): \(run.standardError)")
            }
            #expect(try quire.ok(["tree", "--ids"]) == before)
            #expect(try quire.ok(["cards", "category", "list"]).contains("Capitals"))
        }
    }

    @Test("write ID and touch ID name the file itself, as cat, rename, mv and rm do; IDs work along mkdir -p and touch paths")
    func idsInEveryPathArgument() throws {
        try withTemporaryDirectory { temp in
            let quire = try Self.store(in: temp)
            let ode = try Self.id(of: "\(Self.draft)/Ode", quire)
            let draft = try Self.id(of: Self.draft, quire)
            let project = try Self.id(of: "My Poetry", quire)

            #expect(try quire.ok(["write", ode], input: "The sea is calm.") == "wrote \(ode): +16 −0 characters, 4 words\n")
            #expect(try quire.ok(["cat", ode]) == "The sea is calm.")
            #expect(try quire.ok(["touch", ode]) == "\(ode) exists; left as it is\n")
            #expect(try quire.ok(["touch", "\(Self.draft)/\(ode)"]) == "\(Self.draft)/\(ode) exists; left as it is\n")
            #expect(try quire.ok(["write", "\(draft)/\(ode)"], input: "The sea is calm tonight.").hasPrefix("wrote "))
            #expect(try quire.ok(["cat", "\(Self.draft)/Ode"]) == "The sea is calm tonight.")

            try quire.ok(["touch", "\(draft)/Elegy"])
            try quire.ok(["mkdir", "-p", "\(draft)/Sonnets/Early"])
            try quire.ok(["mkdir", "\(project)/Your Poetry/Draft/Odes"])
            #expect(childNames(try quire.tree(Self.draft)) == ["Ode", "Elegy", "Sonnets", "Odes"])

            let folder = try quire.run(["write", draft], input: "x")
            #expect(folder.status == 1)
            #expect(folder.standardError.contains("is a folder, not a file"), "\(folder.standardError)")
            let unknown = try quire.run(["touch", Self.idLike])
            #expect(unknown.status == 1)
            #expect(unknown.standardError.contains("no record \(Self.idLike)"), "\(unknown.standardError)")
            #expect(!unknown.standardError.contains("top level, which holds projects"))

            // restore ID of a binder record (the command rm prints) still works.
            let removed = try quire.ok(["rm", ode])
            #expect(removed.contains("quire restore \(ode)"))
            #expect(try quire.ok(["restore", ode]) == "restored \(Self.draft)/Ode\n")
            #expect(try quire.ok(["cat", ode]) == "The sea is calm tonight.")
        }
    }

    @Test("names with bidirectional controls or zero-width characters are refused like control characters; emoji sequences are kept")
    func invisibleCharactersRefused() throws {
        try withTemporaryDirectory { temp in
            let quire = try Self.store(in: temp)
            let before = try quire.ok(["tree"])
            for (name, shown) in [("Ode\u{202E}txt.exe", "U+202E RIGHT-TO-LEFT OVERRIDE"), ("Ode\u{200B}", "U+200B ZERO WIDTH SPACE"),
                                  ("\u{2067}Ode", "U+2067 RIGHT-TO-LEFT ISOLATE"), ("O\u{200D}de", "U+200D ZERO WIDTH JOINER")] {
                for arguments in [["touch", "\(Self.draft)/\(name)"], ["mkdir", "\(Self.draft)/\(name)"], ["rename", "\(Self.draft)/Ode", name],
                                  ["project", "create", name, "--type", "drama"], ["cards", "category", "add", name]] {
                    let run = try quire.run(arguments)
                    #expect(run.status == 2, "\(arguments): \(run.standardError)")
                    #expect(run.standardError.contains("cannot contain invisible characters such as \(shown)"), "\(arguments): \(run.standardError)")
                }
            }
            #expect(try quire.ok(["tree"]) == before)
            try quire.ok(["touch", "\(Self.draft)/👩‍💻 at work ❤️"])
            #expect(childNames(try quire.tree(Self.draft)).contains("👩‍💻 at work ❤️"))
        }
    }

    @Test("an argument that is not UTF-8 is refused with its bytes shown, not stored with U+FFFD")
    func invalidUTF8Refused() throws {
        try withTemporaryDirectory { temp in
            let quire = try Self.store(in: temp)
            let executable = try BuiltProducts.executable(named: "quire").path
            for command in ["touch \"$(printf 'My Poetry/Your Poetry/Draft/Ode\\377s')\"",
                            "project create \"$(printf 'Caf\\351')\" --type prose",
                            "rename 'My Poetry/Your Poetry/Draft/Ode' \"$(printf 'Ode\\300\\200')\""] {
                let run = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" \(command)", executable],
                                         environment: ["QUIRE_STORE": quire.store])
                #expect(run.status == 2, "\(command): \(run.standardError)")
                #expect(run.standardError.contains("is not UTF-8 text"), "\(command): \(run.standardError)")
            }
            let run = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" touch \"$(printf 'My Poetry/Your Poetry/Draft/Ode\\377s')\"", executable],
                                     environment: ["QUIRE_STORE": quire.store])
            #expect(run.standardError.contains("argument 2 ('My Poetry/Your Poetry/Draft/Ode\\xFFs') is not UTF-8 text"), "\(run.standardError)")
            let tree = try quire.ok(["tree"])
            #expect(!tree.contains("\u{FFFD}"))
            #expect(childNames(try quire.tree(Self.draft)) == ["Ode"])
            #expect(try quire.ok(["project", "list"]).split(separator: "\n").count == 1)
        }
    }
}
