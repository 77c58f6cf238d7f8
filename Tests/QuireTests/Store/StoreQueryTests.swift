import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Store: queries (filter, sort, where a deleted record was)")
struct StoreQueryTests {
    typealias Project = StoreSpec.Project
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    static let day = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("all(sortedBy:) filters, includes deleted records when asked, and keeps ID order for equal keys")
    func allFilteredAndSorted() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let names = ["Cello", "Alto", "Bass", "Drum", "Alto"]
        let ids = try store.write { tx throws in
            try names.enumerated().map { index, name in
                try tx.insert(Project(name: name, kind: index % 2 == 0 ? .poetry : .prose, created: Self.day + Double(10 - index)))
            }
        }
        try store.write { tx in try tx.delete(ids[3]) }
        try store.read { tx throws in
            #expect(try tx.all(Project.self, sortedBy: \.name) { $0.kind == .poetry }.map(\.name) == ["Alto", "Bass", "Cello"])
            #expect(try tx.all(Project.self, sortedBy: \.name, ascending: false) { $0.kind == .prose }.map(\.name) == ["Alto"])
            #expect(try tx.all(Project.self, includingDeleted: true, sortedBy: \.name) { $0.kind == .prose }.map(\.name) == ["Alto", "Drum"])
            #expect(try tx.all(Project.self, includingDeleted: true, sortedBy: \.created).map(\.id) == [ids[4], ids[3], ids[2], ids[1], ids[0]])
            // Equal keys: ID order, both ways.
            #expect(try tx.all(Project.self, sortedBy: \.name).filter { $0.name == "Alto" }.map(\.id) == [ids[1], ids[4]].sorted())
            #expect(try tx.all(Project.self, sortedBy: \.name, ascending: false).filter { $0.name == "Alto" }.map(\.id) == [ids[1], ids[4]].sorted())
            #expect(try tx.all(Project.self, sortedBy: \.name.localizedLowercase).count == 4)
        }
    }

    @Test("children can be filtered and sorted by any key; equal keys keep sibling order; the stored order is untouched")
    func childrenFilteredAndSorted() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (draft, files) = try store.write { tx throws in
            let draft = try tx.insert(Folder(name: "Draft"))
            var files: [RecordID] = []
            for (name, rating) in [("Ode", 3), ("Elegy", 1), ("Sonnet", 3), ("Haiku", 2)] {
                files.append(try tx.insert(File(name: name, rating: rating), under: draft))
            }
            try tx.insert(Folder(name: "Attic"), under: draft)
            return (draft, files)
        }
        try store.write { tx in try tx.update(files[1], as: File.self) { $0.status = "ready" } }
        try store.read { tx throws in
            #expect(try tx.children(of: draft, ofType: File.self, sortedBy: \.name).map(\.name) == ["Elegy", "Haiku", "Ode", "Sonnet"])
            #expect(try tx.children(of: draft, ofType: File.self, sortedBy: \.name, ascending: false).map(\.name) == ["Sonnet", "Ode", "Haiku", "Elegy"])
            #expect(try tx.children(of: draft, ofType: File.self) { $0.status == "draft" }.map(\.name) == ["Ode", "Sonnet", "Haiku"])
            #expect(try tx.children(of: draft, ofType: File.self, sortedBy: \.name) { $0.status == "draft" }.map(\.name) == ["Haiku", "Ode", "Sonnet"])
            // Equal ratings (Ode, Sonnet) keep sibling order, ascending and descending.
            #expect(try tx.children(of: draft, ofType: File.self, sortedBy: \.sortRating).map(\.name) == ["Elegy", "Haiku", "Ode", "Sonnet"])
            #expect(try tx.children(of: draft, ofType: File.self, sortedBy: \.sortRating, ascending: false).map(\.name) == ["Ode", "Sonnet", "Haiku", "Elegy"])
            #expect(try tx.children(of: draft, ofType: Folder.self, sortedBy: \.name).map(\.name) == ["Attic"])
            #expect(tx.children(of: draft).prefix(4) == files[...])
        }
    }

    @Test("deletedFrom names the parent and index a record was deleted from; restore() puts it back there")
    func restoreToWhereItWas() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (draft, files, top) = try store.write { tx throws in
            let draft = try tx.insert(Folder(name: "Draft"))
            let files = try ["A", "B", "C", "D"].map { try tx.insert(File(name: $0), under: draft) }
            let top = try tx.insert(Folder(name: "Top"))
            return (draft, files, top)
        }
        try store.write { tx in
            try tx.delete(files[2])
            try tx.delete(top)
        }
        try store.read { tx in
            #expect(tx.parent(of: files[2]) == nil)
            #expect(tx.deletedFrom(files[2]) == RecordPlace(parent: draft, index: 2))
            #expect(tx.deletedFrom(top) == RecordPlace(parent: nil, index: 1))
            #expect(tx.deletedFrom(files[1]) == nil)   // live
        }
        #expect(try replicas.reopen(0).read { tx in tx.deletedFrom(files[2]) } == RecordPlace(parent: draft, index: 2))
        let reopened = replicas[0]
        try reopened.write { tx in
            try tx.restore(files[2])
            try tx.restore(top)
        }
        try reopened.read { tx in
            #expect(tx.children(of: draft) == files)
            #expect(tx.children(of: nil) == [draft, top])
            #expect(tx.trash.isEmpty && tx.deletedFrom(files[2]) == nil)
        }
    }

    @Test("after siblings change, a restored record goes back between its old neighbours")
    func restoreBetweenOldNeighbours() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (draft, files) = try store.write { tx throws in
            let draft = try tx.insert(Folder(name: "Draft"))
            return (draft, try ["A", "B", "C", "D"].map { try tx.insert(File(name: $0), under: draft) })
        }
        try store.write { tx in try tx.delete(files[2]) }   // C, between B and D
        let (e, z) = try store.write { tx throws in
            try tx.delete(files[0])
            return (try tx.insert(File(name: "E"), under: draft, at: 0), try tx.insert(File(name: "Z"), under: draft))
        }
        try store.read { tx in
            // E, B, D, Z: C's old place, between B and D, is index 2.
            #expect(tx.deletedFrom(files[2]) == RecordPlace(parent: draft, index: 2))
        }
        try store.write { tx in try tx.restore(files[2]) }
        try store.read { tx in #expect(tx.children(of: draft) == [e, files[1], files[2], files[3], z]) }
    }

    @Test("deletedFrom holds on another replica after a merge, also when both replicas deleted the record concurrently")
    func deletedFromAfterMerge() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let (draft, files) = try a.write { tx throws in
            let draft = try tx.insert(Folder(name: "Draft"))
            return (draft, try ["A", "B", "C"].map { try tx.insert(File(name: $0), under: draft) })
        }
        try StoreSpec.sync(a, b)
        try a.write { tx in try tx.delete(files[1]) }
        try b.write { tx in try tx.delete(files[1]) }
        try b.write { tx in try tx.update(files[1], as: File.self) { $0.rating = 5 } }
        try StoreSpec.sync(a, b)
        for store in [a, b] {
            try store.read { tx in #expect(tx.deletedFrom(files[1]) == RecordPlace(parent: draft, index: 1)) }
        }
        try b.write { tx in try tx.restore(files[1]) }
        try StoreSpec.sync(a, b)
        #expect(try a.read { tx in tx.children(of: draft) } == files)
    }

    @Test("restore() refuses, saying what to do, a live record, one inside a deleted folder, and one whose old parent is deleted")
    func restoreRefusals() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (draft, inner, file, loose) = try store.write { tx throws in
            let draft = try tx.insert(Folder(name: "Draft"))
            let inner = try tx.insert(Folder(name: "Inner"), under: draft)
            let file = try tx.insert(File(name: "Ode"), under: inner)
            let loose = try tx.insert(File(name: "Loose"), under: draft)
            return (draft, inner, file, loose)
        }
        func refusal(_ id: RecordID) -> String? {
            do {
                try store.write { tx in try tx.restore(id) }
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(file)?.contains("not in the trash") == true)
        try store.write { tx in try tx.delete(inner) }
        #expect(refusal(file)?.contains("inside the deleted record \(inner)") == true)
        try store.write { tx in
            try tx.delete(loose)
            try tx.delete(draft)
        }
        #expect(refusal(loose)?.contains("deleted from \(draft), which is in the trash itself") == true)
        #expect(try store.read { tx in tx.trash } == [inner, loose, draft])
        try store.write { tx in try tx.restore(draft) }
        try store.write { tx in try tx.restore(loose) }
        try store.write { tx in try tx.restore(inner) }
        try store.read { tx in
            #expect(tx.children(of: draft) == [inner, loose])
            #expect(tx.children(of: inner) == [file] && tx.trash.isEmpty)
        }
    }
}

extension StoreSpec.File {
    /// The rating, unrated last: a computed key to sort by.
    var sortRating: Int { rating ?? .max }
}
