import Foundation
import Quire
import QuireApps

/// `quire demo [--dir DIR]`: two replicas, concurrent offline edits, one merged result.
struct DemoCommand: Command {
    static let name = "demo"
    static let summary = "Show two replicas editing offline and merging, in a few seconds."
    static let usage = "[--dir DIR]"
    static let discussion = """
        Creates two replicas of one store, 'laptop' and 'phone', in a temporary
        directory (or in DIR, kept afterwards). The laptop creates a poetry project from
        its template and a poem, and sends it to the phone as a delta file. Then, both
        offline: both type into the same poem; the laptop moves a folder while the phone
        renames it; the laptop deletes a folder into which the phone writes a new file.
        They exchange delta files, and the demo prints both trees and the poem side by
        side, checks the two replicas are identical, and shows that nothing was lost.

        With --dir, DIR/laptop.quire and DIR/phone.quire stay, with the delta files in
        DIR/deltas, for the other commands: quire tree --store DIR/phone.quire

        Example:
          quire demo --dir /tmp/quire-demo
        """
    static let dir = Option.value("dir", placeholder: "DIR", help: "Keep the replicas in DIR (new or empty).")
    static var options: [Option] { [dir] }

    var directory: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        directory = try arguments.value(of: Self.dir)?.path()
    }

    func run(in context: ToolContext) async throws {
        let manager = FileManager.default
        let root: String
        if let directory {
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw AppError("\(directory) is a file, not a directory; give a new or empty directory to --dir (the demo creates laptop.quire, phone.quire and deltas in it)")
            }
            if manager.fileExists(atPath: directory), !((try? manager.contentsOfDirectory(atPath: directory))?.isEmpty ?? false) {
                throw AppError("\(directory) is not an empty directory; give a new or empty one to --dir (the demo creates laptop.quire, phone.quire and deltas in it)")
            }
            root = directory
        } else {
            root = manager.temporaryDirectory.appendingPathComponent("quire-demo-\(UUID().uuidString)").path
        }
        defer { if directory == nil { try? manager.removeItem(atPath: root) } }
        let deltas = root + "/deltas"
        try manager.createDirectory(atPath: deltas, withIntermediateDirectories: true)

        var options = AppStore.options
        options.durability = .noSync  // a demo: no power-loss safety needed
        let laptop = try Store(directory: root + "/laptop.quire", options: options)
        defer { try? laptop.close() }
        let phone = try Store(directory: root + "/phone.quire", options: options)
        defer { try? phone.close() }
        let say = { (line: String) in context.output.writeLine(line.allSatisfy { $0 == " " } ? "" : line) }

        say("Quire demo: two replicas of one store edit offline, then merge through delta files.")
        say("  laptop: replica \(laptop.replica)    phone: replica \(phone.replica)")
        say(directory.map { "  in \($0) (kept)" } ?? "  in a temporary directory (use --dir DIR to keep it)")
        say("")
        let scenario = DemoScenario(laptop: laptop, phone: phone, deltas: deltas, say: say)
        let outcome = try scenario.run()

        // 4. The result, side by side.
        let laptopView = try View(laptop, poem: outcome.poem)
        let phoneView = try View(phone, poem: outcome.poem)
        say("4. the two replicas after the merge:")
        say("")
        for line in SideBySide.lines("laptop", laptopView.tree, "phone", phoneView.tree) { say("   " + line) }
        say("")
        say("   the poem, \(DemoScenario.projectName)/\(DemoScenario.poemPath.joined(separator: "/"))/\(DemoScenario.poemName):")
        say("")
        for line in SideBySide.lines("laptop", laptopView.poemLines, "phone", phoneView.poemLines) { say("   " + line) }
        say("")

        guard laptopView.dump == phoneView.dump, laptop.version == phone.version else {
            throw AppError("the replicas differ after the merge — this is a bug in Quire; please report it with the output above")
        }
        let changes = laptop.version.counters.values.reduce(0, +)
        say("identical: yes — both replicas hold the same tree, the same texts and the same version (\(changes) operations).")
        try checkNothingLost(laptop, outcome, say: say)
    }

    /// Says where each side's edit ended up, checking it is there.
    private func checkNothingLost(_ store: Store, _ outcome: DemoScenario.Outcome, say: (String) -> Void) throws {
        let (poem, sourcesPlace, lateParent, lateText, lateDeleted) = try store.read { tx in
            (try tx.string(of: outcome.poem),
             BinderPath.display(outcome.research, tx),
             tx.parent(of: outcome.lateIdea).map { BinderPath.display($0, tx) } ?? "",
             try tx.string(of: outcome.lateIdea.text(File.contentField)),
             tx.isDeleted(outcome.lateIdea))
        }
        let bothTyped = poem.hasPrefix(DemoScenario.phoneTitle) && poem.hasSuffix(DemoScenario.laptopLine)
            && poem.contains(DemoScenario.poemStart)
        guard bothTyped, sourcesPlace == "\(DemoScenario.projectName)/Publications/Sources",
              lateDeleted, lateParent == "Set Aside", lateText == DemoScenario.lateIdeaText
        else {
            throw AppError("an edit is missing after the merge — this is a bug in Quire; please report it with the output above")
        }
        say("nothing lost:")
        say("  - both typists' words are in the poem: the phone's title and the laptop's new line, each whole")
        say("  - the folder the laptop moved and the phone renamed is '\(sourcesPlace)': both edits kept")
        say("  - the laptop deleted Set Aside while the phone wrote '\(DemoScenario.lateIdea)' in it: the file is in the")
        say("    trash inside Set Aside, with its text \"\(lateText)\"")
        let restore = "quire restore --store \(directory.map { $0.shellQuoted } ?? "DIR")/laptop.quire \"Set Aside/\(DemoScenario.lateIdea)\" \"\(DemoScenario.projectName)/Your Poetry/Draft\""
        if directory != nil {
            say("")
            say("The replicas are kept. Restore the file on the laptop, then look:")
            say("  " + restore)
            say("  quire tree --store \(directory!.shellQuoted)/laptop.quire")
        } else {
            say("")
            say("Keep the replicas with 'quire demo --dir DIR', then try: " + restore)
        }
    }

    /// What the demo shows of one replica, and a dump of everything compared.
    private struct View {
        var tree: [String]
        var poemLines: [String]
        var dump: String

        init(_ store: Store, poem: TextID) throws {
            (tree, poemLines, dump) = try store.read { tx in
                let tree = try BinderTree.lines(showIDs: false, tx)
                let text = try tx.string(of: poem)
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                if lines.last == "" { lines.removeLast() }
                // The dump: the binder with IDs, and every file's text, trash included.
                var dump = try AppJSON.text(BinderTree.json(tx))
                for file in try tx.all(File.self, includingDeleted: true) {
                    dump += "\n\(file.id): " + (try tx.string(of: file.id.text(File.contentField)))
                }
                return (tree, lines, dump)
            }
        }
    }
}
