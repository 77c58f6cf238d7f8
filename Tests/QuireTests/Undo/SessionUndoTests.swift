import Foundation
import Quire
import QuireCore
import Testing

@Suite("Undo with a text editing session")
struct SessionUndoTests {
    @Test("an undo while a coalescing session holds typing commits the typing first and takes it back; nothing is dropped")
    func undoCommitsBufferedTyping() throws {
        let fixture = try UndoFixture()
        let store = fixture.store
        let body = try store.write { tx in
            let note = try tx.insert(UndoNote(name: "n"))
            try tx.insert("Hi", at: 0, in: note.text("body"))
            return note.text("body")
        }
        let session = TextEditingSession(store: store, text: body, coalescing: .standard)
        for (offset, character) in " there".enumerated() { try session.insert(String(character), at: 2 + offset) }
        try session.insert("!", at: 8)               // 7 buffered keystrokes
        #expect(try store.write { tx in tx.canUndo(in: body) })
        #expect(try store.write { tx in try tx.undo(in: body) })
        try session.flush()                          // threw "7 buffered edits were dropped" before
        #expect(try fixture.string(body) == "Hi")
        try store.write { tx in try tx.redo(in: body) }
        #expect(try fixture.string(body) == "Hi there!")
    }

    @Test("a store-level undo also commits a session's buffered typing first")
    func storeUndoCommitsBufferedTyping() throws {
        let fixture = try UndoFixture()
        let body = try fixture.store.write { tx in try tx.insert(UndoNote(name: "n")) }.text("body")
        let session = TextEditingSession(store: fixture.store, text: body, coalescing: .standard)
        try session.insert("typed", at: 0)
        try fixture.store.write { tx in _ = try? tx.undo() }   // even when the body swallows errors
        try session.flush()
        #expect(try fixture.string(body) == "")
        try fixture.redo()
        #expect(try fixture.string(body) == "typed")
    }

    @Test("the session's undo, redo and wordCount see its buffered typing")
    func sessionUndoRedoWordCount() throws {
        let fixture = try UndoFixture()
        let body = try fixture.store.write { tx in try tx.insert(UndoNote(name: "n")) }.text("body")
        let session = TextEditingSession(store: fixture.store, text: body, coalescing: .standard)
        try session.insert("one", at: 0)
        #expect(try session.wordCount == 1)
        try session.insert(" two", at: 3)
        #expect(try session.wordCount == 2)
        #expect(try session.undo())
        #expect(try session.string == "one")
        #expect(try session.undo())
        #expect(try session.string == "")
        #expect(try session.undo() == false)
        #expect(try session.redo())
        #expect(try session.wordCount == 1)
    }

    @Test("an invalid first buffered edit says that nothing before it was saved")
    func droppedMessage() throws {
        let fixture = try UndoFixture()
        let body = try fixture.store.write { tx in try tx.insert(UndoNote(name: "n")) }.text("body")
        let session = TextEditingSession(store: fixture.store, text: body, coalescing: .standard)
        try session.insert("x", at: 5)
        #expect {
            try session.flush()
        } throws: { error in
            guard case .editsDropped(let count, let saved, _) = error as? AutosaveError else { return false }
            return count == 1 && saved == 0 && !"\(error)".contains("before it were saved")
        }
    }
}
