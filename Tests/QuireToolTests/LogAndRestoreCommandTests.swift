import Foundation
import QuireTestSupport
import Testing

/// `quire log` from the store's history of a record, and `quire restore` back between
/// the old neighbours.
@Suite("quire log and restore (the real binary)")
struct LogAndRestoreCommandTests {
    static let draft = "My Poetry/Your Poetry/Draft"

    /// The part of a `quire log` line after its replica, counter, Lamport time and time.
    private static func what(_ line: Substring) -> Substring {
        line.components(separatedBy: "  ").dropFirst(4).joined(separator: "  ")[...]
    }

    @Test("log lists creation, text edits, rename, move, trash and restore, each with its change's time")
    func recordHistory() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
            try quire.ok(["write", "\(Self.draft)/Ode"], input: "The sea is calm")
            try quire.ok(["write", "\(Self.draft)/Ode"], input: "The sea is wild")
            try quire.ok(["rename", "\(Self.draft)/Ode", "Dover Beach"])
            try quire.ok(["mv", "\(Self.draft)/Dover Beach", "My Poetry/Your Poetry/Ready"])
            try quire.ok(["rm", "My Poetry/Your Poetry/Ready/Dover Beach"])
            try quire.ok(["restore", "Dover Beach"])
            let log = try quire.ok(["log", "My Poetry/Your Poetry/Ready/Dover Beach"]).split(separator: "\n")
            #expect(log.map(Self.what) == [
                "created file 'Ode' in \(Self.draft); text +15 −0 characters",
                "text +4 −4 characters",
                "renamed 'Ode' to 'Dover Beach'",
                "moved to My Poetry/Your Poetry/Ready",
                "moved to the trash",
                "restored to My Poetry/Your Poetry/Ready",
            ])
            let time = #/  (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z|time unknown)  /#
            for line in log {
                #expect(line.contains(" (this replica)  counter "), "\(line)")
                #expect(line.contains(time), "\(line)")
            }

            let json = try quire.ok(["log", "--json", "My Poetry/Your Poetry/Ready/Dover Beach"])
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
            #expect(entries.count == 6)
            for entry in entries {
                #expect(entry.keys.contains("time"), "\(entry)")  // null when unknown
                #expect(entry["time"] is NSNull || entry["time"] is String)
                #expect(entry["lamport"] is Int && entry["counter"] is Int && entry["replica"] is String)
            }
            #expect(entries[1]["inserted"] as? Int == 4 && entries[1]["deleted"] as? Int == 4)
            #expect(entries[2]["inserted"] == nil)
            // The folder's own history: its creation, not its children's changes.
            let folder = try quire.ok(["log", Self.draft]).split(separator: "\n")
            #expect(folder.map(Self.what) == ["created folder 'Draft' in My Poetry/Your Poetry"])
        }
    }

    @Test("a folder restored from the trash goes back between its old neighbours, not to the end; with DEST, last there")
    func restoreOrder() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
            for name in ["A", "B", "C"] { try quire.ok(["mkdir", "\(Self.draft)/\(name)"]) }
            try quire.ok(["touch", "\(Self.draft)/B/Inside"])
            try quire.ok(["rm", "\(Self.draft)/B"])
            #expect(childNames(try quire.tree(Self.draft)) == ["A", "C"])
            #expect(try quire.ok(["restore", "B"]) == "restored \(Self.draft)/B\n")
            #expect(childNames(try quire.tree(Self.draft)) == ["A", "B", "C"])
            #expect(childNames(try quire.tree("\(Self.draft)/B")) == ["Inside"])
            // A file: between its neighbours too, after others were added around it.
            for name in ["x", "y", "z"] { try quire.ok(["touch", "\(Self.draft)/B/\(name)"]) }
            try quire.ok(["rm", "\(Self.draft)/B/x"])
            try quire.ok(["touch", "\(Self.draft)/B/w"])
            try quire.ok(["restore", "x"])
            #expect(childNames(try quire.tree("\(Self.draft)/B")) == ["Inside", "x", "y", "z", "w"])
            // With a destination it goes last.
            try quire.ok(["rm", "\(Self.draft)/A"])
            try quire.ok(["restore", "A", Self.draft])
            #expect(childNames(try quire.tree(Self.draft)) == ["B", "C", "A"])
        }
    }

    @Test("restore of a record inside a deleted folder names that folder; restoring it first works")
    func restoreInsideDeleted() throws {
        try withTemporaryDirectory { temp in
            let quire = AppTool(store: temp.appending("store"))
            try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
            try quire.ok(["mkdir", "\(Self.draft)/Odes"])
            try quire.ok(["touch", "\(Self.draft)/Odes/To Autumn"])
            try quire.ok(["rm", "\(Self.draft)/Odes"])
            let inside = try quire.run(["restore", "Odes/To Autumn"])
            #expect(inside.status == 1)
            #expect(inside.standardError.contains("went to the trash inside 'Odes'; restore that"), "\(inside.standardError)")
            try quire.ok(["restore", "Odes"])
            #expect(childNames(try quire.tree("\(Self.draft)/Odes")) == ["To Autumn"])
        }
    }

    @Test("log lists the other replica's merged edits as its own, without '(this replica)'")
    func twoReplicas() throws {
        try withTemporaryDirectory { temp in
            let laptop = AppTool(store: temp.appending("laptop")), phone = AppTool(store: temp.appending("phone"))
            let ode = "\(Self.draft)/Ode"
            try laptop.ok(["project", "create", "My Poetry", "--type", "poetry"])
            try laptop.ok(["write", ode], input: "The sea")
            try laptop.ok(["export", "-o", temp.appending("a.qdelta")])
            try phone.ok(["import", temp.appending("a.qdelta")])
            try phone.ok(["write", ode], input: "The sea is calm")
            try phone.ok(["export", "-o", temp.appending("b.qdelta")])
            try laptop.ok(["import", temp.appending("b.qdelta")])
            for (tool, isLaptop) in [(laptop, true), (phone, false)] {
                let log = try tool.ok(["log", ode]).split(separator: "\n")
                #expect(log.map(Self.what) == ["created file 'Ode' in \(Self.draft); text +7 −0 characters", "text +8 −0 characters"])
                guard log.count == 2 else { continue }
                #expect(log[0].hasPrefix(isLaptop ? "\(log[0].prefix(16)) (this replica)" : "\(log[0].prefix(16))  counter"))
                #expect(log[1].hasPrefix(!isLaptop ? "\(log[1].prefix(16)) (this replica)" : "\(log[1].prefix(16))  counter"))
                #expect(log[0].prefix(16) != log[1].prefix(16), "two replicas")
            }
        }
    }
}
