import Foundation
import Quire
import QuireApps

/// The story `quire demo` tells, on two stores: a laptop and a phone replica of one
/// store, a poetry project, concurrent offline edits on both, and delta files exchanged.
///
/// Every step prints what it did through `say`; the replicas' IDs are random, and
/// everything else the demo prints is the same on every run.
struct DemoScenario {
    let laptop: Store
    let phone: Store
    /// Where the delta files go.
    let deltas: String
    let say: (String) -> Void

    static let projectName = "My Poetry"
    static let poemPath = ["Your Poetry", "Draft"]
    static let poemName = "Ode"
    /// Matthew Arnold, "Dover Beach" (1867).
    static let poemStart = "The sea is calm tonight.\nThe tide is full, the moon lies fair\n"
    static let laptopLine = "Upon the straits; on the French coast the light\n"
    static let phoneTitle = "Dover Beach\n\n"
    static let lateIdea = "Late idea"
    static let lateIdeaText = "Gleams and is gone; the cliffs of England stand"

    /// What the checks at the end need.
    struct Outcome {
        var poem: TextID
        var lateIdea: RecordID
        var research: RecordID
    }

    func run() throws -> Outcome {
        // 1. The laptop creates the project and a poem; the phone receives them.
        let (poem, research, setAside) = try laptop.write { tx in
            let project = try createProject(name: Self.projectName, type: .poetry, created: Date(), in: tx)
            guard let draft = try folder(at: Self.poemPath, in: project, tx),
                  let research = try folder(at: ["Your Poetry", "Research"], in: project, tx),
                  let setAside = try folder(at: ["Your Poetry", "Set Aside"], in: project, tx)
            else { throw AppError("the poetry template lacks a folder; this is a bug in quire") }
            let poem = try createFile(named: Self.poemName, content: Self.poemStart, in: draft, tx)
            return (poem.text(File.contentField), research, setAside)
        }
        say("1. laptop: created the poetry project '\(Self.projectName)' (15 template folders) and the poem")
        say("   '\(Self.poemName)' in \(Self.poemPath.joined(separator: "/")), in one change")
        let first = try send(from: laptop, "laptop", to: phone, "phone", name: "1-laptop-to-phone.qdelta")
        say("   laptop → phone: \(first); the phone has the project too")
        say("")

        // 2. Offline on both.
        say("2. offline, on both replicas at once:")
        let laptopLength = try laptop.read { tx in try tx.length(of: poem) }
        let keystrokes = try type(Self.laptopLine, at: laptopLength, into: poem, on: laptop)
        say("   laptop: types \(quoted(Self.laptopLine)) at the end of the poem (\(keystrokes) keystrokes, each autosaved)")
        let phoneKeystrokes = try type(Self.phoneTitle, at: 0, into: poem, on: phone)
        say("   phone:  types \(quoted(Self.phoneTitle)) at the start of the same poem (\(phoneKeystrokes) keystrokes)")
        let publications = try laptop.read { tx in
            try tx.children(of: tx.children(of: nil)[0], ofType: Folder.self).first { $0.name == "Publications" }!.id
        }
        try laptop.write { tx in try tx.move(research, to: publications) }
        say("   laptop: moves Your Poetry/Research into Publications")
        try phone.write { tx in try tx.update(research, as: Folder.self) { $0.name = "Sources" } }
        say("   phone:  renames Your Poetry/Research to Sources")
        try laptop.write { tx in try tx.delete(setAside) }
        say("   laptop: deletes Your Poetry/Set Aside")
        let lateIdea = try phone.write { tx in try createFile(named: Self.lateIdea, content: Self.lateIdeaText, in: setAside, tx) }
        say("   phone:  writes a new file '\(Self.lateIdea)' in Your Poetry/Set Aside: \(quoted(Self.lateIdeaText))")
        say("")

        // 3. Delta files both ways, each computed before either is imported.
        say("3. back online: each replica exports what the other lacks, as a delta file, and imports the other's")
        let forPhone = try laptop.exportDelta(since: phone.version)!
        let forLaptop = try phone.exportDelta(since: laptop.version)!
        let toPhone = try write(forPhone, name: "2-laptop-to-phone.qdelta")
        let toLaptop = try write(forLaptop, name: "3-phone-to-laptop.qdelta")
        let intoPhone = try phone.importDelta(forPhone)
        say("   laptop → phone: \(toPhone): \(intoPhone.applied.count) changes")
        for line in intoPhone.summaryLines { say("     " + line.trimmingCharacters(in: .whitespaces)) }
        let intoLaptop = try laptop.importDelta(forLaptop)
        say("   phone → laptop: \(toLaptop): \(intoLaptop.applied.count) changes")
        for line in intoLaptop.summaryLines { say("     " + line.trimmingCharacters(in: .whitespaces)) }
        say("")
        return Outcome(poem: poem, lateIdea: lateIdea, research: research)
    }

    /// Types `text` one character per write transaction, as an editor autosaving each
    /// keystroke does.
    private func type(_ text: String, at position: Int, into poem: TextID, on store: Store) throws -> Int {
        var offset = position
        for scalar in text.unicodeScalars {
            try store.write { tx in try tx.insert(String(scalar), at: offset, in: poem) }
            offset += 1
        }
        return offset - position
    }

    /// Sends everything `receiver` lacks as a delta file; returns the file's description.
    private func send(from sender: Store, _ senderName: String, to receiver: Store, _ receiverName: String, name: String) throws -> String {
        let bytes = try sender.exportDelta(since: receiver.version)!
        let changes = try sender.changes(since: receiver.version).count
        try AtomicFile.write(bytes, to: deltas + "/" + name)
        try receiver.importDelta(bytes)
        return "\(name) (\(changes == 1 ? "1 change" : "\(changes) changes"))"
    }

    private func write(_ bytes: [UInt8], name: String) throws -> String {
        try AtomicFile.write(bytes, to: deltas + "/" + name)
        return "\(name), \(bytes.count) bytes"
    }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
