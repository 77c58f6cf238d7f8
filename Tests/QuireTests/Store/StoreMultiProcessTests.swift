import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

/// The record types `store-test-typist writer` writes.
private struct TypistNote: Record {
    static let typeName = "note"
    var name: String
}

private struct TypistFile: Record {
    static let typeName = "file"
    var name: String
}

private struct TypistFolder: Record {
    static let typeName = "folder"
    var name: String
}

/// What one `writer` child acknowledged: the notes it created (ID → name), its keystrokes
/// and its moves.
private struct Acknowledged {
    var notes: [String: String] = [:]
    var keystrokes = 0
    var moves = 0

    init(_ lines: [String], tag: String) {
        for line in lines where line.hasPrefix("ack ") {
            let words = line.split(separator: " ")
            guard words.count >= 3 else { continue }
            switch words[2] {
            case "note" where words.count == 4: notes[String(words[3])] = "\(tag)-\(words[1])"
            case "key": keystrokes += 1
            case "move": moves += 1
            default: break
            }
        }
    }
}

/// What the store holds once the writers are done, read by a fresh process-local open.
private struct StoreContents {
    var notes: [String: String] = [:]
    var noteCount = 0
    var text = ""
    var folders = 0
    var healthy = false
    var problems: [String] = []

    init(directory: String) throws {
        let store = try Store(directory: directory)
        defer { try? store.close() }
        try store.read { tx in
            let notes = try tx.all(TypistNote.self)
            noteCount = notes.count
            for note in notes { self.notes[note.id.description] = note.value.name }
            folders = try tx.all(TypistFolder.self).count
            if let file = try tx.all(TypistFile.self).first { text = try tx.string(of: file.id.text("content")) }
        }
        let report = try store.verify()
        healthy = report.isHealthy
        problems = report.problems.map { "\($0)" }
    }

    /// Every acknowledged note is here under its ID with its name; `nil` when so, else
    /// the first one missing or wrong.
    func missing(of acknowledged: Acknowledged) -> String? {
        for (id, name) in acknowledged.notes.sorted(by: { $0.key < $1.key }) where notes[id] != name {
            return "\(id) should be \(name), is \(notes[id] ?? "missing")"
        }
        return nil
    }
}

@Suite("Several processes on one store")
struct StoreMultiProcessTests {
    @Test("two processes × 1,000 interleaved durable writes: every acknowledged write is kept, IDs unique, verify healthy")
    func twoWriters() throws {
        let typist = try BuiltProducts.executable(named: "store-test-typist")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("store")
        // This process holds the store open all along, as an app would.
        let app = try Store(directory: path)
        let first = try RunningProcess(typist, ["writer", path, "a", "1000"])
        let second = try RunningProcess(typist, ["writer", path, "b", "1000"])
        let results = [first.finish(), second.finish()]
        for result in results {
            #expect(result.status == 0, "writer failed: \(result.standardError)")
            #expect(result.standardOutput.hasSuffix("done"))
        }
        let a = Acknowledged(first.output, tag: "a"), b = Acknowledged(second.output, tag: "b")
        #expect(a.notes.count == 334 && b.notes.count == 334)
        #expect(a.keystrokes == 333 && b.keystrokes == 333)
        #expect(Set(a.notes.keys).isDisjoint(with: b.notes.keys), "both writers were handed one record ID")

        // The process that held the store open all along sees everything too.
        let seen = try app.read { tx in try tx.all(TypistNote.self).count }
        #expect(seen == 668)
        try app.close()

        let contents = try StoreContents(directory: path)
        #expect(contents.noteCount == 668)
        #expect(contents.missing(of: a) == nil)
        #expect(contents.missing(of: b) == nil)
        #expect(contents.folders == 1, "the two writers created the shared folder twice")
        #expect(contents.text.filter { $0 == "a" }.count == 333)
        #expect(contents.text.filter { $0 == "b" }.count == 333)
        #expect(contents.healthy, "verify: \(contents.problems.prefix(5))")
    }

    @Test("kill -9 of one writer mid-stream: the other carries on and nothing acknowledged is lost")
    func killedWriter() throws {
        let typist = try BuiltProducts.executable(named: "store-test-typist")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("store")
        let doomed = try RunningProcess(typist, ["writer", path, "k", "0"])  // writes until killed
        #expect(doomed.wait { $0.count >= 50 })
        let survivor = try RunningProcess(typist, ["writer", path, "s", "600"])
        // Kill the first while both write: after the survivor has started writing.
        #expect(survivor.wait { $0.count >= 30 })
        doomed.kill()
        _ = doomed.finish()
        #expect(doomed.wasKilled)
        let result = survivor.finish()
        #expect(result.status == 0, "the survivor failed after the kill: \(result.standardError)")
        #expect(result.standardOutput.hasSuffix("done"))

        let killed = Acknowledged(doomed.output, tag: "k"), kept = Acknowledged(survivor.output, tag: "s")
        #expect(kept.notes.count == 200)
        let contents = try StoreContents(directory: path)
        #expect(contents.missing(of: killed) == nil)
        #expect(contents.missing(of: kept) == nil)
        // The killed writer's last keystroke may have committed without its acknowledgement.
        let typed = contents.text.filter { $0 == "k" }.count
        #expect(typed == killed.keystrokes || typed == killed.keystrokes + 1)
        #expect(contents.text.filter { $0 == "s" }.count == 200)
        #expect(contents.healthy, "verify: \(contents.problems.prefix(5))")
    }

    @Test("a commit by another process reaches events() with origin .otherProcess, without a transaction here")
    func eventFromAnotherProcess() async throws {
        let typist = try BuiltProducts.executable(named: "store-test-typist")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("store")
        let app = try Store(directory: path)
        let events = app.events()
        let writer = try RunningProcess(typist, ["writer", path, "w", "3"])
        let result = writer.finish()
        #expect(result.status == 0, "\(result.standardError)")
        let written = Acknowledged(writer.output, tag: "w")
        let note = try #require(written.notes.keys.first)

        // Polling brings the other process's commits; the test only bounds the wait.
        let event = try await firstEvent(in: events, within: .seconds(10)) { event in
            event.origin == .otherProcess && event.records.contains { $0.description == note }
        }
        #expect(event != nil, "no event for the other process's note \(note)")
        #expect(event?.changes.isEmpty == false)
        try app.close()
    }

    @Test("another process's commits reach observe (a new value) and events(under:) (.otherProcess, with where nodes came from)",
          .timeLimit(.minutes(1)))
    func observationFromAnotherProcess() async throws {
        let typist = try BuiltProducts.executable(named: "store-test-typist")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("store")
        let app = try Store(directory: path)
        let folder = try app.write { tx in try tx.insert(TypistFolder(name: "Shared")) }
        var values = app.observe { tx in try tx.all(TypistNote.self).count }.removingDuplicates().makeAsyncIterator()
        #expect(try await values.next() == 0)
        let inFolder = app.events(under: folder)
        let writer = try RunningProcess(typist, ["writer", path, "w", "3"])
        #expect(writer.finish().status == 0)
        let notes = Acknowledged(writer.output, tag: "w").notes.keys

        // Polling brings the other process's commits; the loop ends at the first value that
        // shows them (the time limit only bounds a hang).
        try #require(!notes.isEmpty)
        var counts: [Int] = []
        while counts.last != notes.count, let count = try await values.next() { counts.append(count) }
        #expect(counts.last == notes.count)
        let event = try await firstEvent(in: inFolder, within: .seconds(10)) { event in
            event.origin == .otherProcess && event.records.contains { notes.contains($0.description) }
        }
        let created = event?.moves.filter { notes.contains($0.key.description) }.map(\.value) ?? []
        #expect(!created.isEmpty && created.allSatisfy { $0 == .init(from: nil, to: .under(folder)) })
        try app.close()
    }

    @Test("a write here after another process wrote starts from its commit: counters continue, nothing is overwritten")
    func writeAfterOtherProcess() throws {
        let typist = try BuiltProducts.executable(named: "store-test-typist")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("store")
        let app = try Store(directory: path)
        let folder = try app.write { tx in try tx.insert(TypistFolder(name: "Shared")) }
        let before = app.version[app.replica]
        let writer = try RunningProcess(typist, ["writer", path, "o", "3"])
        #expect(writer.finish().status == 0)
        // This process's memory is stale now; its next write must not reuse the counters.
        let mine = try app.write { tx in try tx.insert(TypistNote(name: "mine"), under: folder) }
        let other = try #require(Acknowledged(writer.output, tag: "o").notes.keys.first)
        #expect(mine.description != other)
        #expect(app.version[app.replica] > before + 3)
        let names = try app.read { tx in try tx.all(TypistNote.self).map(\.value.name).sorted() }
        #expect(names == ["mine", "o-0"])
        try app.close()
        let contents = try StoreContents(directory: path)
        #expect(contents.healthy, "verify: \(contents.problems.prefix(5))")
    }
}

/// The first event of `events` that satisfies `condition`, or `nil` after `limit`.
private func firstEvent(
    in events: AsyncStream<StoreEvent>, within limit: Duration, where condition: @escaping @Sendable (StoreEvent) -> Bool
) async throws -> StoreEvent? {
    try await withThrowingTaskGroup(of: StoreEvent?.self) { group in
        group.addTask {
            for await event in events where condition(event) { return event }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: limit)  // a bound on a hang, not a synchronisation
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

@Suite("The write funnel")
struct StoreWriteFunnelTests {
    @Test("a write that fills the map runs again from a rolled-back session: one change, each record once")
    func mapGrowthRerun() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = Store.Options()
        options.durability = .noSync
        options.initialMapSize = 256 << 10  // far too small for the write below
        let store = try Store(directory: directory.appending("store"), options: options)
        let runs = Locked(0)
        let folder = try store.write { tx in
            runs.update { $0 += 1 }
            let folder = try tx.insert(TypistFolder(name: "Big"))
            for index in 0..<3_000 {
                let note = try tx.insert(TypistNote(name: "note \(index) " + String(repeating: "x", count: 100)), under: folder)
                try tx.insert(String(repeating: "y", count: 50), at: 0, in: note.text("body"))
            }
            return folder
        }
        #expect(runs.get() > 1, "the map did not fill, so the rerun was not exercised")
        let (notes, children) = try store.read { tx in (try tx.all(TypistNote.self).count, tx.children(of: folder).count) }
        #expect(notes == 3_000)
        #expect(children == 3_000)
        #expect(try store.changes().count == 1)
        #expect(try store.verify().isHealthy)
        try store.close()
        let reopened = try Store(directory: directory.appending("store"), options: options)
        #expect(try reopened.read { tx in try tx.all(TypistNote.self).count } == 3_000)
        try reopened.close()
    }
}
