import Foundation
import Quire
import QuireCore
import Testing

@Suite("Undo of field writes and moves")
struct FieldAndMoveUndoTests {
    @Test("a rename is undone by writing the previous name as a new change, and redone; a concurrent edit of another field survives")
    func renameUndo() throws {
        let mine = try UndoFixture(replica: 1), theirs = try UndoFixture(replica: 2)
        let note = try mine.store.write { tx in try tx.insert(UndoNote(name: "Chapter 1")) }
        try theirs.store.apply(mine.store.changes(since: theirs.store.version))
        try mine.store.write { tx in try tx.update(note, as: UndoNote.self) { $0.name = "Chapter One" } }
        try theirs.store.write { tx in try tx.update(note, as: UndoNote.self) { $0.tag = "draft" } }
        let changesBefore = try mine.store.changes().count
        #expect(try mine.store.write { tx in tx.canUndo })
        try mine.undo()
        #expect(try mine.store.changes().count == changesBefore + 1)
        try theirs.store.apply(mine.store.changes(since: theirs.store.version))
        try mine.store.apply(theirs.store.changes(since: mine.store.version))
        for fixture in [mine, theirs] {
            #expect(try fixture.store.read { tx in try tx.record(UndoNote.self, note) } == UndoNote(name: "Chapter 1", tag: "draft"))
        }
        try mine.redo()
        #expect(try mine.store.read { tx in try tx.record(UndoNote.self, note).name } == "Chapter One")
    }

    @Test("undo leaves a field another replica wrote since: its later value is kept")
    func undoKeepsLaterRemoteValue() throws {
        let mine = try UndoFixture(replica: 1), theirs = try UndoFixture(replica: 2)
        let note = try mine.store.write { tx in try tx.insert(UndoNote(name: "a")) }
        try mine.store.write { tx in try tx.update(note, as: UndoNote.self) { $0.name = "b" } }
        try theirs.store.apply(mine.store.changes(since: theirs.store.version))
        try theirs.store.write { tx in try tx.update(note, as: UndoNote.self) { $0.name = "c" } }
        try mine.store.apply(theirs.store.changes(since: mine.store.version))
        #expect(try mine.undo())
        #expect(try mine.store.read { tx in try tx.record(UndoNote.self, note).name } == "c")
    }

    @Test("a drag is undone by moving back under the previous parent at the previous index, and redone")
    func moveUndo() throws {
        let fixture = try UndoFixture()
        let store = fixture.store
        let (drafts, ready, notes) = try store.write { tx in
            let drafts = try tx.insert(UndoNote(name: "Drafts")), ready = try tx.insert(UndoNote(name: "Ready"))
            let notes = try (0..<3).map { try tx.insert(UndoNote(name: "n\($0)"), under: drafts) }
            return (drafts, ready, notes)
        }
        try store.write { tx in try tx.move(notes[1], to: ready) }
        try store.write { tx in try tx.insert(UndoNote(name: "new"), under: drafts, at: 0) }  // another step
        let added = try store.read { tx in tx.children(of: drafts)[0] }
        try fixture.undo()                           // the insert: to the trash
        try store.read { tx in
            #expect(tx.isDeleted(added) == true)
            #expect(tx.children(of: drafts) == [notes[0], notes[2]])
        }
        try fixture.undo()                           // the drag
        #expect(try store.read { tx in tx.children(of: drafts) } == notes)
        #expect(try store.read { tx in tx.children(of: ready) } == [])
        try fixture.redo()
        #expect(try store.read { tx in tx.children(of: ready) } == [notes[1]])
        try fixture.redo()
        #expect(try store.read { tx in tx.children(of: drafts) } == [added, notes[0], notes[2]])
    }

    @Test("undo of a delete restores the record where it was; undo of a move another replica moved again since keeps theirs")
    func deleteAndConcurrentMove() throws {
        let mine = try UndoFixture(replica: 1), theirs = try UndoFixture(replica: 2)
        let (a, b, note) = try mine.store.write { tx in
            let a = try tx.insert(UndoNote(name: "A")), b = try tx.insert(UndoNote(name: "B"))
            return (a, b, try tx.insert(UndoNote(name: "n"), under: a))
        }
        try mine.store.write { tx in try tx.delete(note) }
        try mine.undo()
        #expect(try mine.store.read { tx in tx.isDeleted(note) } == false)
        #expect(try mine.store.read { tx in tx.parent(of: note) } == a)
        try mine.store.write { tx in try tx.move(note, to: b) }
        try theirs.store.apply(mine.store.changes(since: theirs.store.version))
        try theirs.store.write { tx in try tx.move(note, to: nil) }
        try mine.store.apply(theirs.store.changes(since: mine.store.version))
        try mine.undo()
        #expect(try mine.store.read { tx in tx.parent(of: note) } == nil)
    }

    @Test("undo(in:) takes back only a step's text edits; undo() takes back the rest of it")
    func perTextAndStoreUndo() throws {
        let fixture = try UndoFixture()
        let store = fixture.store
        let note = try store.write { tx in try tx.insert(UndoNote(name: "n")) }
        let body = note.text("body")
        try store.write { tx in
            try tx.insert("text", at: 0, in: body)
            try tx.update(note, as: UndoNote.self) { $0.name = "renamed" }
        }
        #expect(try store.write { tx in tx.canUndo(in: body) })
        try fixture.undo(in: body)
        #expect(try fixture.string(body) == "")
        #expect(try store.write { tx in tx.canUndo(in: body) } == false)
        #expect(try store.read { tx in try tx.record(UndoNote.self, note).name } == "renamed")
        try fixture.undo()                           // the rest of the step: the rename
        #expect(try store.read { tx in try tx.record(UndoNote.self, note).name } == "n")
        #expect(try fixture.string(body) == "")
        try fixture.redo(in: body)                   // redo(in:) finds the text's step under the rename's
        #expect(try fixture.string(body) == "text")
        #expect(try store.read { tx in try tx.record(UndoNote.self, note).name } == "n")
    }
}
