import Foundation
import Quire
import QuireTestSupport

// Every ```swift block of docs/store.md, verbatim (modulo indentation), inside a function
// that provides what the block assumes. `DocSnippetCheckTests` fails when a block of the
// guide is not found here; `StoreGuideSnippetTests` runs the blocks that can run.
// Keep the blocks in the guide's order, each under a `// docs/store.md:` marker.

/// The guide's record types (section 2) and the names its blocks assume.
enum StoreGuide {
    // docs/store.md: 2. Define records
    enum ProjectType: String, Codable, Sendable, CaseIterable { case prose, poetry, drama }

    struct Project: Record {
        static let typeName = "writing.project"          // never change it: replicas use it
        static let siblingNameField: String? = "name"    // names should be unique among siblings
        var name: String
        var type: ProjectType
        var created: Date
        var details: String?
        func validate() throws { try RecordName.validate(name) }
    }

    struct Folder: Record {
        static let typeName = "writing.folder"
        static let siblingNameField: String? = "name"
        var name: String
        func validate() throws { try RecordName.validate(name) }
    }

    struct File: Record {                                  // content: the text "content"
        static let typeName = "writing.file"
        static let siblingNameField: String? = "name"
        static let contentField = "content"
        static let texts: Set<String>? = [contentField]    // the texts it owns; others are refused
        var name: String
        func validate() throws { try RecordName.validate(name) }
    }

    // docs/store.md: 2. Define records, the flash-card app
    struct Category: Record {                              // top level; notes are its children
        static let typeName = "cards.category"
        static let siblingNameField: String? = "title"
        var title: String
        func validate() throws { try RecordName.validate(title) }
    }

    struct CardNote: Record {                              // answer: the text "answer"; clues are its children
        static let typeName = "cards.note"
        static let answerField = "answer"
        var title: String?
        func validate() throws { if let title { try RecordName.validate(title) } }
    }

    struct Clue: Record {                                  // its words: the text "text"
        static let typeName = "cards.clue"
        static let textField = "text"
        var created: Date
    }

    // MARK: What the blocks assume (not in the guide)

    /// The note of the helper and observation blocks.
    struct Note: Record {
        static let typeName = "guide.note"
        var title: String
    }

    /// The record whose enum may grow (section 12).
    struct Entry: Record {
        static let typeName = "guide.entry"
        var mood: String
    }

    enum AppError: Error { case missingFolder(String) }

    final class Sidebar: Sendable {
        func show(_ titles: [String]) {}
    }

    struct Log {
        func notice(_ message: String) {}
    }

    static let log = Log()
    static func show<T>(_ value: T) {}
    static func suggestUpdate() {}
    static func apply(_ event: StoreEvent) {}
    static func removeRow(_ node: RecordID) {}
    static func reloadRows(_ records: Set<RecordID>) {}
    static func reloadText() {}
    static func askUser(_ question: String) throws -> Bool { true }
    static func markForReview(_ text: TextID, _ range: NSRange) {}

    /// Section 9's `exchange`, the helper section 8 defines.
    static func exchange(_ a: Store, _ b: Store) throws -> (intoA: MergeReport, intoB: MergeReport) {
        let forA = try b.changes(since: a.version), forB = try a.changes(since: b.version)
        return (try a.apply(forA), try b.apply(forB))
    }
}

extension StoreGuide {
    // docs/store.md: 1. Open a store
    static func openStore(appSupport: String) throws {
        var options = Store.Options()
        options.recordTypes = [Project.self, Folder.self, File.self]   // see "Name clashes"
        let store = try Store(directory: appSupport + "/Writing.quire", options: options)
        defer { try? store.close() }
    }

    // docs/store.md: Helper functions over a transaction
    static func helperFunctions(store: Store, ids: [RecordID], id: RecordID) throws -> [String] {
        func title<Tx: StoreReading & ~Copyable>(of id: RecordID, in tx: borrowing Tx) throws -> String {
            try tx.record(Note.self, id).title
        }
        func rename(_ id: RecordID, to title: String, in tx: borrowing StoreWriter) throws {
            try tx.update(id, as: Note.self) { $0.title = title }
        }

        let titles = try store.read { tx in try ids.map { try title(of: $0, in: tx) } }   // inline closures may capture tx
        try store.write { tx in
            try rename(id, to: "Rainy day", in: tx)
            print(try title(of: id, in: tx))                                              // "Rainy day": its own write
        }
        return titles
    }

    // docs/store.md: 2. Define records, declared texts
    static func undeclaredText(store: Store, ode: RecordID) throws {
        try store.write { tx in try tx.insert("Hi", at: 0, in: ode.text("contnet")) }
        // record …@3 is a writing.file, whose texts are "content"; "contnet" is not one of them —
        // check the name, or add it to the type's `texts`
    }

    // docs/store.md: 2. Define records, a refused write
    static func refusedWrite(store: Store) throws {
        do {
            try store.write { tx in try tx.insert(Folder(name: "  ")) }
        } catch let error as StoreError {
            print(error)   // invalid name "  ": a name cannot be empty or only spaces
        }
    }

    // docs/store.md: 3. Create a project from its template
    static func createProjectFromTemplate(store: Store) throws -> RecordID {
        enum ProjectTemplate {
            static let workFolders = ["All", "Draft", "Ready", "Set Aside", "Published",
                                      "Collections", "Submissions", "Research"]
            static let publicationFolders = ["Magazines", "Competitions", "Commissions", "Other"]
        }

        @discardableResult
        func createProject(name: String, type: ProjectType, created: Date, details: String? = nil,
                           in tx: borrowing StoreWriter) throws -> RecordID {
            let project = try tx.insert(Project(name: name, type: type, created: created, details: details))
            let work = try tx.insert(Folder(name: "Your \(type.rawValue.capitalized)"), under: project)
            for name in ProjectTemplate.workFolders { try tx.insert(Folder(name: name), under: work) }
            let publications = try tx.insert(Folder(name: "Publications"), under: project)
            for name in ProjectTemplate.publicationFolders { try tx.insert(Folder(name: name), under: publications) }
            try tx.insert(Folder(name: "Trash"), under: project)
            return project
        }

        let poems = try store.write { tx in
            try createProject(name: "My Poetry", type: .poetry, created: .now, in: tx)
        }
        return poems
    }

    // docs/store.md: 3. Reading the hierarchy
    static func readHierarchy(store: Store, poems: RecordID, someFile: RecordID, someFolder: RecordID) throws {
        try store.read { tx in
            tx.children(of: nil)                               // top level, in sibling order
            try tx.children(of: poems, ofType: Folder.self)    // [Stored<Folder>]: .id, .name
            tx.subtree(of: poems)                              // depth first, siblings in order
            tx.path(of: someFile)                              // from the top level down to it
            tx.parent(of: someFolder)                          // nil at the top level and in the trash
        }
    }

    // docs/store.md: 4. Type into a file
    static func typeIntoFile(store: Store, poems: RecordID, range: NSRange, replacement: String) throws
        -> (ode: RecordID, text: String, words: Int, length: Int)
    {
        let ode = try store.write { tx in
            let work = try tx.children(of: poems, ofType: Folder.self)[0]          // "Your Poetry"
            guard let draft = try tx.children(of: work.id, ofType: Folder.self).first(where: { $0.name == "Draft" })
            else { throw AppError.missingFolder("Draft") }
            return try tx.insert(File(name: "Ode"), under: draft.id)
        }
        let content = ode.text(File.contentField)

        // textView(_:shouldChangeTextIn:replacementText:) — one keystroke, one transaction:
        try store.write { tx in
            try tx.replace(range.location ..< range.location + range.length, with: replacement,
                           unit: .utf16, in: content)
        }
        try store.write { tx in try tx.insert("🌊", at: 7, unit: .utf16, in: content) }
        try store.write { tx in try tx.delete(7..<9, unit: .utf16, in: content) }   // the 🌊: 2 UTF-16 units

        let (text, words, length) = try store.read { tx in
            (try tx.string(of: content), try tx.wordCount(of: content), try tx.length(of: content, unit: .utf16))
        }
        return (ode, text, words, length)
    }

    // docs/store.md: Keystroke autosave
    static func keystrokeAutosave(store: Store, content: TextID) throws {
        let editor = TextEditingSession(store: store, text: content)             // durable: one commit per call
        try editor.insert("H", at: 0)                                           // on disk when this returns
        let batched = TextEditingSession(store: store, text: content, coalescing: .standard)
        try batched.insert("i", at: 1)                                          // committed within 300 ms …
        try batched.flush()                                                     // … or now
        try batched.close()
    }

    // docs/store.md: Versions of a text
    static func textVersions(store: Store, content: TextID) throws -> (then: String, diff: TextDiff) {
        let draft = store.version                                                 // what `quire status --version-out` writes
        try store.write { tx in try tx.replace(0..<3, with: "A", in: content) }
        let then = try store.read { tx in try tx.string(of: content, at: draft) }   // the text before the replace
        let diff = try store.read { tx in try tx.diff(of: content, from: draft, to: tx.version) }
        for edit in diff.edits.reversed() {                                       // ranges of the old text
            show((edit.deletedRange, edit.insertedText))
        }
        try store.write { tx in try tx.restore(content, to: draft) }              // reads as then again: a new edit
        return (then, diff)
    }

    // docs/store.md: Undo and redo
    static func undoAndRedo(store: Store, content: TextID, chapter: RecordID, ready: RecordID, published: RecordID) throws {
        try store.write { tx in try tx.insert(" brave", at: 5, in: content) }
        try store.write { tx in try tx.undo(in: content) }    // " brave" is gone, on every replica after a merge
        try store.write { tx in try tx.redo(in: content) }    // and back

        try store.write { tx in try tx.update(chapter, as: Folder.self) { $0.name = "Chapter One" } }
        try store.write { tx in try tx.move(chapter, to: ready, at: 0) }
        try store.write { tx in
            if tx.canUndo { try tx.undo() }                   // Cmd-Z: the move goes back (old parent, old index) …
        }
        try store.write { tx in try tx.undo() }               // … then the name is "Chapter 1" again

        try store.beginUndoGroup()                            // an app action made of several writes
        try store.write { tx in try tx.update(chapter, as: Folder.self) { $0.name = "Final" } }
        try store.write { tx in try tx.move(chapter, to: published) }
        try store.endUndoGroup()                              // one `undo()` takes back both
    }

    // docs/store.md: Undo and redo, with a TextEditingSession
    static func sessionUndo(store: Store, content: TextID) throws -> Int {
        let editor = TextEditingSession(store: store, text: content, coalescing: .standard)
        try editor.insert("Hello", at: 0)
        try editor.undo()                                     // ""
        try editor.redo()                                     // "Hello"
        let words = try editor.wordCount                      // 1
        try editor.close()
        return words
    }

    // docs/store.md: 5. Rename, move, reorder, delete, restore
    static func renameMoveDeleteRestore(
        store: Store, chapter: RecordID, ready: RecordID, note: RecordID, fileInChapter: RecordID, other: RecordID
    ) throws {
        try store.write { tx in
            try tx.update(chapter, as: Folder.self) { $0.name = "Chapter One" }   // writes only `name`
            try tx.move(chapter, to: ready, at: 0)                                // with its subtree
            try tx.reorder(note, to: 0)                                           // among its siblings
        }
        try store.write { tx in try tx.delete(chapter) }                          // to the trash
        try store.read { tx in
            tx.trash                       // [chapter]: deleted roots, restorable
            tx.isDeleted(fileInChapter)    // true: inside a deleted subtree
            try tx.all(File.self)          // live records only
            try tx.all(File.self, includingDeleted: true)
            try tx.string(of: fileInChapter.text(File.contentField))   // still there
        }
        try store.read { tx in
            tx.parent(of: chapter)         // nil: it is in the trash
            tx.deletedFrom(chapter)        // RecordPlace(parent: draft, index: 2): where it was
        }
        try store.write { tx in try tx.restore(chapter) }                         // back where it was
        try store.write { tx in try tx.restore(other, to: ready, at: 0) }         // or somewhere else
    }

    // docs/store.md: 6. List, filter and sort
    static func listFilterSort(store: Store, draft: RecordID) throws {
        try store.read { tx in
            try tx.all(Project.self, sortedBy: \.name)                        // by name
            try tx.all(Project.self, sortedBy: \.created, ascending: false)   // newest first
            try tx.all(Project.self) { $0.type == .poetry }                   // a filter, ID order
            try tx.all(Project.self, sortedBy: \.name) { $0.type == .poetry } // both
            try tx.all(Project.self, includingDeleted: true, sortedBy: \.name.localizedLowercase)

            try tx.children(of: draft, ofType: File.self)                     // sibling order
            try tx.children(of: draft, ofType: File.self) { $0.name.hasPrefix("Chapter") }
            try tx.children(of: draft, ofType: File.self, sortedBy: \.name, ascending: false)
        }
    }

    // docs/store.md: 6. List, filter and sort, allDecodable
    static func allDecodableProjects(store: Store) throws {
        let projects = try store.read { tx in tx.allDecodable(Project.self) }
        show(projects.records)                                   // [Stored<Project>], ID order
        if !projects.undecodable.isEmpty { suggestUpdate() }     // [UndecodableRecord]
    }

    // docs/store.md: 7. Observe, a value
    static func observeValue(store: Store, sidebar: Sidebar) throws {
        let notes = store.observe { tx in try tx.all(Note.self).map(\.value.title) }
        Task {
            for try await titles in notes.removingDuplicates() {
                sidebar.show(titles)              // now, then after each write, merge or other process's commit
            }
        }
        try store.write { tx in _ = try tx.insert(Note(title: "New")) }   // appears in a value, always
    }

    // docs/store.md: 7. Observe, events from a known point
    static func eventsSince(store: Store) async throws {
        let seen = store.version                        // kept with the app's state
        // … later, after writes and merges in between:
        for await event in try store.events(since: seen) { apply(event) }
    }

    // docs/store.md: 7. Observe, live events
    static func liveEvents(store: Store, notebook: RecordID, content: TextID) throws -> ChangeID {
        let sidebarEvents = store.events(under: notebook)  // subscribed here, before any write below
        let sidebar = Task {
            for await event in sidebarEvents where event.origin != .local {
                for (node, move) in event.moves where move.from?.parent == notebook && move.to?.parent != notebook {
                    removeRow(node)                // moved out of the notebook, or deleted
                }
                reloadRows(event.records)          // children created or edited, at any depth
            }
        }
        let editorEvents = store.events(for: content)
        let editor = Task {
            for await event in editorEvents where event.origin == .remote {
                reloadText()                       // a merge touched this file's text
            }
        }
        let mine = try store.write { tx in
            try tx.insert("a", at: 0, in: content)
            return tx.changeID                     // events of this write carry it
        }
        sidebar.cancel()
        editor.cancel()
        return mine
    }

    // docs/store.md: 8. Merge two replicas
    static func mergeTwoReplicas(laptop: Store, phone: Store) throws -> (intoPhone: MergeReport, intoLaptop: MergeReport) {
        let forPhone = try laptop.changes(since: phone.version)
        let forLaptop = try phone.changes(since: laptop.version)
        let intoPhone = try phone.apply(forPhone)
        let intoLaptop = try laptop.apply(forLaptop)
        // laptop and phone now read the same records, tree, texts and version.

        /// Both deltas are computed before either is applied (the tests' helper).
        func exchange(_ a: Store, _ b: Store) throws -> (intoA: MergeReport, intoB: MergeReport) {
            let forA = try b.changes(since: a.version), forB = try a.changes(since: b.version)
            return (try a.apply(forA), try b.apply(forB))
        }
        _ = try exchange(laptop, phone)
        return (intoPhone, intoLaptop)
    }

    // docs/store.md: 8. Merge two replicas, delta files
    static func deltaFiles(laptop: Store, phone: Store, phoneVersion: VersionVector, url: URL, dropbox: String) throws
        -> (report: MergeReport, syncReport: SyncReport)
    {
        // On the laptop: what the phone lacks, as one file (nil when it lacks nothing).
        if let delta = try laptop.exportDelta(since: phoneVersion) { try Data(delta).write(to: url) }
        // On the phone: checked, then applied in one transaction; a damaged or foreign file is
        // refused with DeltaFileError and changes nothing.
        let report = try phone.importDelta([UInt8](try Data(contentsOf: url)))

        // Or let a synced folder carry them: each replica writes its own subfolder.
        let syncReport = try phone.sync(folder: dropbox + "/Writing.sync")
        return (report, syncReport)
    }

    // docs/store.md: 8. Merge two replicas, Codable identities
    static func codableVersion(laptop: Store, phone: Store) throws -> [UInt8]? {
        let request = try JSONEncoder().encode(phone.version)                    // phone → laptop
        let phoneVersion = try JSONDecoder().decode(VersionVector.self, from: request)
        let answer = try laptop.exportDelta(since: phoneVersion)                 // laptop → phone
        return answer
    }

    // docs/store.md: 8. Merge two replicas, joining a lineage
    static func joinLineage(phone: Store, fromLaptop: [UInt8]) throws {
        do {
            try phone.importDelta(fromLaptop)
        } catch DeltaFileError.otherStoreJoinable {
            if try askUser("Merge this device's notes into the laptop's?") {
                try phone.importDelta(fromLaptop, joiningLineage: true)
            }
        }
    }

    // docs/store.md: 8. Merge two replicas, the MergeReport
    static func mergeReport(phone: Store, forPhone: [Change]) throws -> MergeReport {
        let report = try phone.apply(forPhone)
        report.applied          // ChangeIDs applied now (including pending ones whose gap closed)
        report.alreadyKnown     // ChangeIDs: duplicates, skipped
        report.pending          // waiting for a change they depend on
        report.changedRecords   // Set<RecordID> whose fields changed
        report.changedTexts     // Set<TextID>
        report.movedNodes       // Set<RecordID> created, moved or deleted
        report.overwritten      // [OverwrittenValue]: record, field, losing JSON value, its timestamp
        report.nameClashes      // [NameClash]: parent, name, records
        report.overlappingEdits // [OverlappingEdit]: text, range, utf16Range — passages both sides rewrote
        report.skippedMoves     // moves kept in the log but not in effect (they would make a cycle)
        return report
    }

    // docs/store.md: 8. Merge two replicas, overlapping edits
    static func overlappingEdits(laptop: Store, fromPhone: [UInt8]) throws -> MergeReport {
        let report = try laptop.importDelta(fromPhone)
        for edit in report.overlappingEdits {
            markForReview(edit.text, NSRange(location: edit.utf16Range.lowerBound, length: edit.utf16Range.count))
        }
        return report
    }

    // docs/store.md: 9. Name clashes
    static func nameClashes(laptop: Store, phone: Store, draft: RecordID, other: RecordID) throws -> [NameClash] {
        let (intoLaptop, _) = try exchange(laptop, phone)
        intoLaptop.nameClashes      // [2 records named "Chapter 1" under <Draft>]
        try laptop.read { tx in tx.nameClashes(under: draft) }   // the same, any time later
        try laptop.write { tx in try tx.update(other, as: Folder.self) { $0.name = "Chapter 1 (phone)" } }
        return intoLaptop.nameClashes
    }
}

// docs/store.md: 12. Schema evolution
enum SchemaGuide {
    struct Note: Record {            // version 2
        static let typeName = "notes.note"
        var title: String
        var pinnedAt: Date?          // new
    }

    struct Label: Record {
        static let typeName = "tags.label"
        var title: String                                    // was `name`
        enum CodingKeys: String, CodingKey { case title = "name" }
    }

    typealias Entry = StoreGuide.Entry
    static let log = StoreGuide.Log()
    static func show<T>(_ value: T) {}

    static func growingEnum(tx: borrowing StoreReader) {
        enum Mood: RawRepresentable, Codable, Hashable, Sendable {
            case happy, sad
            case unknown(String)          // a mood of a newer version
            init(rawValue: String) {
                switch rawValue {
                case "happy": self = .happy
                case "sad": self = .sad
                default: self = .unknown(rawValue)
                }
            }
            var rawValue: String {
                switch self {
                case .happy: "happy"
                case .sad: "sad"
                case .unknown(let raw): raw
                }
            }
        }

        let entries = tx.allDecodable(Entry.self)                // whatever the enums hold
        show(entries.records)
        for skipped in entries.undecodable { log.notice("\(skipped.id): \(skipped.error)") }
    }
}

// docs/store.md: 12. Schema evolution, a default value (the extension needs file scope)
struct Todo: Record {            // not `Task`, which would hide Swift's `Task` in the app
    static let typeName = "todo.task"
    var title: String
    var priority: Int = 0        // new in version 2
}

extension Todo {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority) ?? 0
    }
}
