import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

private struct Page: Record {
    static let typeName = "undo-page"
    var title: String
}

@Suite("Undo and redo of text edits")
struct StoreUndoTests {
    @Test("undo reverts the last transaction's edits, redo makes them again, a new edit clears redo")
    func undoRedo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Store(directory: directory.path)
        let page = try store.write { tx in try tx.insert(Page(title: "p")) }
        let body = page.text("body")
        try store.write { tx in try tx.insert("Hello", at: 0, in: body) }
        try store.write { tx in try tx.insert(" world", at: 5, in: body) }
        try store.write { tx in try tx.replace(0..<5, with: "Howdy", in: body) }
        func text() throws -> String { try store.read { tx in try tx.string(of: body) } }
        func undo() throws -> Bool { try store.write { tx in try tx.undo(in: body) } }
        func redo() throws -> Bool { try store.write { tx in try tx.redo(in: body) } }
        #expect(try text() == "Howdy world")
        #expect(try undo())
        #expect(try text() == "Hello world")
        #expect(try undo())
        #expect(try text() == "Hello")
        #expect(try redo())
        #expect(try text() == "Hello world")
        try store.write { tx in try tx.insert("!", at: 11, in: body) }
        #expect(try redo() == false)
        #expect(try undo())
        #expect(try text() == "Hello world")
        #expect(try undo())
        #expect(try undo())
        #expect(try text() == "")
        #expect(try undo() == false)
    }

    @Test("an undo is a new change that merges on another replica, keeping its concurrent edits")
    func undoMerges() throws {
        let a = try TemporaryDirectory(), b = try TemporaryDirectory()
        defer { a.remove(); b.remove() }
        let mine = try Store(directory: a.path), theirs = try Store(directory: b.path)
        let page = try mine.write { tx in try tx.insert(Page(title: "p")) }
        let body = page.text("body")
        try mine.write { tx in try tx.insert("shared text", at: 0, in: body) }
        try theirs.apply(mine.changes(since: theirs.version))
        try mine.write { tx in try tx.insert(" mine", at: 11, in: body) }
        try theirs.write { tx in try tx.insert("Their ", at: 0, in: body) }
        let changesBefore = try mine.changes().count
        try mine.write { tx in try tx.undo(in: body) }
        #expect(try mine.changes().count == changesBefore + 1)
        try theirs.apply(mine.changes(since: theirs.version))
        try mine.apply(theirs.changes(since: mine.version))
        for store in [mine, theirs] {
            let text = try store.read { tx in try tx.string(of: body) }
            #expect(text == "Their shared text")
        }
    }

    @Test("undo of a deletion restores the deleted text after a reopen of the text's storage")
    func undoDeletion() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Store(directory: directory.path)
        let page = try store.write { tx in try tx.insert(Page(title: "p")) }
        let body = page.text("body")
        try store.write { tx in try tx.insert("keep 🙂 this", at: 0, in: body) }
        try store.write { tx in try tx.delete(4..<6, in: body) }
        #expect(try store.read { tx in try tx.string(of: body) } == "keep this")
        try store.write { tx in try tx.undo(in: body) }
        #expect(try store.read { tx in try tx.string(of: body) } == "keep 🙂 this")
        try store.close()
        let reopened = try Store(directory: directory.path)
        #expect(try reopened.read { tx in try tx.string(of: body) } == "keep 🙂 this")
        let undone = try reopened.write { tx in try tx.undo(in: body) }
        #expect(undone == false)  // histories are per session
    }

    @Test("random edits, undos and redos on one replica always return to the matching earlier text")
    func randomUndoRedo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = Store.Options()
        options.durability = .noSync
        options.undoGrouping = .none  // every transaction its own step, as the model below
        let store = try Store(directory: directory.path, options: options)
        let page = try store.write { tx in try tx.insert(Page(title: "p")) }
        let body = page.text("body")
        var random = SplitMix64(seed: 7)
        var undoTexts: [String] = [""]  // the text before each undoable step, and now
        var redoTexts: [String] = []
        let alphabet = Array("ab c😀é\u{301}")
        for _ in 0..<400 {
            let current = try store.read { tx in try tx.string(of: body) }
            #expect(current == undoTexts.last)
            let length = current.unicodeScalars.count
            switch random.next() % 6 {
            case 0 where undoTexts.count > 1:
                #expect(try store.write { tx in try tx.undo(in: body) })
                redoTexts.append(undoTexts.removeLast())
            case 1 where !redoTexts.isEmpty:
                #expect(try store.write { tx in try tx.redo(in: body) })
                undoTexts.append(redoTexts.removeLast())
            case 2 where length > 0:
                let start = Int(random.next() % UInt64(length))
                let end = min(length, start + 1 + Int(random.next() % 4))
                try store.write { tx in try tx.delete(start..<end, in: body) }
                undoTexts.append(try store.read { tx in try tx.string(of: body) })
                redoTexts.removeAll()
            default:
                let position = Int(random.next() % UInt64(length + 1))
                let inserted = String((0..<1 + Int(random.next() % 3)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
                try store.write { tx in try tx.insert(inserted, at: position, in: body) }
                undoTexts.append(try store.read { tx in try tx.string(of: body) })
                redoTexts.removeAll()
            }
        }
    }
}
