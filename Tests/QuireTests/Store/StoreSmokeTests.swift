import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

struct Note: Record {
    static let typeName = "note"
    static let siblingNameField: String? = "title"
    var title: String
    var done = false
    var details: String?

    func validate() throws { try RecordName.validate(title) }
}

@Suite("Store basics")
struct StoreSmokeTests {
    @Test("insert, update, read back after reopening")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        var id: RecordID
        do {
            let store = try Store(directory: directory.path)
            id = try store.write { tx in
                let id = try tx.insert(Note(title: "Hello"))
                try tx.insert("Hi there", at: 0, in: id.text("body"))
                return id
            }
            try store.write { tx in try tx.update(id, as: Note.self) { $0.done = true; $0.details = "x" } }
            try store.write { tx in try tx.update(id, as: Note.self) { $0.details = nil } }
            try store.close()
        }
        let store = try Store(directory: directory.path)
        try store.read { tx in
            let note = try tx.record(Note.self, id)
            #expect(note.title == "Hello" && note.done && note.details == nil)
            #expect(try tx.string(of: id.text("body")) == "Hi there")
        }
        #expect(try store.changes().count == 3)
    }

    @Test("two replicas merge")
    func merge() throws {
        let a = try TemporaryDirectory(), b = try TemporaryDirectory()
        let storeA = try Store(directory: a.path), storeB = try Store(directory: b.path)
        let id = try storeA.write { tx in
            let id = try tx.insert(Note(title: "Shared"))
            try tx.insert("abc", at: 0, in: id.text("body"))
            return id
        }
        let report = try storeB.apply(storeA.changes(since: storeB.version))
        #expect(report.applied.count == 1)
        try storeA.write { tx in try tx.update(id, as: Note.self) { $0.done = true } }
        try storeB.write { tx in
            try tx.update(id, as: Note.self) { $0.title = "Renamed" }
            try tx.insert("X", at: 1, in: id.text("body"))
        }
        try storeB.apply(storeA.changes(since: storeB.version))
        try storeA.apply(storeB.changes(since: storeA.version))
        for store in [storeA, storeB] {
            try store.read { tx in
                let note = try tx.record(Note.self, id)
                #expect(note.title == "Renamed" && note.done)
                #expect(try tx.string(of: id.text("body")) == "aXbc")
            }
        }
        #expect(storeA.version == storeB.version)
    }
}
