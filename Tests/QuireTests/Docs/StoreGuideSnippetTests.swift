import Foundation
import Quire
import QuireTestSupport
import Testing

/// Runs the blocks of docs/store.md (`StoreGuideSnippets.swift`) that can run, on real
/// stores in a temporary directory, and checks what they say. The observation blocks
/// (they iterate until the store closes) are compiled only.
@Suite("docs/store.md snippets")
struct StoreGuideSnippetTests {
    typealias Project = StoreGuide.Project
    typealias Folder = StoreGuide.Folder
    typealias File = StoreGuide.File
    typealias Note = StoreGuide.Note

    static func open(_ directory: TemporaryDirectory, _ name: String) throws -> Store {
        var options = Store.Options()
        options.durability = .noSync
        options.recordTypes = [Project.self, Folder.self, File.self, Note.self]
        return try Store(directory: directory.appending(name), options: options)
    }

    static func folder(_ name: String, under parent: RecordID, in store: Store) throws -> RecordID {
        try #require(try store.read { tx in
            try tx.children(of: parent, ofType: Folder.self).first { $0.name == name }?.id
        })
    }

    @Test("opening: the store directory is created and can be opened again after the block closed it")
    func openStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try StoreGuide.openStore(appSupport: directory.path)
        #expect(FileManager.default.fileExists(atPath: directory.appending("Writing.quire")))
        try Store(directory: directory.appending("Writing.quire")).close()
    }

    @Test("the writing app on one store: template, typing, declared texts, validation, autosave, undo, moves, queries")
    func writingApp() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Self.open(directory, "store")
        defer { try? store.close() }

        // Helper functions over a transaction.
        let ids = try store.write { tx in try ["Diary", "Letters"].map { try tx.insert(Note(title: $0)) } }
        #expect(try StoreGuide.helperFunctions(store: store, ids: ids, id: ids[0]) == ["Diary", "Letters"])
        #expect(try store.read { tx in try tx.record(Note.self, ids[0]).title } == "Rainy day")

        // 3. The template: a project and its 15 folders.
        let poems = try StoreGuide.createProjectFromTemplate(store: store)
        #expect(try store.read { tx in tx.subtree(of: poems).count } == 16)
        let work = try Self.folder("Your Poetry", under: poems, in: store)
        let draft = try Self.folder("Draft", under: work, in: store)
        let (ready, published) = (try Self.folder("Ready", under: work, in: store), try Self.folder("Published", under: work, in: store))

        // 4. Typing: "The sea." typed as one replacement, then 🌊 typed and erased.
        let typed = try StoreGuide.typeIntoFile(store: store, poems: poems, range: NSRange(location: 0, length: 0), replacement: "The sea.")
        #expect(typed.text == "The sea." && typed.words == 2 && typed.length == 8)
        let ode = typed.ode
        let content = ode.text(File.contentField)
        try StoreGuide.readHierarchy(store: store, poems: poems, someFile: ode, someFolder: draft)

        // Declared texts and validation refuse the write and change nothing.
        let before = store.version
        #expect { try StoreGuide.undeclaredText(store: store, ode: ode) } throws: { error in
            guard case .undeclaredText = error as? StoreError else { return false }
            return "\(error)".contains("\"contnet\" is not one of them")
        }
        try StoreGuide.refusedWrite(store: store)
        #expect(store.version == before)

        // Keystroke autosave.
        try StoreGuide.keystrokeAutosave(store: store, content: content)
        #expect(try store.read { tx in try tx.string(of: content) } == "HiThe sea.")

        // Versions of a text: read before a replace, the diff, and a restore.
        let versions = try StoreGuide.textVersions(store: store, content: content)
        #expect(versions.then == "HiThe sea.")
        #expect(versions.diff.edits.map(\.insertedText) == ["A"])
        #expect(try store.read { tx in try tx.string(of: content) } == "HiThe sea.")

        // Undo and redo.
        let chapter = try store.write { tx in try tx.insert(Folder(name: "Chapter 1"), under: draft) }
        try StoreGuide.undoAndRedo(store: store, content: content, chapter: chapter, ready: ready, published: published)
        #expect(try store.read { tx in try tx.string(of: content) } == "HiThe brave sea.")
        #expect(try store.read { tx in (try tx.record(Folder.self, chapter).name, tx.parent(of: chapter)) } == ("Final", published))
        try store.write { tx in _ = try tx.undo() }   // "one `undo()` takes back both"
        #expect(try store.read { tx in (try tx.record(Folder.self, chapter).name, tx.parent(of: chapter)) } == ("Chapter 1", draft))
        let hymn = try store.write { tx in try tx.insert(File(name: "Hymn"), under: draft) }
        #expect(try StoreGuide.sessionUndo(store: store, content: hymn.text(File.contentField)) == 1)

        // 5. Rename, move, reorder, delete, restore.
        let fileInChapter = try store.write { tx in try tx.insert(File(name: "Stanza"), under: chapter) }
        try store.write { tx in try tx.insert("Waves", at: 0, in: fileInChapter.text(File.contentField)) }
        let other = try Self.folder("Set Aside", under: work, in: store)
        try store.write { tx in try tx.delete(other) }
        try StoreGuide.renameMoveDeleteRestore(
            store: store, chapter: chapter, ready: ready, note: hymn, fileInChapter: fileInChapter, other: other)
        try store.read { tx throws in
            #expect(try tx.record(Folder.self, chapter).name == "Chapter One")
            #expect(tx.children(of: ready).prefix(2) == [other, chapter])
            #expect(tx.children(of: draft).first == hymn)
            #expect(try tx.string(of: fileInChapter.text(File.contentField)) == "Waves")
        }

        // 6. List, filter and sort.
        try StoreGuide.listFilterSort(store: store, draft: draft)
        try StoreGuide.allDecodableProjects(store: store)
        try store.read { tx in SchemaGuide.growingEnum(tx: tx) }
    }

    @Test("two replicas: changes, delta files, a sync folder, Codable versions, the merge report, overlaps, name clashes, joining")
    func twoReplicas() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let laptop = try Self.open(directory, "Laptop.quire"), phone = try Self.open(directory, "Phone.quire")
        defer { try? laptop.close(); try? phone.close() }

        try laptop.write { tx in _ = try tx.insert(Note(title: "First")) }
        try phone.importDelta(try #require(try laptop.exportDelta()))   // the phone joins the laptop's store
        let poems = try StoreGuide.createProjectFromTemplate(store: laptop)
        let merged = try StoreGuide.mergeTwoReplicas(laptop: laptop, phone: phone)
        #expect(!merged.intoPhone.applied.isEmpty && merged.intoLaptop.applied.isEmpty)
        #expect(laptop.version == phone.version)
        let draft = try Self.folder("Draft", under: try Self.folder("Your Poetry", under: poems, in: laptop), in: laptop)

        let ode = try laptop.write { tx in try tx.insert(File(name: "Ode"), under: draft) }
        let content = ode.text(File.contentField)
        try laptop.write { tx in try tx.insert("The sea is calm.", at: 0, in: content) }
        let delta = try StoreGuide.deltaFiles(
            laptop: laptop, phone: phone, phoneVersion: phone.version,
            url: URL(fileURLWithPath: directory.appending("laptop.delta")), dropbox: directory.path)
        #expect(delta.report.changedTexts == [content])
        #expect(try phone.read { tx in try tx.string(of: content) } == "The sea is calm.")

        try laptop.write { tx in try tx.update(ode, as: File.self) { $0.name = "Ode to the sea" } }
        let answer = try #require(try StoreGuide.codableVersion(laptop: laptop, phone: phone))
        try phone.importDelta(answer)
        #expect(try phone.read { tx in try tx.record(File.self, ode).name } == "Ode to the sea")

        try laptop.write { tx in _ = try tx.insert(Folder(name: "Drafts of drafts"), under: draft) }
        let report = try StoreGuide.mergeReport(phone: phone, forPhone: try laptop.changes(since: phone.version))
        #expect(report.applied.count == 1 && report.movedNodes.count == 1)

        // Both rewrite "calm" offline.
        try laptop.write { tx in try tx.replace(11..<15, with: "rough", in: content) }
        try phone.write { tx in try tx.replace(11..<15, with: "still", in: content) }
        let overlaps = try StoreGuide.overlappingEdits(laptop: laptop, fromPhone: try #require(try phone.exportDelta(since: laptop.version)))
        #expect(overlaps.overlappingEdits.map(\.text) == [content])

        // Both create "Chapter 1" in Draft offline.
        try laptop.write { tx in _ = try tx.insert(Folder(name: "Chapter 1"), under: draft) }
        let other = try phone.write { tx in try tx.insert(Folder(name: "Chapter 1"), under: draft) }
        let clashes = try StoreGuide.nameClashes(laptop: laptop, phone: phone, draft: draft, other: other)
        #expect(clashes.map(\.name) == ["Chapter 1"] && clashes.first?.records.count == 2)
        #expect(try laptop.read { tx in tx.nameClashes(under: draft) }.isEmpty)

        // A device that wrote before its first sync joins the laptop's lineage.
        let tablet = try Self.open(directory, "Tablet.quire")
        defer { try? tablet.close() }
        try tablet.write { tx in _ = try tx.insert(Note(title: "Written offline")) }
        try StoreGuide.joinLineage(phone: tablet, fromLaptop: try #require(try laptop.exportDelta()))
        #expect(tablet.storeID == laptop.storeID)
        #expect(Set(try tablet.read { tx in try tx.all(Note.self).map(\.value.title) }) == ["First", "Written offline"])
    }

    @Test("schema evolution: a missing priority decodes as 0, a renamed property keeps its stored name")
    func schemaEvolution() throws {
        let todo = try JSONDecoder().decode(Todo.self, from: Data(#"{"title":"Call Ada"}"#.utf8))
        #expect(todo.title == "Call Ada" && todo.priority == 0)
        let label = try JSONEncoder().encode(SchemaGuide.Label(title: "Urgent"))
        #expect(String(decoding: label, as: UTF8.self) == #"{"name":"Urgent"}"#)
        #expect(SchemaGuide.Note(title: "A").pinnedAt == nil)
    }
}
