import Foundation
import Quire
import QuireApps
import QuireCore
import QuireTestSupport
import Testing

/// Opens a store in a fresh directory of `directory` for the reference apps.
func openStore(in directory: TemporaryDirectory, _ name: String = "store", replica: UInt64? = nil) throws -> Store {
    try Store(directory: directory.appending(name), options: referenceOptions(replica: replica))
}

private let day: TimeInterval = 86_400

@Suite("Writing app")
struct WritingAppTests {
    @Test("creating a project of each type builds exactly the 15-folder template, named and ordered", arguments: ProjectType.allCases)
    func template(type: ProjectType) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try openStore(in: directory)
        let project = try store.write { tx throws in
            try createProject(name: "My \(type.displayName)", type: type, created: Date(timeIntervalSinceReferenceDate: 0), in: tx)
        }
        try store.read { tx throws in
            #expect(tx.children(of: nil) == [project])
            #expect(try tx.record(Project.self, project) == Project(name: "My \(type.displayName)", type: type, created: Date(timeIntervalSinceReferenceDate: 0)))
            let top = try tx.children(of: project, ofType: Folder.self)
            #expect(top.map(\.name) == ["Your \(type.displayName)", "Publications", "Trash"])
            #expect(try tx.children(of: top[0].id, ofType: Folder.self).map(\.name)
                == ["All", "Draft", "Ready", "Set Aside", "Published", "Collections", "Submissions", "Research"])
            #expect(try tx.children(of: top[1].id, ofType: Folder.self).map(\.name) == ["Magazines", "Competitions", "Commissions", "Other"])
            #expect(tx.children(of: top[2].id).isEmpty)
            let subtree = tx.subtree(of: project)
            #expect(subtree.count == 16)  // the project and its 15 folders
            #expect(subtree.dropFirst().allSatisfy { tx.typeName(of: $0) == Folder.typeName })
            #expect(ProjectTemplate.folderCount(for: type) == 15)
            // Depth: every template folder is one or two levels below the project.
            for id in subtree.dropFirst() { #expect((2...3).contains(tx.path(of: id).count)) }
            #expect(tx.nameClashes(under: project).isEmpty)
        }
        #expect(try store.changes().count == 1)  // project and template: one change
    }

    @Test("an invalid project name writes nothing")
    func invalidName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try openStore(in: directory)
        for name in ["", "   ", "Tab\there", String(repeating: "x", count: 256)] {
            #expect(throws: StoreError.self) {
                try store.write { tx throws in try createProject(name: name, type: .prose, created: .now, in: tx) }
            }
        }
        try store.read { tx throws in #expect(tx.children(of: nil).isEmpty) }
        #expect(try store.changes().isEmpty)
    }

    @Test("folders nest to depth 8 and their paths read back")
    func nesting() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try openStore(in: directory)
        let (project, deepest) = try store.write { tx throws in
            let project = try createProject(name: "Novel", type: .prose, created: .now, in: tx)
            var parent = try #require(try folder(at: ["Your Prose", "Draft"], in: project, tx))
            for level in 1...6 { parent = try tx.insert(Folder(name: "Level \(level)"), under: parent) }
            let file = try createFile(named: "Deep", content: "at the bottom", in: parent, tx)
            return (project, file)
        }
        try store.read { tx throws in
            let path = tx.path(of: deepest)
            #expect(path.count == 10)  // project, Your Prose, Draft, Level 1…6, the file
            #expect(path.first == project)
            #expect(try path.dropFirst().dropLast().map { try tx.record(Folder.self, $0).name }
                == ["Your Prose", "Draft", "Level 1", "Level 2", "Level 3", "Level 4", "Level 5", "Level 6"])
            #expect(try tx.string(of: deepest.text(File.contentField)) == "at the bottom")
            #expect(try folder(at: ["Your Prose", "Draft", "Level 1", "Level 2", "Level 3", "Level 4", "Level 5"], in: project, tx) != nil)
        }
    }

    @Test("typing into a file at UTF-16 offsets: inserts, deletes and a live word count")
    func typing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try openStore(in: directory)
        let file = try store.write { tx throws in
            let project = try createProject(name: "Poems", type: .poetry, created: .now, in: tx)
            return try createFile(named: "Ode", in: try #require(try folder(at: ["Your Poetry", "Draft"], in: project, tx)), tx)
        }
        let content = file.text(File.contentField)
        // One keystroke per transaction, as autosave does; offsets as a text view's NSRange.
        var typed = ""
        for character in "Ode to 🌊 waves" {
            let offset = typed.utf16.count
            try store.write { tx throws in try tx.insert(String(character), at: offset, unit: .utf16, in: content) }
            typed.append(character)
        }
        try store.read { tx throws in
            #expect(try tx.string(of: content) == "Ode to 🌊 waves")
            #expect(try tx.length(of: content, unit: .utf16) == 15)  // 🌊 is two UTF-16 units
            #expect(try tx.length(of: content) == 14)
            #expect(try tx.wordCount(of: content) == 3)
            #expect(try tx.string(of: content, in: 7..<9, unit: .utf16) == "🌊")
        }
        // Select "🌊 " (NSRange 7, 3) and delete it; then insert after "to ".
        try store.write { tx throws in try tx.delete(7..<10, unit: .utf16, in: content) }
        try store.write { tx throws in try tx.insert("the ", at: 7, unit: .utf16, in: content) }
        try store.write { tx throws in try tx.replace(0..<3, with: "Song", unit: .utf16, in: content) }
        try store.read { tx throws in
            #expect(try tx.string(of: content) == "Song to the waves")
            #expect(try tx.wordCount(of: content) == 4)
        }
        // An offset inside the surrogate pair of an emoji is refused, and nothing changes.
        try store.write { tx throws in try tx.insert("🌊", at: 0, unit: .utf16, in: content) }
        #expect(throws: StoreError.self) { try store.write { tx throws in try tx.insert("x", at: 1, unit: .utf16, in: content) } }
        #expect(throws: StoreError.self) { try store.write { tx throws in try tx.delete(0..<100, unit: .utf16, in: content) } }
        try store.read { tx throws in #expect(try tx.string(of: content) == "🌊Song to the waves") }
    }

    @Test("rename, move between folders, delete with the subtree to the trash and restore")
    func renameMoveDeleteRestore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try openStore(in: directory)
        let (project, chapter, file) = try store.write { tx throws in
            let project = try createProject(name: "Novel", type: .prose, created: .now, in: tx)
            let draft = try #require(try folder(at: ["Your Prose", "Draft"], in: project, tx))
            let chapter = try tx.insert(Folder(name: "Chapter 1"), under: draft)
            let scene = try tx.insert(Folder(name: "Scene"), under: chapter)
            let file = try createFile(named: "Opening", content: "It was a dark night.", in: scene, tx)
            return (project, chapter, file)
        }
        // Rename.
        try store.write { tx throws in try tx.update(chapter, as: Folder.self) { $0.name = "Chapter One" } }
        #expect(throws: StoreError.self) { try store.write { tx throws in try tx.update(chapter, as: Folder.self) { $0.name = " " } } }
        // Move Draft/Chapter One to Ready, first.
        let ready = try store.read { tx throws in try #require(try folder(at: ["Your Prose", "Ready"], in: project, tx)) }
        try store.write { tx throws in
            try tx.insert(Folder(name: "Older"), under: ready)
            try tx.move(chapter, to: ready, at: 0)
        }
        try store.read { tx throws in
            #expect(try childNames(of: ready, tx) == ["Chapter One", "Older"])
            #expect(try folder(at: ["Your Prose", "Draft", "Chapter One"], in: project, tx) == nil)
            #expect(try folder(at: ["Your Prose", "Ready", "Chapter One", "Scene"], in: project, tx) != nil)
        }
        // A folder cannot move into its own subtree.
        let scene = try store.read { tx throws in try #require(tx.children(of: chapter).first) }
        #expect(throws: StoreError.self) { try store.write { tx throws in try tx.move(chapter, to: scene) } }
        // Delete: the folder and its subtree go to the trash, the file's content stays.
        try store.write { tx throws in try tx.delete(chapter) }
        try store.read { tx throws in
            #expect(tx.trash == [chapter])
            #expect(tx.isDeleted(chapter) && tx.isDeleted(file))
            #expect(try childNames(of: ready, tx) == ["Older"])
            #expect(try tx.all(File.self).isEmpty)
            #expect(try tx.all(File.self, includingDeleted: true).map(\.id) == [file])
            #expect(try tx.string(of: file.text(File.contentField)) == "It was a dark night.")
        }
        // Restore it where it was.
        try store.write { tx throws in try tx.restore(chapter, to: ready, at: 0) }
        try store.read { tx throws in
            #expect(tx.trash.isEmpty && !tx.isDeleted(file))
            #expect(try childNames(of: ready, tx) == ["Chapter One", "Older"])
            #expect(try tx.all(File.self).map(\.id) == [file])
            #expect(tx.path(of: file).count == 6)
        }
    }

    @Test("projects list sorted by name and by creation date, deleted ones left out")
    func sortedProjects() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try openStore(in: directory)
        let base = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let ids = try store.write { tx throws in
            [
                try createProject(name: "Sonnets", type: .poetry, created: base + 2 * day, in: tx),
                try createProject(name: "Act One", type: .drama, created: base + 3 * day, details: "a play", in: tx),
                try createProject(name: "Memoir", type: .prose, created: base, in: tx),
                try createProject(name: "Haiku", type: .poetry, created: base + day, in: tx),
            ]
        }
        try store.read { tx throws in
            #expect(try tx.all(Project.self, sortedBy: \.name).map(\.name) == ["Act One", "Haiku", "Memoir", "Sonnets"])
            #expect(try tx.all(Project.self, sortedBy: \.created).map(\.name) == ["Memoir", "Haiku", "Sonnets", "Act One"])
            #expect(try tx.all(Project.self, sortedBy: \.created, ascending: false).map(\.name) == ["Act One", "Sonnets", "Haiku", "Memoir"])
            #expect(try tx.all(Project.self) { $0.type == .poetry }.map(\.name).sorted() == ["Haiku", "Sonnets"])
            #expect(try tx.record(Project.self, ids[1]).details == "a play")
        }
        try store.write { tx throws in try tx.delete(ids[2]) }
        try store.read { tx throws in
            #expect(try tx.all(Project.self, sortedBy: \.name).map(\.name) == ["Act One", "Haiku", "Sonnets"])
        }
    }

    @Test("two replicas editing offline merge both ways into identical stores, losing nothing")
    func offlineMerge() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let laptop = try openStore(in: directory, "laptop"), phone = try openStore(in: directory, "phone")
        let (project, ode, research, setAside) = try laptop.write { tx throws in
            let project = try createProject(name: "Poems", type: .poetry, created: .now, in: tx)
            let draft = try #require(try folder(at: ["Your Poetry", "Draft"], in: project, tx))
            let ode = try createFile(named: "Ode", content: "The sea.", in: draft, tx)
            return (
                project, ode, try #require(try folder(at: ["Your Poetry", "Research"], in: project, tx)),
                try #require(try folder(at: ["Your Poetry", "Set Aside"], in: project, tx))
            )
        }
        try phone.apply(laptop.changes(since: phone.version))
        #expect(try dump(laptop) == dump(phone))
        let content = ode.text(File.contentField)

        // Offline on the laptop: type at the start, move Research under Publications,
        // delete Set Aside.
        let publications = try laptop.read { tx throws in try #require(try folder(at: ["Publications"], in: project, tx)) }
        try laptop.write { tx throws in try tx.insert("Laptop: ", at: 0, unit: .utf16, in: content) }
        try laptop.write { tx throws in try tx.move(research, to: publications, at: 0) }
        try laptop.write { tx throws in try tx.delete(setAside) }
        // Offline on the phone: type at the end, rename Research, create a file in Set Aside.
        let late = try phone.write { tx throws in
            try tx.insert(" Phone.", at: try tx.length(of: content, unit: .utf16), unit: .utf16, in: content)
            try tx.update(research, as: Folder.self) { $0.name = "Sources" }
            return try createFile(named: "Late idea", content: "waves, gulls", in: setAside, tx)
        }

        let (intoLaptop, intoPhone) = try exchange(laptop, phone)
        #expect(intoLaptop.applied.count == 1 && intoPhone.applied.count == 3)
        #expect(intoLaptop.pending.isEmpty && intoPhone.pending.isEmpty)
        #expect(laptop.version == phone.version)
        #expect(try dump(laptop) == dump(phone))

        for store in [laptop, phone] {
            try store.read { tx throws in
                // Both typists' text.
                #expect(try tx.string(of: content) == "Laptop: The sea. Phone.")
                // The renamed folder at its new place.
                #expect(try tx.record(Folder.self, research).name == "Sources")
                #expect(tx.parent(of: research) == publications)
                #expect(try childNames(of: publications, tx).first == "Sources")
                // Set Aside is in the trash with the file made inside it meanwhile.
                #expect(tx.trash == [setAside])
                #expect(tx.isDeleted(late) && tx.subtree(of: setAside).contains(late))
                #expect(try tx.string(of: late.text(File.contentField)) == "waves, gulls")
            }
        }
        // Recover the file from the trash, on the phone; the laptop receives it.
        let draft = try phone.read { tx throws in try #require(try folder(at: ["Your Poetry", "Draft"], in: project, tx)) }
        try phone.write { tx throws in try tx.restore(late, to: draft) }
        try exchange(laptop, phone)
        #expect(try dump(laptop) == dump(phone))
        try laptop.read { tx throws in
            #expect(try tx.children(of: draft, ofType: File.self).map(\.name) == ["Ode", "Late idea"])
            #expect(!tx.isDeleted(late) && tx.isDeleted(setAside))
            #expect(try tx.string(of: late.text(File.contentField)) == "waves, gulls")
        }
    }

    @Test("a file moved out of a folder that another replica deletes meanwhile is rescued, edits kept")
    func rescueFromDeletedFolder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let a = try openStore(in: directory, "a"), b = try openStore(in: directory, "b")
        let (draft, ready, file) = try a.write { tx throws in
            let project = try createProject(name: "Novel", type: .prose, created: .now, in: tx)
            let draft = try #require(try folder(at: ["Your Prose", "Draft"], in: project, tx))
            let ready = try #require(try folder(at: ["Your Prose", "Ready"], in: project, tx))
            return (draft, ready, try createFile(named: "Scene", content: "one", in: draft, tx))
        }
        try b.apply(a.changes())
        let other = try a.write { tx throws in
            let other = try createFile(named: "Other", content: "two", in: draft, tx)
            try tx.delete(draft)
            return other
        }
        try b.write { tx throws in
            try tx.move(file, to: ready)
            try tx.insert(" more", at: 3, in: file.text(File.contentField))
        }
        // Edit inside the deleted folder on A after deleting it, too.
        try a.write { tx throws in try tx.insert("!", at: 3, in: other.text(File.contentField)) }
        try exchange(a, b)
        #expect(try dump(a) == dump(b))
        try b.read { tx throws in
            #expect(tx.isDeleted(draft) && tx.isDeleted(other) && !tx.isDeleted(file))
            #expect(tx.parent(of: file) == ready)
            #expect(try tx.string(of: file.text(File.contentField)) == "one more")
            #expect(try tx.string(of: other.text(File.contentField)) == "two!")
        }
        let work = try b.read { tx throws in tx.parent(of: ready) }
        try b.write { tx throws in try tx.restore(draft, to: work, at: 1) }
        try exchange(a, b)
        #expect(try dump(a) == dump(b))
        try a.read { tx throws in
            #expect(try tx.children(of: draft, ofType: File.self).map(\.name) == ["Other"])
            #expect(try tx.string(of: other.text(File.contentField)) == "two!")
        }
    }

    @Test("concurrent renames of one folder: the later write wins and the loser is reported")
    func concurrentRename() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let a = try openStore(in: directory, "a", replica: 1), b = try openStore(in: directory, "b", replica: 2)
        let project = try a.write { tx throws in try createProject(name: "Play", type: .drama, created: .now, in: tx) }
        try b.apply(a.changes())
        let research = try a.read { tx throws in try #require(try folder(at: ["Your Drama", "Research"], in: project, tx)) }
        try a.write { tx throws in try tx.update(research, as: Folder.self) { $0.name = "Notes" } }
        try b.write { tx throws in try tx.update(research, as: Folder.self) { $0.name = "Reading" } }
        let (intoA, intoB) = try exchange(a, b)
        // Same Lamport time: replica 2 wins the tie.
        for store in [a, b] { try store.read { tx throws in #expect(try tx.record(Folder.self, research).name == "Reading") } }
        #expect(intoA.overwritten.map(\.value) == ["\"Notes\""])
        #expect(intoB.overwritten.map(\.value) == ["\"Notes\""])
        #expect(try dump(a) == dump(b))
    }

    @Test("two offline \"Chapter 1\" folders are both kept and the clash is reported")
    func nameClash() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let laptop = try openStore(in: directory, "laptop"), phone = try openStore(in: directory, "phone")
        let project = try laptop.write { tx throws in try createProject(name: "Novel", type: .prose, created: .now, in: tx) }
        try phone.apply(laptop.changes())
        let draft = try laptop.read { tx throws in try #require(try folder(at: ["Your Prose", "Draft"], in: project, tx)) }
        let one = try laptop.write { tx throws in try tx.insert(Folder(name: "Chapter 1"), under: draft) }
        let other = try phone.write { tx throws in
            let chapter = try tx.insert(Folder(name: "Chapter 1"), under: draft)
            try createFile(named: "Scene", content: "phone's chapter", in: chapter, tx)
            return chapter
        }
        let (intoLaptop, intoPhone) = try exchange(laptop, phone)
        for report in [intoLaptop, intoPhone] {
            #expect(report.nameClashes.count == 1)
            #expect(report.nameClashes.first?.name == "Chapter 1")
            #expect(report.nameClashes.first?.parent == draft)
            #expect(Set(report.nameClashes.first?.records ?? []) == [one, other])
        }
        #expect(try dump(laptop) == dump(phone))
        for store in [laptop, phone] {
            try store.read { tx throws in
                #expect(try childNames(of: draft, tx) == ["Chapter 1", "Chapter 1"])
                #expect(Set(tx.children(of: draft)) == [one, other])
                #expect(tx.nameClashes(under: draft).map(\.name) == ["Chapter 1"])
                #expect(try tx.children(of: other, ofType: File.self).map(\.name) == ["Scene"])
            }
        }
        // The user renames one; the clash is gone everywhere after the next exchange.
        try phone.write { tx throws in try tx.update(other, as: Folder.self) { $0.name = "Chapter 1 (phone)" } }
        let (afterRename, _) = try exchange(laptop, phone)
        #expect(afterRename.nameClashes.isEmpty)
        try laptop.read { tx throws in #expect(tx.nameClashes(under: draft).isEmpty) }
    }

    @Test("observers see local writes with their change ID and merges as remote")
    func events() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let laptop = try openStore(in: directory, "laptop"), phone = try openStore(in: directory, "phone")
        let (project, file) = try laptop.write { tx throws in
            let project = try createProject(name: "Poems", type: .poetry, created: .now, in: tx)
            return (project, try createFile(named: "Ode", in: try #require(try folder(at: ["Your Poetry", "Draft"], in: project, tx)), tx))
        }
        try phone.apply(laptop.changes())
        var local = laptop.events(for: file.text(File.contentField)).makeAsyncIterator()
        var remote = phone.events().makeAsyncIterator()
        let changeID = try laptop.write { tx throws in
            try tx.insert("Hi", at: 0, in: file.text(File.contentField))
            return tx.changeID
        }
        let seen = try #require(await local.next())
        #expect(seen.origin == .local && seen.changes == [changeID])
        #expect(seen.texts == [file.text(File.contentField)] && seen.touches(file) && !seen.touches(project))
        try phone.apply(laptop.changes(since: phone.version))
        let merged = try #require(await remote.next())
        #expect(merged.origin == .remote && merged.changes == [changeID] && merged.touches(file))
    }

    @Test("closing a store ends its observers' sequences")
    func closeEndsEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try openStore(in: directory)
        var events = store.events().makeAsyncIterator()
        try store.close()
        #expect(await events.next() == nil)
    }

    @Test("a remote rename made after seeing the old name is not reported as a lost value")
    func causalRenameIsNotAConflict() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let laptop = try openStore(in: directory, "laptop"), phone = try openStore(in: directory, "phone")
        let project = try laptop.write { tx throws in try createProject(name: "Poems", type: .poetry, created: .now, in: tx) }
        try phone.apply(laptop.changes())
        // The phone has seen "Poems" and renames it: nothing concurrent, nothing lost.
        try phone.write { tx throws in try tx.update(project, as: Project.self) { $0.name = "Verse" } }
        let report = try laptop.apply(phone.changes(since: laptop.version))
        try laptop.read { tx throws in #expect(try tx.record(Project.self, project).name == "Verse") }
        #expect(report.overwritten.isEmpty, "\(report.overwritten)")
    }
}
