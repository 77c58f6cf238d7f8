import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Store: validation and rollback")
struct StoreValidationTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    /// A record whose own validation throws a non-store error.
    struct Score: Record {
        static let typeName = "spec.score"
        struct Negative: Error, CustomStringConvertible {
            var description: String { "a score cannot be negative" }
        }
        var points: Int
        func validate() throws { if points < 0 { throw Negative() } }
    }

    /// A store with some history: records, a hierarchy, texts, a deletion.
    static func populated(_ store: Store) throws -> (folder: RecordID, file: RecordID) {
        try store.write { tx throws in
            let folder = try tx.insert(Folder(name: "Drafts"))
            let file = try tx.insert(File(name: "Ode"), under: folder)
            try tx.insert("Season of mists", at: 0, in: file.text("content"))
            let gone = try tx.insert(Folder(name: "Old"), under: folder)
            try tx.delete(gone)
            return (folder, file)
        }
    }

    static let badNames: [(name: String, reason: String)] = [
        ("", "cannot be empty"),
        ("  \n\t ", "cannot be empty"),
        ("Chapter\t1", "control characters"),
        ("Line\nbreak", "control characters"),
        ("nul\u{0}", "control characters"),
        (String(repeating: "é", count: 256), "at most 255 characters"),
        ("Line\u{2028}separator", "control characters"),
        ("Ode\u{202E}txt.exe", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("\u{2066}isolated\u{2069}", "U+2066 LEFT-TO-RIGHT ISOLATE"),
        ("mark\u{200F}", "U+200F RIGHT-TO-LEFT MARK"),
        ("Draft\u{200B}", "U+200B ZERO WIDTH SPACE"),
        ("\u{FEFF}Draft", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
        ("Dr\u{200D}aft", "U+200D ZERO WIDTH JOINER"),
        ("Dr\u{200C}aft", "U+200C ZERO WIDTH NON-JOINER"),
        ("word\u{2060}joiner", "U+2060 WORD JOINER"),
        ("\u{FE0F}alone", "U+FE0F VARIATION SELECTOR-16"),
        ("cafebabecafebabe@2", "the form of a record ID"),
        ("1@0", "the form of a record ID"),
        ("CAFE@12", "the form of a record ID"),
    ]

    @Test("an invalid name is refused with its reason, and nothing is written", arguments: badNames)
    func invalidNameRefused(name: String, reason: String) throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (folder, file) = try Self.populated(store)
        let before = try StoreSpec.dump(store)

        let attempts: [(String, (borrowing StoreWriter) throws -> Void)] = [
            ("insert", { tx in _ = try tx.insert(Folder(name: name), under: folder) }),
            ("update", { tx in try tx.update(file, as: File.self) { $0.name = name } }),
            ("replace", { tx in try tx.replace(folder, with: Folder(name: name)) }),
        ]
        for (what, attempt) in attempts {
            let error = #expect(throws: StoreError.self, "\(what)") { try store.write { tx in try attempt(tx) } }
            guard case .invalidName(let refused, _) = error else {
                Issue.record("\(what): expected invalidName, got \(String(describing: error))")
                continue
            }
            #expect(refused == name)
            #expect(error?.description.contains(reason) == true, "\(what): \(String(describing: error))")
            #expect(try StoreSpec.dump(store) == before, "\(what)")
        }
        #expect(try StoreSpec.dump(replicas.reopen(0)) == before)
    }

    @Test("names at the limits are accepted: 255 characters, inner spaces, emoji sequences, a Persian non-joiner, near-IDs")
    func validNamesAccepted() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let names = [
            String(repeating: "é", count: 255), " Chapter 1 ", "👩‍👩‍👧 family", "❤️ love", "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} flag",
            "👋🏽 hello", "می\u{200C}خواهم", "cafebabecafebabe at 2", "0@1", "cafe@", "@12", "x cafe@12",
        ]
        try store.write { tx in for name in names { _ = try tx.insert(Folder(name: name)) } }
        #expect(try store.read { tx in try tx.all(Folder.self).map(\.name) } == names)
    }

    @Test("a record's own validation error is wrapped as validationFailed with its message")
    func customValidation() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let id = try store.write { tx in try tx.insert(Score(points: 3)) }
        let before = try StoreSpec.dump(store)
        for attempt: (borrowing StoreWriter) throws -> Void in [
            { tx in _ = try tx.insert(Score(points: -1)) },
            { tx in try tx.update(id, as: Score.self) { $0.points = -5 } },
        ] {
            let error = #expect(throws: StoreError.self) { try store.write { tx in try attempt(tx) } }
            guard case .validationFailed(let type, let problem) = error else {
                Issue.record("expected validationFailed, got \(String(describing: error))")
                continue
            }
            #expect(type == Score.typeName && problem.contains("cannot be negative"))
            #expect(error?.description.contains("nothing was written") == true)
        }
        #expect(try StoreSpec.dump(store) == before)
        #expect(try store.read { tx in try tx.record(Score.self, id).points } == 3)
    }

    @Test("a failure late in a transaction rolls back its earlier inserts, updates, moves and text edits, in memory and on disk")
    func lateFailureRollsBackEverything() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let store = replicas[0]
        let (folder, file) = try Self.populated(store)
        let before = try StoreSpec.dump(store)

        let error = #expect(throws: StoreError.self) {
            try store.write { tx in
                let added = try tx.insert(Folder(name: "Added"), under: folder, at: 0)
                let addedFile = try tx.insert(File(name: "New"), under: added)
                try tx.insert("fresh text", at: 0, in: addedFile.text("content"))
                try tx.insert(" and mellow fruitfulness", at: 15, in: file.text("content"))
                try tx.delete(0..<7, in: file.text("content"))
                try tx.update(file, as: File.self) { $0.status = "ready"; $0.rating = 5 }
                try tx.move(file, to: added)
                try tx.delete(folder)
                try tx.restore(folder, to: nil)
                try tx.reorder(added, to: 0)
                // Reads inside the transaction see all of it …
                #expect(try tx.string(of: file.text("content")) == "of mists and mellow fruitfulness")
                // … and then a validation fails.
                _ = try tx.insert(Folder(name: "\u{7}bell"), under: added)
            }
        }
        guard case .invalidName = error else {
            Issue.record("expected invalidName, got \(String(describing: error))")
            return
        }
        #expect(try StoreSpec.dump(store) == before)
        #expect(try store.read { tx in try tx.string(of: file.text("content")) } == "Season of mists")
        #expect(try StoreSpec.dump(replicas.reopen(0)) == before)

        // The store carries on: the next write is the next change, and it merges elsewhere.
        let store2 = replicas[0]
        let next = try store2.write { tx throws in
            let next = try tx.insert(Folder(name: "Next"), under: folder)
            try tx.insert("!", at: 15, in: file.text("content"))
            return next
        }
        let changes = try store2.changes()
        #expect(changes.count == before.changes.count + 1)
        #expect(changes.last?.id.counter == before.changes.last?.endCounter)
        let other = replicas[1]
        let report = try StoreSpec.send(store2, to: other)
        #expect(report.pending.isEmpty && report.applied.count == changes.count)
        #expect(try StoreSpec.dump(other).records == StoreSpec.dump(store2).records)
        #expect(try other.read { tx in try tx.record(Folder.self, next).name } == "Next")
    }

    @Test("a failing text edit after successful ones in the same transaction leaves the text as it was")
    func textEditRollback() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (_, file) = try Self.populated(store)
        let text = file.text("content")
        let before = try StoreSpec.dump(store)
        #expect(throws: StoreError.self) {
            try store.write { tx in
                try tx.insert("To autumn. ", at: 0, in: text)
                try tx.insert("Other", at: 0, in: file.text("body"))
                try tx.delete(0..<500, in: text)  // out of range
            }
        }
        #expect(try StoreSpec.dump(store) == before)
        // The in-memory text is usable and consistent with the disk.
        try store.write { tx in try tx.insert("!", at: 15, in: text) }
        #expect(try store.read { tx in try tx.string(of: text) } == "Season of mists!")
        #expect(try replicas.reopen(0).read { tx in try tx.string(of: text) } == "Season of mists!")
    }
}
