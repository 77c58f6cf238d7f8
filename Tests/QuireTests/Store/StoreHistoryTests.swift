import Foundation
import Quire
import QuireTestSupport
import Testing

/// The history of a text and of a record, read from the change log.
@Suite("Store: history of a text and of a record")
struct StoreHistoryTests {
    typealias File = StoreSpec.File
    typealias Folder = StoreSpec.Folder

    /// What one write did to the text, as the test made it.
    struct Made: Equatable, CustomStringConvertible {
        var change: ChangeID
        var inserted: Int
        var deleted: Int

        var description: String { "\(change) +\(inserted) −\(deleted)" }
    }

    /// One write to `text` on `store`: an insert, a backspace or a replace (with a
    /// non-ASCII scalar), chosen by `choice`; returns what it made.
    private static func edit(_ text: TextID, on store: Store, choice: Int) throws -> Made {
        let change = ChangeID(replica: store.replica, counter: store.version[store.replica])
        return try store.write { tx -> Made in
            let length = try tx.length(of: text)
            switch choice % 10 {
            case 0..<6:
                try tx.insert(String(UnicodeScalar(UInt8(97 + choice % 26))), at: length, in: text)
                return Made(change: change, inserted: 1, deleted: 0)
            case 6..<8 where length > 0:
                try tx.delete(length - 1..<length, in: text)
                return Made(change: change, inserted: 0, deleted: 1)
            case 8 where length > 3:
                try tx.replace(1..<3, with: "é\u{1F600}!", in: text)
                return Made(change: change, inserted: 3, deleted: 2)
            default:
                try tx.insert("··", at: length / 2, in: text)
                return Made(change: change, inserted: 2, deleted: 0)
            }
        }
    }

    private static func made(_ history: [TextHistoryEntry]) -> [Made] {
        history.map { Made(change: $0.change, inserted: $0.inserted, deleted: $0.deleted) }
    }

    /// Checks that `history` is causal: each replica's changes in counter order, Lamport
    /// times never falling.
    private static func expectCausal(_ history: [TextHistoryEntry], _ comment: Comment) {
        var last: [ReplicaID: UInt64] = [:]
        var lamport: UInt64 = 0
        for entry in history {
            #expect(last[entry.replica].map { $0 < entry.change.counter } ?? true, comment)
            #expect(entry.lamport >= lamport, comment)
            #expect(entry.replica == entry.change.replica)
            last[entry.replica] = entry.change.counter
            lamport = entry.lamport
        }
    }

    @Test("three replicas edit one text and merge: every store lists every change once, in causal order, with its counts")
    func severalReplicas() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let file = try replicas[0].write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        for store in replicas.stores.dropFirst() { try StoreSpec.send(replicas[0], to: store) }
        var made: [Made] = []
        var random: UInt64 = 11
        for step in 0..<240 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let index = Int((random >> 33) % 3)
            made.append(try Self.edit(text, on: replicas[index], choice: Int((random >> 40) % 1000)))
            if step % 17 == 16 { try StoreSpec.sync(replicas[index], replicas[(index + 1) % 3]) }
        }
        for _ in 0..<2 {
            try StoreSpec.sync(replicas[0], replicas[1])
            try StoreSpec.sync(replicas[1], replicas[2])
        }
        let histories = try replicas.stores.map { store in try store.read { tx in try tx.history(of: text) } }
        #expect(Set(replicas.stores.map(\.version)).count == 1)
        #expect(Set(histories.map { Set(Self.made($0).map(\.description)) }).count == 1, "every store lists the same changes")
        #expect(Self.made(histories[0]).sorted { $0.change < $1.change } == made.sorted { $0.change < $1.change })
        #expect(Set(histories[0].map(\.replica)).count == 3)
        for (index, history) in histories.enumerated() { Self.expectCausal(history, "store \(index)") }
        let length = try replicas[0].read { tx in try tx.length(of: text) }
        // Two replicas backspacing one character concurrently both count it; it goes once.
        #expect(histories[0].reduce(0) { $0 + $1.inserted - $1.deleted } <= length)
        #expect(histories[0].reduce(0) { $0 + $1.inserted } == made.reduce(0) { $0 + $1.inserted })
        // Another text's history is its own; a text never written has none.
        try replicas[0].write { tx in try tx.insert("x", at: 0, in: file.text("body")) }
        #expect(try replicas[0].read { tx in try tx.history(of: file.text("body")) }.map(\.inserted) == [1])
        #expect(try replicas[0].read { tx in try tx.history(of: file.text("notes")) }.isEmpty)
    }

    @Test("1,500 keystroke changes the log folds into runs list one entry each, the same after reopening and after a merge")
    func runs() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let text = try replicas[0].write { tx in try tx.insert(File(name: "Chapter")) }.text("content")
        var made: [Made] = []
        for step in 0..<1_500 { made.append(try Self.edit(text, on: replicas[0], choice: step * 7 % 10)) }
        let statistics = try replicas[0].statistics()
        #expect(statistics.changeLogEntries * 2 < statistics.changeCount, "the keystrokes were folded into runs")
        #expect(Self.made(try replicas[0].read { tx in try tx.history(of: text) }) == made)
        #expect(Self.made(try replicas.reopen(0).read { tx in try tx.history(of: text) }) == made)
        try StoreSpec.send(replicas[0], to: replicas[1])  // imported as runs
        #expect(Self.made(try replicas[1].read { tx in try tx.history(of: text) }) == made)
        let lamports = try replicas[1].read { tx in try tx.history(of: text) }.map(\.lamport)
        #expect(lamports == lamports.sorted() && Set(lamports).count == lamports.count)
    }

    @Test("after compaction pruned the history, the text's history lists the kept changes, from historyKeptFrom")
    func pruned() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let file = try store.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        var made: [Made] = []
        for step in 0..<30 { made.append(try Self.edit(text, on: store, choice: step)) }
        let acknowledged = store.version
        for step in 0..<5 { made.append(try Self.edit(text, on: store, choice: step)) }
        try store.write { tx in try tx.update(file, as: File.self) { $0.name = "Chapter 1" } }
        #expect(try store.read { tx in try tx.historyKeptFrom } == VersionVector())
        try store.pruneHistory(acknowledged: HistoryAcknowledgements([ReplicaID(99): acknowledged]))
        let keptFrom = try store.read { tx in try tx.historyKeptFrom }
        #expect(keptFrom[store.replica] > 0)
        let history = try store.read { tx in try tx.history(of: text) }
        #expect(Self.made(history) == made.filter { $0.change.counter >= keptFrom[store.replica] })
        #expect(history.count >= 5)
        // The record's history lost its creation with the pruned changes; the rest is kept.
        let record = try store.read { tx in try tx.history(of: file) }
        #expect(record.count == history.count + 1)
        #expect(record.allSatisfy { !$0.isCreation })
        #expect(try record.last?.value(of: "name", as: String.self) == "Chapter 1")
    }

    @Test("a record's history: its creation, renames, moves, trash and restore, and its text edits, each with its change")
    func recordHistory() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let (drafts, done, ode) = try a.write { tx in
            let drafts = try tx.insert(Folder(name: "Drafts"))
            let done = try tx.insert(Folder(name: "Done"))
            return (drafts, done, try tx.insert(File(name: "Ode"), under: drafts))
        }
        try StoreSpec.sync(a, b)
        try b.write { tx in try tx.insert("Thou still", at: 0, in: ode.text("content")) }
        try StoreSpec.sync(a, b)
        try a.write { tx in try tx.update(ode, as: File.self) { $0.name = "To Autumn" } }
        try a.write { tx in try tx.move(ode, to: done) }
        try a.write { tx in try tx.delete(ode) }
        try a.write { tx in try tx.restore(ode) }
        try a.write { tx in try tx.update(ode, as: File.self) { $0.rating = 5 } }
        try a.write { tx in try tx.insert("x", at: 0, in: drafts.text("content")) }  // another record's text
        try StoreSpec.sync(a, b)

        for store in [a, b] {
            let history = try store.read { tx in try tx.history(of: ode) }
            #expect(history.count == 7, "\(history)")
            guard history.count == 7 else { continue }
            #expect(history[0].isCreation && history[0].moves.map(\.destination) == [.parent(drafts)])
            #expect(try history[0].value(of: "name", as: String.self) == "Ode")
            #expect(history[0].writtenFields == ["name", "status"])
            #expect(history[1].replica == b.replica && history[1].texts == ["content": TextEditCount(inserted: 10, deleted: 0)])
            #expect(try history[2].value(of: "name", as: String.self) == "To Autumn" && history[2].moves.isEmpty)
            #expect(history[3].moves.map(\.destination) == [.parent(done)] && !history[3].isCreation)
            #expect(history[4].moves.map(\.destination) == [.trash])
            #expect(history[5].moves.map(\.destination) == [.parent(done)])
            #expect(try history[6].value(of: "rating", as: Int.self) == 5 && history[6].writtenFields == ["rating"])
            #expect(try history[6].value(of: "name", as: String.self) == nil)
            #expect(history.map(\.lamport) == history.map(\.lamport).sorted())
            #expect(history.dropFirst().allSatisfy { !$0.isCreation })
        }
        // A folder's history has its own changes only, not its children's.
        #expect(try a.read { tx in try tx.history(of: drafts) }.count == 2)
        #expect(try a.read { tx in try tx.history(of: RecordID(replica: a.replica, counter: 999)) }.isEmpty)
    }
}
