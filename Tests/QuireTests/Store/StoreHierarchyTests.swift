import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Store: hierarchy")
struct StoreHierarchyTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    @Test("insert under a parent at an index; children keep sibling order, also after reopening")
    func insertAtIndex() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (root, ids) = try store.write { tx throws in
            let root = try tx.insert(Folder(name: "Root"))
            let b = try tx.insert(Folder(name: "B"), under: root)
            let d = try tx.insert(File(name: "D"), under: root)
            let a = try tx.insert(Folder(name: "A"), under: root, at: 0)
            let c = try tx.insert(File(name: "C"), under: root, at: 2)
            return (root, ["A": a, "B": b, "C": c, "D": d])
        }
        #expect(throws: StoreError.self) { try store.write { tx in try tx.insert(Folder(name: "E"), under: root, at: 5) } }
        for reopening in [false, true] {
            let store = reopening ? try replicas.reopen(0) : replicas[0]
            try store.read { tx throws in
                #expect(tx.children(of: nil) == [root])
                #expect(tx.children(of: root) == ["A", "B", "C", "D"].map { ids[$0]! })
                #expect(try tx.children(of: root, ofType: Folder.self).map(\.name) == ["A", "B"])
                #expect(try tx.children(of: root, ofType: File.self).map(\.name) == ["C", "D"])
                #expect(tx.parent(of: ids["C"]!) == root && tx.parent(of: root) == nil)
            }
        }
    }

    @Test("positionKeyLengths gives one byte count per child, within the key limit, also after reopening")
    func positionKeyLengths() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let (root, leaf) = try replicas[0].write { tx throws in
            let root = try tx.insert(Folder(name: "Root"))
            var leaf = try tx.insert(File(name: "First"), under: root)
            for index in 1...5 { leaf = try tx.insert(File(name: "At one \(index)"), under: root, at: 1) }
            return (root, leaf)
        }
        for reopening in [false, true] {
            let store = reopening ? try replicas.reopen(0) : replicas[0]
            let lengths = try store.positionKeyLengths(ofChildrenOf: root)
            #expect(lengths.count == 6)
            #expect(lengths.allSatisfy { (1...PositionKey.maximumLength).contains($0) }, "\(lengths)")
            #expect(try store.positionKeyLengths(ofChildrenOf: nil).count == 1)  // the root folder
            #expect(try store.positionKeyLengths(ofChildrenOf: leaf) == [])
        }
    }

    @Test("past the old limits: 3,000 inserts at index 1, each in its own write, and 3,000 drags of the last clue to index 1; order kept across reopening")
    func oneSpotPastTheOldLimit() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (deck, first) = try store.write { tx throws in
            let deck = try tx.insert(Folder(name: "Deck"))
            return (deck, try tx.insert(File(name: "first"), under: deck))
        }
        var inserted: [RecordID] = []
        for index in 0..<3_000 {
            inserted.append(try store.write { tx in try tx.insert(File(name: "card \(index)"), under: deck, at: 1) })
        }
        let note = try store.write { tx throws in
            let note = try tx.insert(Folder(name: "Note"))
            for clue in 0..<3 { try tx.insert(File(name: "clue \(clue)"), under: note) }
            return note
        }
        for _ in 0..<3_000 {
            try store.write { tx in try tx.move(tx.children(of: note).last!, to: note, at: 1) }
        }
        let clues = try store.read { tx in tx.children(of: note) }
        for reopening in [false, true] {
            let store = reopening ? try replicas.reopen(0) : replicas[0]
            try store.read { tx in
                #expect(tx.children(of: deck) == [first] + inserted.reversed())
                #expect(tx.children(of: note) == clues)
            }
            #expect(try store.positionKeyLengths(ofChildrenOf: deck).max()! <= 16)
            #expect(try store.positionKeyLengths(ofChildrenOf: note).max()! <= 16)
        }
        #expect(try replicas[0].verify().isHealthy)
    }

    @Test("move and reorder change parent and sibling order; path and subtree follow")
    func moveAndReorder() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (project, drafts, ready, one, two, three) = try store.write { tx throws in
            let project = try tx.insert(Folder(name: "Project"))
            let drafts = try tx.insert(Folder(name: "Drafts"), under: project)
            let ready = try tx.insert(Folder(name: "Ready"), under: project)
            let one = try tx.insert(File(name: "One"), under: drafts)
            let two = try tx.insert(File(name: "Two"), under: drafts)
            let three = try tx.insert(File(name: "Three"), under: drafts)
            return (project, drafts, ready, one, two, three)
        }
        try store.write { tx in try tx.reorder(three, to: 0) }
        #expect(try store.read { tx in tx.children(of: drafts) } == [three, one, two])
        try store.write { tx in try tx.reorder(three, to: 2) }
        #expect(try store.read { tx in tx.children(of: drafts) } == [one, two, three])
        try store.write { tx in try tx.move(two, to: ready) }
        try store.write { tx in try tx.move(one, to: ready, at: 0) }
        try store.write { tx in try tx.move(drafts, to: ready, at: 1) }
        try store.write { tx in try tx.move(ready, to: nil) }

        for reopening in [false, true] {
            let store = reopening ? try replicas.reopen(0) : replicas[0]
            try store.read { tx in
                #expect(tx.children(of: nil) == [project, ready])
                #expect(tx.children(of: project) == [])
                #expect(tx.children(of: ready) == [one, drafts, two])
                #expect(tx.children(of: drafts) == [three])
                #expect(tx.parent(of: three) == drafts)
                #expect(tx.path(of: three) == [ready, drafts, three])
                #expect(tx.path(of: ready) == [ready])
                #expect(tx.subtree(of: ready) == [ready, one, drafts, three, two])
                #expect(tx.subtree(of: three) == [three])
            }
        }
    }

    @Test("delete moves a subtree to the trash, keeping fields and texts; restore brings it back")
    func deleteAndRestore() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (project, keep, drafts, file) = try store.write { tx throws in
            let project = try tx.insert(Folder(name: "Project"))
            let keep = try tx.insert(Folder(name: "Keep"), under: project)
            let drafts = try tx.insert(Folder(name: "Drafts"), under: project)
            let file = try tx.insert(File(name: "Ode", rating: 2), under: drafts)
            try tx.insert("Thou still unravish'd bride", at: 0, in: file.text("content"))
            return (project, keep, drafts, file)
        }
        try store.write { tx in try tx.delete(drafts) }

        for reopening in [false, true] {
            let store = reopening ? try replicas.reopen(0) : replicas[0]
            try store.read { tx throws in
                #expect(tx.isDeleted(drafts) && tx.isDeleted(file))
                #expect(!tx.isDeleted(project) && !tx.isDeleted(keep))
                #expect(tx.trash == [drafts])
                #expect(tx.children(of: project) == [keep])
                #expect(tx.children(of: drafts) == [file])
                #expect(tx.parent(of: drafts) == nil && tx.parent(of: file) == drafts)
                #expect(try tx.all(Folder.self).map(\.id) == [project, keep])
                #expect(try tx.all(File.self).isEmpty)
                #expect(try tx.all(Folder.self, includingDeleted: true).map(\.id) == [project, keep, drafts])
                #expect(try tx.all(File.self, includingDeleted: true).map(\.id) == [file])
                #expect(try tx.record(File.self, file) == File(name: "Ode", rating: 2))
                #expect(try tx.string(of: file.text("content")) == "Thou still unravish'd bride")
            }
        }
        try replicas[0].write { tx in try tx.restore(drafts, to: project, at: 0) }
        for reopening in [false, true] {
            let store = reopening ? try replicas.reopen(0) : replicas[0]
            try store.read { tx throws in
                #expect(tx.trash == [])
                #expect(!tx.isDeleted(drafts) && !tx.isDeleted(file))
                #expect(tx.children(of: project) == [drafts, keep])
                #expect(try tx.all(File.self).map(\.id) == [file])
                #expect(tx.path(of: file) == [project, drafts, file])
                #expect(try tx.string(of: file.text("content")) == "Thou still unravish'd bride")
            }
        }
    }

    @Test("moving a record into its own subtree throws StoreError.hierarchy and changes nothing")
    func cycleRefused() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (top, middle, bottom) = try store.write { tx throws in
            let top = try tx.insert(Folder(name: "Top"))
            let middle = try tx.insert(Folder(name: "Middle"), under: top)
            return (top, middle, try tx.insert(Folder(name: "Bottom"), under: middle))
        }
        let before = try StoreSpec.dump(store)
        for (node, target) in [(top, bottom), (top, middle), (middle, middle), (top, top)] {
            let error = #expect(throws: StoreError.self) { try store.write { tx in try tx.move(node, to: target) } }
            guard case .hierarchy(.cycle) = error else {
                Issue.record("expected a cycle error, got \(String(describing: error))")
                continue
            }
            #expect(error?.description.contains("its own subtree") == true)
        }
        // Also after other work in the same transaction: all of it is undone.
        #expect(throws: StoreError.self) {
            try store.write { tx in
                try tx.move(bottom, to: top, at: 0)
                _ = try tx.insert(Folder(name: "New"), under: bottom)
                try tx.move(top, to: bottom)
            }
        }
        #expect(try StoreSpec.dump(store) == before)
        #expect(try StoreSpec.dump(replicas.reopen(0)) == before)
    }

    @Test("a folder deleted on one replica while another creates and types into a file inside it: both converge, the file is in the trash with its text, restoring the folder brings it back")
    func concurrentDeleteAndEdit() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let (project, folder) = try a.write { tx throws in
            let project = try tx.insert(Folder(name: "Project"))
            return (project, try tx.insert(Folder(name: "Chapters"), under: project))
        }
        try StoreSpec.send(a, to: b)
        try a.write { tx in try tx.delete(folder) }
        let file = try b.write { tx throws in
            let file = try tx.insert(File(name: "Chapter 1"), under: folder)
            try tx.insert("It was a dark and stormy night", at: 0, in: file.text("content"))
            return file
        }
        try b.write { tx in try tx.insert(".", at: 30, in: file.text("content")) }
        try StoreSpec.sync(a, b)

        let merged = try StoreSpec.dump(a)
        #expect(try StoreSpec.dump(b) == merged, "\(merged)")
        for store in [a, b] {
            try store.read { tx throws in
                #expect(tx.trash == [folder])
                #expect(tx.isDeleted(file) && tx.parent(of: file) == folder)
                #expect(tx.children(of: folder) == [file])
                #expect(try tx.all(File.self).isEmpty)
                #expect(try tx.string(of: file.text("content")) == "It was a dark and stormy night.")
            }
        }

        try a.write { tx in try tx.restore(folder, to: project) }
        try StoreSpec.sync(a, b)
        #expect(try StoreSpec.dump(a) == StoreSpec.dump(b))
        for store in [a, b] {
            try store.read { tx throws in
                #expect(tx.trash == [])
                #expect(tx.path(of: file) == [project, folder, file])
                #expect(try tx.all(File.self).map(\.id) == [file])
                #expect(try tx.string(of: file.text("content")) == "It was a dark and stormy night.")
            }
        }
    }

    @Test("two replicas each create a sibling named \"Chapter 1\": both are kept and reported as a name clash")
    func nameClash() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let book = try a.write { tx in try tx.insert(Folder(name: "Book")) }
        try StoreSpec.send(a, to: b)
        let fromA = try a.write { tx in try tx.insert(Folder(name: "Chapter 1"), under: book) }
        let (fromB, other) = try b.write { tx throws in
            (try tx.insert(Folder(name: "Chapter 1"), under: book), try tx.insert(File(name: "Chapter 2"), under: book))
        }
        #expect(try a.read { tx in tx.nameClashes(under: book) }.isEmpty)

        let reportA = try StoreSpec.send(b, to: a)
        let reportB = try StoreSpec.send(a, to: b)
        let order = try a.read { tx in tx.children(of: book) }
        #expect(Set(order) == [fromA, fromB, other])
        #expect(try b.read { tx in tx.children(of: book) } == order)
        let clashing = order.filter { $0 != other }
        for (report, store) in [(reportA, a), (reportB, b)] {
            #expect(report.nameClashes.count == 1)
            let clash = try #require(report.nameClashes.first)
            #expect(clash.parent == book && clash.name == "Chapter 1" && clash.records == clashing)
            #expect(try store.read { tx in tx.nameClashes(under: book) } == report.nameClashes)
            #expect(try store.read { tx in tx.nameClashes(under: nil) }.isEmpty)
            #expect(try store.read { tx in try tx.record(Folder.self, fromA).name } == "Chapter 1")
            #expect(try store.read { tx in try tx.record(Folder.self, fromB).name } == "Chapter 1")
        }
        // Renaming one resolves the clash.
        try a.write { tx in try tx.update(fromA, as: Folder.self) { $0.name = "Chapter 1 (A)" } }
        let resolved = try StoreSpec.send(a, to: b)
        #expect(resolved.nameClashes.isEmpty)
        #expect(try b.read { tx in tx.nameClashes(under: book) }.isEmpty)
    }

    @Test("a store reopened with its record types reports clashes that a merge brings")
    func nameClashAfterReopen() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let book = try a.write { tx in try tx.insert(Folder(name: "Book")) }
        try StoreSpec.send(a, to: b)
        _ = try a.write { tx in try tx.insert(Folder(name: "Chapter 1"), under: book) }
        _ = try b.write { tx in try tx.insert(Folder(name: "Chapter 1"), under: book) }
        // B restarts: this process has not written a Folder since, so it declares its types.
        try b.close()
        var options = StoreSpec.options(replica: 2)
        options.recordTypes = [Folder.self, File.self]
        let reopened = try Store(directory: replicas.directories[1].path, options: options)
        defer { try? reopened.close() }
        let report = try StoreSpec.send(a, to: reopened)
        #expect(report.nameClashes.map(\.name) == ["Chapter 1"])
        #expect(try reopened.read { tx in tx.nameClashes(under: book) }.map(\.records.count) == [2])
    }
}
