import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Undo grouping: typing into words and pauses, explicit groups")
struct UndoGroupingTests {
    @Test("durable keystrokes within the window are one undo step per word: undo takes back ' world', then 'hello'")
    func typingGroupsIntoWords() throws {
        let fixture = try UndoFixture()
        let page = try fixture.store.write { tx in try tx.insert(UndoNote(name: "p")) }
        let body = page.text("body")
        let session = TextEditingSession(store: fixture.store, text: body)
        for (offset, character) in "hello world".enumerated() { try session.insert(String(character), at: offset) }
        try fixture.undo(in: body)
        #expect(try fixture.string(body) == "hello")
        try fixture.undo(in: body)
        #expect(try fixture.string(body) == "")
        #expect(try fixture.undo(in: body) == false)
        try fixture.redo(in: body)
        #expect(try fixture.string(body) == "hello")
        try fixture.redo(in: body)
        #expect(try fixture.string(body) == "hello world")
    }

    @Test("a tab, a newline and non-ASCII spaces end a word as a space does; other characters do not",
          arguments: ["\t", "\n", "\u{0B}", "\u{A0}", "\u{3000}", "x", "é", "\u{200B}"])
    func wordSeparators(separator: String) throws {
        let fixture = try UndoFixture()
        let page = try fixture.store.write { tx in try tx.insert(UndoNote(name: "p")) }
        let body = page.text("body")
        let session = TextEditingSession(store: fixture.store, text: body)
        for (offset, scalar) in ("ab" + separator + "cd").unicodeScalars.enumerated() {
            try session.insert(String(scalar), at: offset)
        }
        try fixture.undo(in: body)
        // U+200B (zero width space) is not White_Space in Unicode.
        let separates = separator.unicodeScalars.first!.properties.isWhitespace
        #expect(try fixture.string(body) == (separates ? "ab" : ""), "separator \(separator.debugDescription)")
    }

    @Test("backspaces in a row are one step; a switch between typing and erasing starts a new one")
    func erasingGroups() throws {
        let fixture = try UndoFixture()
        let page = try fixture.store.write { tx in try tx.insert(UndoNote(name: "p")) }
        let body = page.text("body")
        let session = TextEditingSession(store: fixture.store, text: body)
        for (offset, character) in "abcdef".enumerated() { try session.insert(String(character), at: offset) }
        for end in stride(from: 6, to: 3, by: -1) { try session.delete(end - 1..<end) }   // three backspaces
        #expect(try fixture.string(body) == "abc")
        try fixture.undo()
        let afterUndo = try fixture.string(body)
        #expect(afterUndo == "abcdef")
        try fixture.undo()
        #expect(try fixture.string(body) == "")
    }

    @Test("a pause longer than the window, or a cursor jump, starts a new step (injected clock, no sleeps)")
    func pausesAndJumpsBreakSteps() throws {
        let clock = ManualClock()
        let fixture = try UndoFixture(clock: clock)
        let page = try fixture.store.write { tx in try tx.insert(UndoNote(name: "p")) }
        let body = page.text("body")
        let session = TextEditingSession(store: fixture.store, text: body)
        try session.insert("a", at: 0)
        clock.advance(by: .milliseconds(900))
        try session.insert("b", at: 1)               // within 1 s of "a": same step
        clock.advance(by: .milliseconds(1_100))
        try session.insert("c", at: 2)               // after a pause: a new step
        try session.insert("d", at: 3)
        try session.insert("X", at: 0)               // the cursor jumped: a new step
        try session.insert("Y", at: 1)
        try fixture.undo(in: body)
        #expect(try fixture.string(body) == "abcd")
        try fixture.undo(in: body)
        #expect(try fixture.string(body) == "ab")
        try fixture.undo(in: body)
        #expect(try fixture.string(body) == "")
    }

    @Test("UndoGrouping.none makes every transaction its own step")
    func noGrouping() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = Store.Options()
        options.undoGrouping = .none
        let store = try Store(directory: directory.path, options: options)
        let body = try store.write { tx in try tx.insert(UndoNote(name: "p")) }.text("body")
        try store.write { tx in try tx.insert("a", at: 0, in: body) }
        try store.write { tx in try tx.insert("b", at: 1, in: body) }
        _ = try store.write { tx in try tx.undo(in: body) }
        #expect(try store.read { tx in try tx.string(of: body) } == "a")
    }

    @Test("beginUndoGroup/endUndoGroup make several transactions on several records one step, nested groups included")
    func explicitGroups() throws {
        let fixture = try UndoFixture()
        let store = fixture.store
        let (folder, note) = try store.write { tx in
            let folder = try tx.insert(UndoNote(name: "folder"))
            return (folder, try tx.insert(UndoNote(name: "note")))
        }
        let body = note.text("body")
        try store.write { tx in try tx.insert("draft", at: 0, in: body) }
        try store.beginUndoGroup()
        try store.write { tx in try tx.update(note, as: UndoNote.self) { $0.name = "final" } }
        try store.beginUndoGroup()
        try store.write { tx in try tx.move(note, to: folder) }
        #expect(try store.endUndoGroup())
        try store.write { tx in try tx.insert("!", at: 5, in: body) }
        #expect(try store.endUndoGroup())
        #expect(try store.endUndoGroup() == false)
        func state() throws -> (name: String, parent: RecordID?, text: String) {
            try store.read { tx in (try tx.record(UndoNote.self, note).name, tx.parent(of: note), try tx.string(of: body)) }
        }
        try fixture.undo()
        #expect(try state().name == "note")
        #expect(try state().parent == nil)
        #expect(try state().text == "draft")
        try fixture.redo()
        #expect(try state().name == "final")
        #expect(try state().parent == folder)
        #expect(try state().text == "draft!")
    }

    @Test("typing erased within one coalesced step does not come back on undo")
    func typedThenErasedInOneStep() throws {
        let fixture = try UndoFixture()
        let body = try fixture.store.write { tx in try tx.insert(UndoNote(name: "p")) }.text("body")
        let session = TextEditingSession(store: fixture.store, text: body, coalescing: .standard)
        try session.insert("abc", at: 0)
        try session.delete(2..<3)                    // a typo, backspaced in the same burst
        try session.flush()
        #expect(try fixture.string(body) == "ab")
        try fixture.undo(in: body)
        #expect(try fixture.string(body) == "")
        try fixture.redo(in: body)
        #expect(try fixture.string(body) == "ab")
    }
}
