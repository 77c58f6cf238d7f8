import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

/// The before/after examples of `docs/semantics.md`, run on two stores (replicas 1 and 2)
/// exchanging their changes both ways.
@Suite("docs/semantics.md examples")
struct SemanticsExamplesTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    /// Replica 1 creates a file holding `text`, both replicas share it, each makes its
    /// edit offline, then they exchange; returns both merged texts.
    private func concurrentText(
        _ text: String, _ one: (borrowing StoreWriter, TextID) throws -> Void, _ two: (borrowing StoreWriter, TextID) throws -> Void
    ) throws -> (String, String) {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let content = try replicas[0].write { tx in
            let file = try tx.insert(File(name: "Ode"))
            try tx.insert(text, at: 0, in: file.text("content"))
            return file.text("content")
        }
        try StoreSpec.send(replicas[0], to: replicas[1])
        try replicas[0].write { tx in try one(tx, content) }
        try replicas[1].write { tx in try two(tx, content) }
        try StoreSpec.sync(replicas[0], replicas[1])
        return (try replicas[0].read { tx in try tx.string(of: content) }, try replicas[1].read { tx in try tx.string(of: content) })
    }

    @Test("texts: concurrent inserts, runs, tombstones, double deletes, deleted ranges, undo")
    func texts() throws {
        let examples: [(String, (borrowing StoreWriter, TextID) throws -> Void, (borrowing StoreWriter, TextID) throws -> Void, String)] = [
            ("ab", { try $0.insert("X", at: 1, in: $1) }, { try $0.insert("Y", at: 1, in: $1) }, "aXYb"),
            ("I am .", { try $0.insert("happy", at: 5, in: $1) }, { try $0.insert("tired", at: 5, in: $1) }, "I am happytired."),
            ("abc", { try $0.delete(1..<2, in: $1) }, { try $0.insert("X", at: 2, in: $1) }, "aXc"),
            ("hello", { try $0.delete(2..<3, in: $1) }, { try $0.delete(2..<3, in: $1) }, "helo"),
            ("one two three", { try $0.delete(4..<8, in: $1) }, { try $0.insert("and ", at: 8, in: $1) }, "one and three"),
        ]
        for (before, one, two, after) in examples {
            let (a, b) = try concurrentText(before, one, two)
            #expect(a == after && b == after, "\(before): \(a) / \(b)")
        }
    }

    @Test("undo is new operations that merge with concurrent edits")
    func undo() throws {
        for (before, edit, concurrent, after) in [
            ("Hello world", { (tx: borrowing StoreWriter, text: TextID) in try tx.insert(" brave", at: 5, in: text) },
             { (tx: borrowing StoreWriter, text: TextID) in try tx.insert("!", at: 11, in: text) }, "Hello world!"),
            ("Hello brave world", { (tx: borrowing StoreWriter, text: TextID) in try tx.delete(6..<12, in: text) },
             { (tx: borrowing StoreWriter, text: TextID) in try tx.insert("new ", at: 12, in: text) }, "Hello brave new world"),
        ] {
            let replicas = try Replicas(2)
            defer { replicas.close() }
            let content = try replicas[0].write { tx in
                let file = try tx.insert(File(name: "Ode"))
                try tx.insert(before, at: 0, in: file.text("content"))
                return file.text("content")
            }
            try StoreSpec.send(replicas[0], to: replicas[1])
            try replicas[0].write { tx in try edit(tx, content) }
            try replicas[0].write { tx in try tx.undo(in: content) }
            try replicas[1].write { tx in try concurrent(tx, content) }
            try StoreSpec.sync(replicas[0], replicas[1])
            for index in 0..<2 {
                #expect(try replicas[index].read { tx in try tx.string(of: content) } == after)
            }
        }
    }

    @Test("hierarchy: move and rename, later move wins, cycle skipped, rescue from the trash, sibling order")
    func hierarchy() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b, ode, draft, ready, published) = try replicas[0].write { tx in
            let a = try tx.insert(Folder(name: "A")), b = try tx.insert(Folder(name: "B"))
            let draft = try tx.insert(Folder(name: "Draft")), ready = try tx.insert(Folder(name: "Ready"))
            let published = try tx.insert(Folder(name: "Published"))
            let ode = try tx.insert(File(name: "Ode"), under: draft)
            return (a, b, ode, draft, ready, published)
        }
        let elegy = try replicas[0].write { tx in try tx.insert(File(name: "Elegy"), under: draft) }
        try StoreSpec.sync(replicas[0], replicas[1])
        // Replica 1 moves A under B and deletes Draft; replica 2 moves B under A, renames Ode and moves it to Published.
        try replicas[0].write { tx in try tx.move(a, to: b) }
        try replicas[0].write { tx in try tx.move(ode, to: ready) }
        try replicas[1].write { tx in try tx.move(b, to: a) }
        try replicas[1].write { tx in try tx.move(ode, to: published) }
        try replicas[1].write { tx in try tx.update(ode, as: File.self) { $0.name = "Ode to Joy" } }
        try replicas[0].write { tx in try tx.delete(draft) }
        let report = try StoreSpec.send(replicas[1], to: replicas[0])
        try StoreSpec.send(replicas[0], to: replicas[1])
        #expect(report.skippedMoves == 1)
        for store in [replicas[0], replicas[1]] {
            let (parents, name, trash, elegyDeleted) = try store.read { tx in
                ([tx.parent(of: a), tx.parent(of: b), tx.parent(of: ode)], try tx.record(File.self, ode).name, tx.trash, tx.isDeleted(elegy))
            }
            #expect(parents == [b, nil, published])   // B/A: the later move skipped; the later move of Ode wins
            #expect(name == "Ode to Joy")             // a rename is independent of moves
            #expect(trash == [draft] && elegyDeleted) // Elegy in the trash with Draft
        }
        #expect(try StoreSpec.dump(replicas[0]) == StoreSpec.dump(replicas[1]))
    }

    @Test("fields: concurrent writes of one field report the loser; different fields both kept; an update is not a conflict")
    func fields() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let file = try replicas[0].write { tx in try tx.insert(File(name: "Ode", status: "draft")) }
        try StoreSpec.sync(replicas[0], replicas[1])
        try replicas[0].write { tx in try tx.update(file, as: File.self) { $0.status = "ready" } }
        try replicas[1].write { tx in try tx.update(file, as: File.self) { $0.name = "Ode to Joy" } }
        try StoreSpec.sync(replicas[0], replicas[1])
        #expect(try replicas[1].read { tx in try tx.record(File.self, file) } == File(name: "Ode to Joy", status: "ready"))

        try replicas[0].write { tx in try tx.update(file, as: File.self) { $0.name = "Reading" } }
        try replicas[1].write { tx in try tx.update(file, as: File.self) { $0.name = "Sources" } }
        let intoOne = try StoreSpec.send(replicas[1], to: replicas[0])
        #expect(intoOne.overwritten.map(\.value) == ["\"Reading\""])
        #expect(try replicas[0].read { tx in try tx.record(File.self, file).name } == "Sources")

        try StoreSpec.send(replicas[0], to: replicas[1])  // replica 2 learns that "Sources" won
        try replicas[0].write { tx in try tx.update(file, as: File.self) { $0.name = "Notes" } }
        let update = try StoreSpec.send(replicas[0], to: replicas[1])
        #expect(update.overwritten.isEmpty)
    }
}
