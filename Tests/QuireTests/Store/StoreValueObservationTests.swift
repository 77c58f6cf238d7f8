import Foundation
import Quire
import QuireTestSupport
import Testing

@Suite("Store: observation that cannot miss (observe, events(since:))")
struct StoreValueObservationTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    static func names(_ tx: borrowing StoreReader) throws -> [String] {
        try tx.all(Folder.self).map(\.value.name).sorted()
    }

    @Test("the loop started in a Task after a write still gets a value that includes the write (the issue's pattern)")
    func taskStartedAfterWrite() async throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let observation = store.observe { tx in try Self.names(tx) }
        let task = Task {
            for try await names in observation where names == ["Drafts"] { return names }
            return []
        }
        try store.write { tx in _ = try tx.insert(Folder(name: "Drafts")) }
        #expect(try await task.value == ["Drafts"])
    }

    @Test("observe yields the current value first, then a value after each commit; commits while busy coalesce")
    func currentValueThenChanges() async throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (store, other) = (replicas[0], replicas[1])
        try store.write { tx in _ = try tx.insert(Folder(name: "A")) }
        var values = store.observe { tx in try Self.names(tx) }.makeAsyncIterator()  // reads ["A"] now
        try store.write { tx in _ = try tx.insert(Folder(name: "B")) }
        try store.write { tx in _ = try tx.insert(Folder(name: "C")) }
        #expect(try await values.next() == ["A"])            // as of the subscription
        #expect(try await values.next() == ["A", "B", "C"])  // both later commits, in one value
        try other.write { tx in _ = try tx.insert(Folder(name: "D")) }
        try StoreSpec.send(other, to: store)                  // a merge is a commit too
        #expect(try await values.next() == ["A", "B", "C", "D"])
        try store.close()
        #expect(try await values.next() == nil)               // closing ends it
    }

    @Test("removingDuplicates skips values equal to the last; a throwing value closure ends the sequence with its error")
    func duplicatesAndErrors() async throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let file = try store.write { tx in try tx.insert(File(name: "Ode")) }
        var values = store.observe { tx in try Self.names(tx) }.removingDuplicates().makeAsyncIterator()
        #expect(try await values.next() == [])
        try store.write { tx in try tx.insert("typing", at: 0, in: file.text("content")) }  // names unchanged
        try store.write { tx in _ = try tx.insert(Folder(name: "Drafts")) }
        #expect(try await values.next() == ["Drafts"])        // the keystroke gave no value

        struct Refused: Error {}
        var failing = store.observe { tx -> Int in
            if try Self.names(tx).count > 1 { throw Refused() }
            return 1
        }.makeAsyncIterator()
        #expect(try await failing.next() == 1)
        try store.write { tx in _ = try tx.insert(Folder(name: "Poems")) }
        await #expect(throws: Refused.self) { _ = try await failing.next() }
        #expect(try await failing.next() == nil)
    }

    @Test("a value closure that calls the store throws .nestedTransaction instead of crashing")
    func valueClosureCallingStore() async throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        var values = store.observe { _ in try store.changes().count }.makeAsyncIterator()
        await #expect(throws: StoreError.nestedTransaction("store.changes")) { _ = try await values.next() }
    }

    @Test("events(since:) replays the changes after a version from the log in causal order, then live events, none missed or twice")
    func eventsSinceVersion() async throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (store, other) = (replicas[0], replicas[1])
        let first = try store.write { tx throws in (try tx.insert(Folder(name: "A")), tx.changeID) }
        let seen = store.version
        let second = try store.write { tx throws in
            let file = try tx.insert(File(name: "Ode"), under: first.0)
            try tx.insert("Hi", at: 0, in: file.text("content"))
            return (file, tx.changeID)
        }
        try other.write { tx in _ = try tx.insert(Folder(name: "B")) }
        let merged = try StoreSpec.send(other, to: store).applied

        let events = try store.events(since: seen)
        let live = try store.write { tx throws in
            try tx.update(first.0, as: Folder.self) { $0.name = "A2" }
            return tx.changeID
        }
        var iterator = events.makeAsyncIterator()
        var received: [StoreEvent] = []
        while received.last?.changes != [live], let event = await iterator.next() { received.append(event) }
        // Causal (Lamport) order: the other replica's change, made knowing nothing, has
        // Lamport time 1 and comes before this store's second change (time 2).
        #expect(received.map(\.changes) == [merged, [second.1], [live]])
        #expect(received.map(\.origin) == [.remote, .local, .local])
        #expect(received[1].records == [second.0] && received[1].nodes == [second.0])
        #expect(received[1].texts == [second.0.text("content")] && received[1].moves.isEmpty)
        #expect(received[2].records == [first.0])

        // From the empty version: the whole history; a version that includes everything: only live events.
        var all = try store.events(since: VersionVector()).makeAsyncIterator()
        var history: [ChangeID] = []
        for _ in 0..<4 { history += await all.next()?.changes ?? [] }
        #expect(history == [first.1] + merged + [second.1, live])
        var none = try store.events(since: store.version).makeAsyncIterator()
        let sentinel = try store.write { tx throws in
            try tx.update(first.0, as: Folder.self) { $0.name = "A3" }
            return tx.changeID
        }
        #expect(await none.next()?.changes == [sentinel])
    }

    @Test("events(since:) subscribed while another thread writes: every change after the version exactly once, in order per replica")
    func eventsSinceDuringWrites() async throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let start = store.version
        let writes = 300
        let writer = TestThread {
            for index in 0..<writes { try store.write { tx in _ = try tx.insert(Folder(name: "F\(index)")) } }
        }
        // Subscribe somewhere in the middle of the writes, from this thread.
        while try store.read({ tx in tx.children(of: nil).count }) < writes / 3 {}
        let events = try store.events(since: start)
        try writer.join()
        let expected = try store.changes(since: start).map(\.id)
        #expect(expected.count == writes)
        var received: [ChangeID] = []
        for await event in events {
            received += event.changes
            if received.count >= writes { break }
        }
        #expect(received == expected)
    }

    @Test("events(since:) and observe after close or inside a body throw; the stream is not left open")
    func subscribeErrors() async throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        #expect(throws: StoreError.nestedTransaction("store.events(since:)")) {
            try store.read { _ in _ = try store.events(since: VersionVector()) }
        }
        try store.close()
        #expect(throws: StoreError.closed) { _ = try store.events(since: VersionVector()) }
        var values = store.observe { tx in tx.children(of: nil) }.makeAsyncIterator()
        await #expect(throws: StoreError.closed) { _ = try await values.next() }
    }
}

@Suite("Store: observing a subtree, and where a node came from")
struct StoreSubtreeObservationTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    @Test("events(under:) yields changes inside the folder at any depth, moves out and in, deletes; not others")
    func subtreeEvents() async throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (store, other) = (replicas[0], replicas[1])
        let (notebook, chapter, elsewhere) = try store.write { tx throws in
            let notebook = try tx.insert(Folder(name: "Notebook"))
            return (notebook, try tx.insert(Folder(name: "Chapter"), under: notebook), try tx.insert(Folder(name: "Elsewhere")))
        }
        func write(_ body: (borrowing StoreWriter) throws -> Void) throws -> ChangeID {
            try store.write { tx throws in
                try body(tx)
                return tx.changeID
            }
        }
        do {
            let events = store.events(under: notebook)
            var created: RecordID?
            let add = try write { tx in created = try tx.insert(File(name: "Ode"), under: chapter) }
            let file = try #require(created)
            let text = try write { tx in try tx.insert("Hi", at: 0, in: file.text("content")) }
            let field = try write { tx in try tx.update(file, as: File.self) { $0.rating = 5 } }
            _ = try write { tx in try tx.update(elsewhere, as: Folder.self) { $0.name = "Other" } }   // outside: none
            let moveOut = try write { tx in try tx.move(file, to: elsewhere) }
            _ = try write { tx in try tx.insert("!", at: 2, in: file.text("content")) }  // outside now: none
            let moveIn = try write { tx in try tx.move(file, to: notebook) }
            let delete = try write { tx in try tx.delete(file) }
            try StoreSpec.send(store, to: other)
            try other.write { tx in try tx.update(chapter, as: Folder.self) { $0.name = "Chapter 1" } }
            let remote = try StoreSpec.send(other, to: store).applied
            let sentinel = try write { tx in try tx.update(notebook, as: Folder.self) { $0.name = "Notes" } }

            var received: [StoreEvent] = []
            for await event in events {
                received.append(event)
                if event.changes == [sentinel] { break }
            }
            #expect(received.map(\.changes) == [[add], [text], [field], [moveOut], [moveIn], [delete], remote, [sentinel]])
            #expect(received[0].moves[file] == .init(from: nil, to: .under(chapter)))
            #expect(received[3].moves[file] == .init(from: .under(chapter), to: .under(elsewhere)))
            #expect(received[4].moves[file] == .init(from: .under(elsewhere), to: .under(notebook)))
            #expect(received[5].moves[file] == .init(from: .under(notebook), to: .trash))
            #expect(received[1].moves.isEmpty && received[6].moves.isEmpty)
        }
    }

    @Test("moves say where a node came from in local and merged events: created, moved, reordered, deleted, restored")
    func movesInEvents() async throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (store, other) = (replicas[0], replicas[1])
        let (a, b) = try store.write { tx throws in (try tx.insert(Folder(name: "A")), try tx.insert(Folder(name: "B"))) }
        let x = try store.write { tx in try tx.insert(File(name: "X"), under: a) }
        try StoreSpec.sync(store, other)
        do {
            let local = store.events()
            let merged = other.events()
            try store.write { tx in
                try tx.move(x, to: b)
                try tx.reorder(b, to: 0)
            }
            try store.write { tx in try tx.delete(a) }
            try store.write { tx in try tx.restore(a, to: b) }
            try StoreSpec.send(store, to: other)

            var iterator = local.makeAsyncIterator()
            let move = await iterator.next(), delete = await iterator.next(), restore = await iterator.next()
            #expect(move?.moves == [x: .init(from: .under(a), to: .under(b)), b: .init(from: .topLevel, to: .topLevel)])
            #expect(delete?.moves == [a: .init(from: .topLevel, to: .trash)])
            #expect(restore?.moves == [a: .init(from: .trash, to: .under(b))])
            #expect(restore?.moves[a]?.from?.parent == nil && restore?.moves[a]?.to?.parent == b)

            var remote = merged.makeAsyncIterator()
            let event = await remote.next()
            #expect(event?.origin == .remote)
            // The merge's net effect per node: X went from A to B, A from the top level to under B.
            #expect(event?.moves[x] == .init(from: .under(a), to: .under(b)))
            #expect(event?.moves[a] == .init(from: .topLevel, to: .under(b)))
        }
    }
}
