import Foundation
import Quire
import QuireApps
import QuireCore
import QuireTestSupport
import Testing

@Suite("Store: declared texts")
struct StoreDeclaredTextsTests {
    /// A type that declares its one text.
    struct Memo: Record {
        static let typeName = "spec.memo"
        static let texts: Set<String>? = ["body"]
        var title: String
    }

    /// A newer version of `Memo` with a second text.
    struct MemoV2: Record {
        static let typeName = "spec.memo"
        static let texts: Set<String>? = ["body", "notes"]
        var title: String
    }

    /// A type that owns no texts.
    struct Tag: Record {
        static let typeName = "spec.tag"
        static let texts: Set<String>? = []
        var name: String
    }

    /// A type that does not declare its texts: any name, as before.
    struct Scrap: Record {
        static let typeName = "spec.scrap"
        var title: String
    }

    static func undeclared(_ body: () throws -> Void) -> StoreError? {
        do {
            try body()
            return nil
        } catch let error as StoreError {
            if case .undeclaredText = error { return error }
            return nil
        } catch {
            return nil
        }
    }

    @Test("a misspelt text name of a type that declares its texts is refused in edits and reads, naming the declared ones; nothing is written")
    func misspeltNameRefused() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (memo, tag) = try store.write { tx throws in
            let memo = try tx.insert(Memo(title: "Groceries"))
            try tx.insert("eggs", at: 0, in: memo.text("body"))
            return (memo, try tx.insert(Tag(name: "home")))
        }
        let before = store.version
        let edit = Self.undeclared { try store.write { tx in try tx.insert("milk", at: 0, in: memo.text("bdoy")) } }
        #expect(edit == .undeclaredText(memo.text("bdoy"), type: Memo.typeName, declared: ["body"]))
        #expect(edit.map(String.init(describing:))?.contains(#"whose texts are "body"; "bdoy" is not one of them"#) == true)
        let refused2169 = Self.undeclared { try store.write { tx in try tx.replace(0..<0, with: "x", in: memo.text("Body")) } }
        #expect(refused2169 != nil)
        let refused2295 = Self.undeclared { try store.write { tx in try tx.setString("x", in: tag.text("name")) } }
        #expect(refused2295 != nil)
        let refused2409 = Self.undeclared { _ = try store.read { tx in try tx.string(of: memo.text("bdoy")) } }
        #expect(refused2409 != nil)
        let refused2519 = Self.undeclared { _ = try store.read { tx in try tx.length(of: memo.text("bdoy")) } }
        #expect(refused2519 != nil)
        let refused2629 = Self.undeclared { _ = try store.read { tx in try tx.wordCount(of: memo.text("bdoy")) } }
        #expect(refused2629 != nil)
        let refused2742 = Self.undeclared { _ = try store.read { tx in try tx.string(of: memo.text("bdoy"), in: 0..<0) } }
        #expect(refused2742 != nil)
        #expect(store.version == before)
        try store.read { tx throws in #expect(try tx.string(of: memo.text("body")) == "eggs") }
    }

    @Test("a type that does not declare its texts accepts any name, as before")
    func undeclaringTypeAcceptsAny() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        try store.write { tx in
            let scrap = try tx.insert(Scrap(title: "Odds"))
            try tx.insert("a", at: 0, in: scrap.text("anything"))
            try tx.insert("b", at: 0, in: scrap.text("bdoy"))
        }
    }

    @Test("the reference apps' types declare their texts: a file's content, a note's answer, a clue's text, and nothing else")
    func referenceAppsDeclare() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (file, note, clue, folder) = try store.write { tx throws in
            let folder = try tx.insert(QuireApps.Folder(name: "Draft"))
            let file = try tx.insert(QuireApps.File(name: "Ode"), under: folder)
            let category = try tx.insert(QuireApps.Category(title: "Capitals"))
            let note = try tx.insert(CardNote(title: nil), under: category)
            let clue = try tx.insert(Clue(created: Date(timeIntervalSince1970: 0)), under: note)
            try tx.insert("The sea", at: 0, in: file.text(QuireApps.File.contentField))
            try tx.insert("Paris", at: 0, in: note.text(CardNote.answerField))
            try tx.insert("City of light", at: 0, in: clue.text(Clue.textField))
            return (file, note, clue, folder)
        }
        #expect(QuireApps.File.texts == ["content"] && CardNote.texts == ["answer"] && Clue.texts == ["text"])
        #expect(QuireApps.Project.texts == [] && QuireApps.Folder.texts == [] && QuireApps.Category.texts == [])
        for text in [file.text("body"), note.text("text"), clue.text("answer"), folder.text("content")] {
            let refused4859 = Self.undeclared { try store.write { tx in try tx.insert("x", at: 0, in: text) } }
            #expect(refused4859 != nil, "\(text)")
        }
    }

    @Test("after reopening, the types passed in recordTypes are checked before any use; texts a newer version declares merge into an older one")
    func reopenedAndMerged() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (old, new) = (replicas[0], replicas[1])
        let memo = try old.write { tx in try tx.insert(Memo(title: "Plan")) }
        try StoreSpec.sync(old, new)
        try new.write { tx in
            _ = try tx.record(MemoV2.self, memo)
            try tx.insert("call Ada", at: 0, in: memo.text("notes"))   // declared by version 2
        }
        let refused5606 = Self.undeclared { try old.write { tx in try tx.insert("x", at: 0, in: memo.text("notes")) } }
        #expect(refused5606 != nil)
        try StoreSpec.send(new, to: old)   // merges are never refused

        try old.close()
        var options = StoreSpec.options(replica: 1)
        options.recordTypes = [Memo.self]
        let reopened = try Store(directory: replicas.directories[0].path, options: options)
        defer { try? reopened.close() }
        let refused6046 = Self.undeclared { _ = try reopened.read { tx in try tx.string(of: memo.text("notes")) } }
        #expect(refused6046 != nil)
        try reopened.register([MemoV2.self])   // both versions in one process: either's names
        #expect(try reopened.read { tx throws in try tx.string(of: memo.text("notes")) } == "call Ada")
        let refused6352 = Self.undeclared { _ = try reopened.read { tx in try tx.string(of: memo.text("bdoy")) } }
        #expect(refused6352 != nil)
    }
}
