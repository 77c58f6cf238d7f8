import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Store: observation")
struct StoreObservationTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    /// The next `count` events of `stream` (they are buffered, so write first, then read).
    static func next(_ count: Int, of stream: AsyncStream<StoreEvent>) async -> [StoreEvent] {
        var events: [StoreEvent] = []
        for await event in stream {
            events.append(event)
            if events.count == count { break }
        }
        return events
    }

    @Test("local writes yield .local events with the writer's changeID and what they touched; empty and failed writes yield none")
    func localEvents() async throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        // Streams live in a scope that ends before the store closes (see `closeEndsStreams`).
        do {
            let stream = store.events()

            let (folder, firstID) = try store.write { tx throws in (try tx.insert(Folder(name: "Drafts")), tx.changeID) }
            try store.write { _ in }  // no change, no event
            #expect(throws: StoreError.self) { try store.write { tx in _ = try tx.insert(Folder(name: "")) } }
            let (file, secondID) = try store.write { tx throws in
                let file = try tx.insert(File(name: "Ode"), under: folder)
                try tx.insert("Hi", at: 0, in: file.text("content"))
                return (file, tx.changeID)
            }
            let thirdID = try store.write { tx throws in
                try tx.update(folder, as: Folder.self) { $0.name = "Poems" }
                return tx.changeID
            }
            #expect(Set([firstID, secondID, thirdID]).count == 3)
            #expect(try store.changes().map(\.id) == [firstID, secondID, thirdID])

            let events = await Self.next(3, of: stream)
            try #require(events.count == 3)
            #expect(events.allSatisfy { $0.origin == .local })
            #expect(events.map(\.changes) == [[firstID], [secondID], [thirdID]])
            #expect(events[0].records == [folder] && events[0].nodes == [folder] && events[0].texts.isEmpty)
            #expect(events[1].records == [file] && events[1].nodes == [file] && events[1].texts == [file.text("content")])
            #expect(events[2].records == [folder] && events[2].nodes.isEmpty && events[2].texts.isEmpty)
        }
    }

    @Test("closing the store ends its event sequences")
    func closeEndsStreams() async throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let stream = store.events()
        let id = try store.write { tx throws in
            _ = try tx.insert(Folder(name: "Drafts"))
            return tx.changeID
        }
        try store.close()
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.changes == [id])  // buffered before closing
        #expect(await iterator.next() == nil)  // then the end
    }

    @Test("merged changes arrive as one .remote event with the applied changes and the touched records, texts and nodes")
    func remoteEvents() async throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        do {
            let stream = b.events()
            let folder = try a.write { tx in try tx.insert(Folder(name: "Drafts")) }
            let file = try a.write { tx throws in
                let file = try tx.insert(File(name: "Ode"), under: folder)
                try tx.insert("Hi", at: 0, in: file.text("content"))
                return file
            }
            let report = try StoreSpec.send(a, to: b)
            try b.apply(a.changes())  // all known: no event
            try a.write { tx in try tx.delete(folder) }
            let ownID = try b.write { tx throws in
                try tx.insert("!", at: 2, in: file.text("content"))
                return tx.changeID
            }
            let second = try StoreSpec.send(a, to: b)

            let events = await Self.next(3, of: stream)
            try #require(events.count == 3)
            #expect(events.map(\.origin) == [.remote, .local, .remote])
            #expect(try events[0].changes == report.applied && report.applied == a.changes().map(\.id).prefix(2).map { $0 })
            #expect(events[0].records == [folder, file])
            #expect(events[0].nodes == [folder, file])
            #expect(events[0].texts == [file.text("content")])
            #expect(events[1].changes == [ownID] && events[1].texts == [file.text("content")] && events[1].records.isEmpty)
            #expect(events[2].changes == second.applied && second.applied.count == 1)
            #expect(events[2].nodes == [folder] && events[2].records.isEmpty && events[2].texts.isEmpty)
            #expect(events[2].touches(folder) && !events[2].touches(file))
        }
    }

    @Test("events(for: record) and events(for: text) yield only the changes that touch them")
    func filteredEvents() async throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (store, other) = (replicas[0], replicas[1])
        let (x, y) = try store.write { tx throws in
            (try tx.insert(File(name: "X")), try tx.insert(File(name: "Y")))
        }
        do {
            let all = store.events()
            let forX = store.events(for: x)
            let forText = store.events(for: x.text("content"))

            func write(_ body: (borrowing StoreWriter) throws -> Void) throws -> ChangeID {
                try store.write { tx throws in
                    try body(tx)
                    return tx.changeID
                }
            }
            let touchY = try write { tx in try tx.update(y, as: File.self) { $0.status = "ready" } }
            let fieldX = try write { tx in try tx.update(x, as: File.self) { $0.rating = 1 } }
            let textX = try write { tx in try tx.insert("x", at: 0, in: x.text("content")) }
            let bodyX = try write { tx in try tx.insert("b", at: 0, in: x.text("body")) }
            let textY = try write { tx in try tx.insert("y", at: 0, in: y.text("content")) }
            let moveX = try write { tx in try tx.move(x, to: y) }
            let moveYOnly = try write { tx in try tx.reorder(y, to: 0) }
            // A remote change to X's text, made on the other replica.
            try StoreSpec.send(store, to: other)
            try other.write { tx in try tx.insert("!", at: 1, in: x.text("content")) }
            let remote = try StoreSpec.send(other, to: store)
            let last = try write { tx in try tx.update(y, as: File.self) { $0.rating = 9 } }

            let everything = await Self.next(9, of: all)
            #expect(everything.map(\.changes) == [[touchY], [fieldX], [textX], [bodyX], [textY], [moveX], [moveYOnly], remote.applied, [last]])

            // Only changes touching X, in order; the sentinel write proves nothing else is buffered.
            let sentinelX = try write { tx in try tx.update(x, as: File.self) { $0.rating = 2 } }
            let xEvents = await Self.next(6, of: forX)
            #expect(xEvents.map(\.changes) == [[fieldX], [textX], [bodyX], [moveX], remote.applied, [sentinelX]])
            #expect(xEvents.allSatisfy { $0.touches(x) })

            let sentinelText = try write { tx in try tx.delete(0..<1, in: x.text("content")) }
            let textEvents = await Self.next(3, of: forText)
            #expect(textEvents.map(\.changes) == [[textX], remote.applied, [sentinelText]])
            #expect(textEvents.map(\.origin) == [.local, .remote, .local])
        }
    }
}
