import Foundation
import Quire
import QuireApps
import QuireCore
import QuireTestSupport
import Testing

/// The notes of `category`: IDs and answers, in order.
private func notes(of category: RecordID, _ tx: borrowing StoreReader) throws -> [(id: RecordID, answer: String)] {
    try tx.children(of: category, ofType: CardNote.self).map { ($0.id, try tx.string(of: $0.id.text(CardNote.answerField))) }
}

/// Every record in the hierarchy (top level and trash) exactly once, with the flash-card
/// shape: categories at the top level, notes under categories, clues under notes.
private func checkShape(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try store.read { tx throws in
        var seen: [RecordID] = []
        for top in tx.children(of: nil) + tx.trash { seen += tx.subtree(of: top) }
        #expect(Set(seen).count == seen.count, "a record appears twice", sourceLocation: sourceLocation)
        let all = try tx.all(Category.self, includingDeleted: true).map(\.id) + tx.all(CardNote.self, includingDeleted: true).map(\.id)
            + tx.all(Clue.self, includingDeleted: true).map(\.id)
        #expect(Set(seen) == Set(all), "records missing from the hierarchy", sourceLocation: sourceLocation)
        for category in tx.children(of: nil) {
            #expect(tx.typeName(of: category) == Category.typeName, sourceLocation: sourceLocation)
        }
        for note in try tx.all(CardNote.self, includingDeleted: true) {
            guard let parent = tx.parent(of: note.id) else { continue }  // deleted itself
            #expect(tx.typeName(of: parent) == Category.typeName, sourceLocation: sourceLocation)
        }
        for clue in try tx.all(Clue.self, includingDeleted: true) {
            guard let parent = tx.parent(of: clue.id) else { continue }
            #expect(tx.typeName(of: parent) == CardNote.typeName, sourceLocation: sourceLocation)
        }
    }
}

@Suite("Flash cards")
struct FlashCardsTests {
    @Test("categories hold ordered notes with answers, notes hold ordered clues; edit, reorder, delete, restore")
    func basics() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try openStore(in: directory)
        let (capitals, france, japan) = try store.write { tx throws in
            let capitals = try addCategory("Capitals", tx)
            try addCategory("Rivers", tx)
            let france = try addNote(answer: "Paris", title: "France", to: capitals, tx)
            let japan = try addNote(answer: "Tokyo", to: capitals, tx)
            try addNote(answer: "Lima", to: capitals, at: 0, tx)
            try addClue("On the Seine", to: france, tx)
            try addClue("Eiffel", to: france, at: 0, tx)
            return (capitals, france, japan)
        }
        try store.read { tx throws in
            #expect(try tx.all(Category.self).map(\.title) == ["Capitals", "Rivers"])
            #expect(try childNames(of: nil, tx) == ["Capitals", "Rivers"])
            #expect(try notes(of: capitals, tx).map(\.answer) == ["Lima", "Paris", "Tokyo"])
            #expect(try tx.record(CardNote.self, france).title == "France")
            #expect(try tx.children(of: france).map { try tx.string(of: $0.text(Clue.textField)) } == ["Eiffel", "On the Seine"])
        }
        // Edit: the answer as text, the title as a field, a clue's text.
        try store.write { tx throws in
            try tx.setString("Paris, France", in: france.text(CardNote.answerField))
            try tx.update(japan, as: CardNote.self) { $0.title = "Japan" }
            let clue = tx.children(of: france)[1]
            try tx.insert("river ", at: 7, in: clue.text(Clue.textField))
        }
        // Reorder: Tokyo first; a clue last.
        try store.write { tx throws in
            try tx.reorder(japan, to: 0)
            try tx.reorder(tx.children(of: france)[0], to: 1)
        }
        try store.read { tx throws in
            #expect(try notes(of: capitals, tx).map(\.answer) == ["Tokyo", "Lima", "Paris, France"])
            #expect(try tx.record(CardNote.self, japan).title == "Japan")
            #expect(try tx.children(of: france).map { try tx.string(of: $0.text(Clue.textField)) } == ["On the river Seine", "Eiffel"])
        }
        // Delete a note with its clues; restore it at the end.
        try store.write { tx throws in try tx.delete(france) }
        try store.read { tx throws in
            #expect(try notes(of: capitals, tx).map(\.answer) == ["Tokyo", "Lima"])
            #expect(try tx.all(Clue.self).isEmpty)
            #expect(tx.trash == [france])
        }
        try store.write { tx throws in try tx.restore(france, to: capitals) }
        try store.read { tx throws in
            #expect(try notes(of: capitals, tx).map(\.answer) == ["Tokyo", "Lima", "Paris, France"])
            #expect(try tx.all(Clue.self).count == 2)
        }
        try checkShape(store)
    }

    @Test("a reorder on one replica and edits on the other converge with every note once and every edit kept")
    func reorderAndEdit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let a = try openStore(in: directory, "a"), b = try openStore(in: directory, "b")
        let (category, ids) = try a.write { tx throws in
            let category = try addCategory("Verbs", tx)
            return (category, try ["être", "avoir", "aller", "faire"].map { try addNote(answer: $0, to: category, tx) })
        }
        try b.apply(a.changes())
        try a.write { tx throws in
            try tx.reorder(ids[3], to: 0)
            try tx.reorder(ids[0], to: 3)
        }
        try b.write { tx throws in
            try tx.insert(" (to do)", at: 5, in: ids[3].text(CardNote.answerField))
            try tx.update(ids[3], as: CardNote.self) { $0.title = "Faire" }
            try addClue("irregular", to: ids[0], tx)
        }
        try exchange(a, b)
        #expect(try dump(a) == dump(b))
        try a.read { tx throws in
            #expect(try notes(of: category, tx).map(\.answer) == ["faire (to do)", "avoir", "aller", "être"])
            #expect(try tx.record(CardNote.self, ids[3]).title == "Faire")
            #expect(tx.children(of: ids[0]).count == 1)
        }
        try checkShape(a)
    }

    @Test("concurrent reorders and moves on both replicas converge with no duplicate and no loss")
    func concurrentReorders() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let a = try openStore(in: directory, "a"), b = try openStore(in: directory, "b")
        let (verbs, nouns, ids) = try a.write { tx throws in
            let verbs = try addCategory("Verbs", tx)
            let nouns = try addCategory("Nouns", tx)
            return (verbs, nouns, try (0..<6).map { try addNote(answer: "v\($0)", to: verbs, tx) })
        }
        try b.apply(a.changes())
        // Both move v0: A to the end, B to the middle. A moves v2 to Nouns while B reorders it.
        try a.write { tx throws in
            try tx.reorder(ids[0], to: 5)
            try tx.move(ids[2], to: nouns)
            try tx.reorder(ids[5], to: 0)
        }
        try b.write { tx throws in
            try tx.reorder(ids[0], to: 2)
            try tx.reorder(ids[2], to: 0)
            try tx.reorder(ids[4], to: 1)
        }
        try exchange(a, b)
        #expect(try dump(a) == dump(b))
        try a.read { tx throws in
            let inVerbs = tx.children(of: verbs), inNouns = tx.children(of: nouns)
            #expect(Set(inVerbs + inNouns) == Set(ids))
            #expect(inVerbs.count + inNouns.count == ids.count)
            // B's reorder of v2 is later (same Lamport time, compared by replica) or earlier
            // than A's move; either way v2 is in exactly one of the two.
            #expect(inVerbs.contains(ids[2]) != inNouns.contains(ids[2]))
        }
        try checkShape(a)
        try checkShape(b)
    }

    @Test("a seeded schedule of 200 random operations on three replicas converges", arguments: [1, 2, 3, 4, 5, 6, 7, 42] as [UInt64])
    func randomSchedule(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stores = try (1...3).map { try openStore(in: directory, "replica-\($0)", replica: UInt64($0)) }
        var random = SplitMix64(seed: seed)
        var schedule = RandomSchedule()
        var deferred = 0
        for step in 0..<200 {
            let index = Int.random(in: 0..<stores.count, using: &random)
            try schedule.step(step, on: stores[index], replica: index + 1, using: &random)
            if Int.random(in: 0..<100, using: &random) < 15 {  // a random exchange point
                let from = Int.random(in: 0..<stores.count, using: &random)
                let to = (from + Int.random(in: 1..<stores.count, using: &random)) % stores.count
                var changes = try stores[from].changes(since: stores[to].version)
                if Bool.random(using: &random) {
                    // A partial, shuffled delivery (a sync folder mid-upload): what is
                    // missing its dependencies waits as pending.
                    changes.shuffle(using: &random)
                    changes = Array(changes.prefix(Int.random(in: 0...changes.count, using: &random)))
                }
                let report = try stores[to].apply(changes)
                deferred += report.pending.count
            }
        }
        try exchangeAll(stores)
        #expect(try stores.allSatisfy { try $0.read { tx throws in tx.version } == stores[0].version })
        #expect(try stores.allSatisfy { try $0.apply([]).pending.isEmpty })
        #expect(deferred > 0)  // some deliveries had gaps and waited
        #expect(schedule.created > 30 && schedule.typed.count > 30 && !schedule.erased.isEmpty)  // the schedule did something
        let dumps = try stores.map(dump)
        #expect(dumps[0] == dumps[1] && dumps[1] == dumps[2], "seed \(seed)")
        for store in stores {
            try checkShape(store)
            try store.read { tx throws in
                #expect(try tx.all(Category.self, includingDeleted: true).count + tx.all(CardNote.self, includingDeleted: true).count
                    + tx.all(Clue.self, includingDeleted: true).count == schedule.created)
                // Every word typed and not deleted is there, once.
                var words: [String] = []
                for note in try tx.all(CardNote.self, includingDeleted: true) {
                    words += try tx.string(of: note.id.text(CardNote.answerField)).split(separator: " ").map(String.init)
                }
                #expect(words.count == Set(words).count)
                #expect(Set(words) == schedule.typed.subtracting(schedule.erased))
            }
        }
    }
}

/// Random flash-card edits. Answers are built from unique words ("r2w17") each followed
/// by a space, inserted only between words and deleted only whole, so the expected set of
/// words after any merge is known: all typed minus all erased.
private struct RandomSchedule {
    var created = 0
    var typed: Set<String> = []
    var erased: Set<String> = []

    mutating func step(_ step: Int, on store: Store, replica: Int, using random: inout SplitMix64) throws {
        let roll = Int.random(in: 0..<100, using: &random)
        // The choices come from the store as it is now; the transaction body only writes.
        let categories = try store.read { tx throws in try tx.all(Category.self).map(\.id) }
        let notes = try store.read { tx throws in try tx.all(CardNote.self).map(\.id) }
        let anyNotes = try store.read { tx throws in try tx.all(CardNote.self, includingDeleted: true).map(\.id) }
        let clues = try store.read { tx throws in try tx.all(Clue.self).map(\.id) }
        func pick(_ ids: [RecordID]) -> RecordID? { ids.isEmpty ? nil : ids[Int.random(in: 0..<ids.count, using: &random)] }

        switch roll {
        case 0..<10:
            try store.write { tx throws in try addCategory("Category \(replica)-\(step)", tx) }
            created += 1
        case 10..<30:
            guard let category = pick(categories) else { return }
            let count = try store.read { tx throws in tx.children(of: category).count }
            let index = Int.random(in: 0...count, using: &random)
            let word = "r\(replica)w\(step)"
            try store.write { tx throws in try addNote(answer: word + " ", to: category, at: index, tx) }
            typed.insert(word)
            created += 1
        case 30..<42:
            guard let note = pick(notes) else { return }
            try store.write { tx throws in try addClue("clue \(step)", to: note, tx) }
            created += 1
        case 42..<60:  // type a word between two words, in UTF-16 offsets
            guard let note = pick(anyNotes) else { return }
            let text = note.text(CardNote.answerField)
            let answer = try store.read { tx throws in try tx.string(of: text) }
            var boundaries = [0]
            var offset = 0
            for unit in answer.utf16 {
                offset += 1
                if unit == 0x20 { boundaries.append(offset) }
            }
            let at = boundaries[Int.random(in: 0..<boundaries.count, using: &random)]
            let word = "r\(replica)w\(step)"
            try store.write { tx throws in try tx.insert(word + " ", at: at, unit: .utf16, in: text) }
            typed.insert(word)
        case 60..<67:  // erase a whole word
            guard let note = pick(anyNotes) else { return }
            let text = note.text(CardNote.answerField)
            let words = try store.read { tx throws in try tx.string(of: text) }.split(separator: " ").map(String.init)
            guard !words.isEmpty else { return }
            let index = Int.random(in: 0..<words.count, using: &random)
            let start = words[..<index].reduce(0) { $0 + $1.unicodeScalars.count + 1 }
            try store.write { tx throws in try tx.delete(start..<(start + words[index].unicodeScalars.count + 1), in: text) }
            erased.insert(words[index])
        case 67..<72:
            guard let note = pick(notes) else { return }
            try store.write { tx throws in try tx.update(note, as: CardNote.self) { $0.title = "Title \(replica)-\(step)" } }
        case 72..<84:
            guard let item = pick(notes + clues) else { return }
            let siblings = try store.read { tx throws in tx.parent(of: item).map { tx.children(of: $0).count } }
            guard let siblings else { Issue.record("a live note or clue without a parent"); return }
            try store.write { tx throws in try tx.reorder(item, to: Int.random(in: 0..<siblings, using: &random)) }
        case 84..<90:
            guard let note = pick(notes), let category = pick(categories) else { return }
            try store.write { tx throws in try tx.move(note, to: category, at: 0) }
        case 90..<96:
            guard let item = pick(categories + notes + clues) else { return }
            try store.write { tx throws in try tx.delete(item) }
        default:
            let trash = try store.read { tx throws in tx.trash }
            guard let item = pick(trash) else { return }
            let parent: RecordID?
            switch try store.read({ tx throws in tx.typeName(of: item) }) {
            case Category.typeName: parent = nil
            case CardNote.typeName: guard let category = pick(categories) else { return }; parent = category
            default: guard let note = pick(notes) else { return }; parent = note
            }
            try store.write { tx throws in try tx.restore(item, to: parent) }
        }
    }
}
