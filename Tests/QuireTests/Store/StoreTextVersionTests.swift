import Foundation
import Quire
import QuireTestSupport
import Testing

/// A text read at any store version, diffs between two and restore: the store version
/// (replica → next change counter) mapped to the text's own through the change log.
@Suite("Store: a text at any version, diffs and restore")
struct StoreTextVersionTests {
    typealias File = StoreSpec.File

    /// A store version and the text at it, as read right then.
    struct Seen {
        var version: VersionVector
        var text: String
    }

    /// Edits `text` on two replicas, mostly one keystroke per write (inserts, backspaces,
    /// now and then a replace), merging every few dozen writes; returns each store's
    /// (version, text) after every write and merge. Ends in sync.
    private static func edit(_ writes: Int, _ text: TextID, on stores: [Store]) throws -> [[Seen]] {
        var random: UInt64 = 7
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        var seen: [[Seen]] = stores.map { _ in [] }
        func note(_ index: Int) throws {
            let store = stores[index]
            seen[index].append(try store.read { tx in Seen(version: tx.version, text: try tx.string(of: text)) })
        }
        for write in 0..<writes {
            let index = next(5) == 0 ? 1 : 0  // replica A types most
            let store = stores[index]
            try store.write { tx in
                let length = try tx.length(of: text)
                switch next(10) {
                case 0..<6: try tx.insert(String(UnicodeScalar(UInt8(97 + next(26)))), at: length, in: text)
                case 6..<8 where length > 0: try tx.delete(length - 1..<length, in: text)
                case 8 where length > 3:
                    let start = next(length - 2)
                    try tx.replace(start..<start + 2, with: "é\u{1F600}", in: text)
                default: try tx.insert("·", at: next(length + 1), in: text)
                }
            }
            try note(index)
            if write % 37 == 36 {
                try StoreSpec.sync(stores[0], stores[1])
                try note(0)
                try note(1)
            }
        }
        try StoreSpec.sync(stores[0], stores[1])
        try note(0)
        try note(1)
        return seen
    }

    /// Checks that `store` reads `text` at every version seen as it was then.
    private static func check(_ seen: [[Seen]], _ text: TextID, on store: Store, _ comment: Comment) throws {
        try store.read { tx in
            for (replica, versions) in seen.enumerated() {
                for (index, old) in versions.enumerated() {
                    let read = try tx.string(of: text, at: old.version)
                    #expect(read == old.text, "\(comment): replica \(replica), version \(index) \(old.version)")
                    if read != old.text { return }
                }
            }
        }
    }

    /// The file and its text, created on `stores[0]` and sent to the others.
    private static func makeFile(on stores: [Store]) throws -> TextID {
        let file = try stores[0].write { tx in try tx.insert(File(name: "Chapter")) }
        for store in stores.dropFirst() { try StoreSpec.send(stores[0], to: store) }
        return file.text("content")
    }

    @Test("every version two replicas were at, merges included, reads as it did then: after 1,500 writes (keystrokes folded into runs), after reopening")
    func everyVersion() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let text = try Self.makeFile(on: replicas.stores)
        let seen = try Self.edit(1_500, text, on: replicas.stores)
        #expect(seen[0].count > 1_100)
        // Versions of either replica read the same on both (both have every change).
        try Self.check(seen, text, on: replicas[0], "replica A")
        try Self.check(seen, text, on: replicas[1], "replica B")
        let statistics = try replicas[0].statistics()
        #expect(statistics.changeLogEntries < statistics.changeCount * 3 / 4, "keystrokes were folded into runs")
        try Self.check(seen, text, on: try replicas.reopen(0), "replica A reopened")
        try Self.check(seen, text, on: try replicas.reopen(1), "replica B reopened")
    }

    @Test("a diff between two versions, applied to the old text, gives the new one, in either direction")
    func diffApplies() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let text = try Self.makeFile(on: replicas.stores)
        let seen = try Self.edit(300, text, on: replicas.stores)
        let versions = seen[0] + seen[1]
        try replicas[0].read { tx in
            for index in stride(from: 0, to: versions.count, by: 7) {
                let old = versions[index], new = versions[(index * 31 + 5) % versions.count]
                for (from, to) in [(old, new), (new, old)] {
                    let diff = try tx.diff(of: text, from: from.version, to: to.version)
                    var scalars = Array(from.text.unicodeScalars)
                    for edit in diff.edits.reversed() {
                        scalars.replaceSubrange(edit.deletedRange, with: Array(edit.insertedText.unicodeScalars))
                    }
                    var result = String.UnicodeScalarView()
                    result.append(contentsOf: scalars)
                    #expect(String(result) == to.text, "from \(from.version) to \(to.version)")
                }
            }
            #expect(try tx.diff(of: text, from: tx.version, to: tx.version).isEmpty)
        }
    }

    @Test("a restore on one replica, merged with a concurrent edit on the other, keeps both")
    func restoreMergesWithConcurrentEdit() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let text = try Self.makeFile(on: replicas.stores)
        try a.write { tx in try tx.insert("Hello world", at: 0, in: text) }
        let draft = a.version
        try a.write { tx in try tx.replace(0..<5, with: "Howdy", in: text) }
        try a.write { tx in try tx.insert(" again", at: 11, in: text) }
        try StoreSpec.sync(a, b)
        try a.write { tx in try tx.restore(text, to: draft) }
        #expect(try a.read { tx in try tx.string(of: text) } == "Hello world")
        try b.write { tx in try tx.insert("!", at: 17, in: text) }  // after "Howdy world again"
        try StoreSpec.sync(a, b)
        #expect(try a.read { tx in try tx.string(of: text) } == "Hello world!")
        #expect(try b.read { tx in try tx.string(of: text) } == "Hello world!")
        // The restore is an ordinary change: the version it restored from still reads so.
        #expect(try b.read { tx in try tx.string(of: text, at: draft) } == "Hello world")
    }

    @Test("a restore to the current version writes nothing")
    func restoreToNowWritesNothing() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let text = try Self.makeFile(on: replicas.stores)
        try store.write { tx in try tx.insert("Same", at: 0, in: text) }
        let now = store.version
        try store.write { tx in try tx.restore(text, to: now) }
        #expect(store.version == now)
    }

    @Test("a version before the text was first written reads as an empty text, and restoring to it empties the text")
    func beforeTheText() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let text = try Self.makeFile(on: replicas.stores)
        let empty = store.version
        try store.write { tx in try tx.insert("Later", at: 0, in: text) }
        #expect(try store.read { tx in try tx.string(of: text, at: empty) } == "")
        #expect(try store.read { tx in try tx.string(of: text, at: VersionVector()) } == "")
        try store.write { tx in try tx.restore(text, to: empty) }
        #expect(try store.read { tx in try tx.string(of: text) } == "")
    }

    @Test("a version beyond what the store has is refused, naming the replica and what to do; the store is unchanged")
    func beyondTheStore() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let text = try Self.makeFile(on: replicas.stores)
        try a.write { tx in try tx.insert("Kept", at: 0, in: text) }
        try b.write { tx in try tx.insert("B's", at: 0, in: text) }  // not sent to A
        let before = a.version
        for version in [b.version, VersionVector([a.replica: before[a.replica] + 3])] {
            let error = #expect(throws: StoreError.self) { try a.read { tx in try tx.string(of: text, at: version) } }
            guard case .versionBeyondStore(let replica, _, _)? = error else {
                Issue.record("expected versionBeyondStore, got \(String(describing: error))")
                continue
            }
            #expect(version[replica] > before[replica])
            #expect(error?.description.contains("merge them first") == true)
            #expect(throws: StoreError.self) { try a.write { tx in try tx.restore(text, to: version) } }
            #expect(throws: StoreError.self) { try a.read { tx in try tx.diff(of: text, from: before, to: version) } }
        }
        #expect(a.version == before)
        #expect(try a.read { tx in try tx.string(of: text) } == "Kept")
    }

    @Test("a version in pruned history is refused; later versions still read, also those before the text's first kept change")
    func prunedHistory() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let text = try Self.makeFile(on: replicas.stores)
        try store.write { tx in try tx.insert("one", at: 0, in: text) }
        let early = store.version
        try store.write { tx in try tx.insert(" two", at: 3, in: text) }
        let other = try store.write { tx in try tx.insert(File(name: "Other")) }
        let pruned = store.version  // the last change before it touched another record
        try store.write { tx in try tx.insert(" three", at: 7, in: text) }
        let late = store.version
        try store.write { tx in try tx.insert("x", at: 0, in: other.text("content")) }
        try store.pruneHistory(acknowledged: HistoryAcknowledgements([ReplicaID(99): pruned]))
        let error = #expect(throws: StoreError.self) { try store.read { tx in try tx.string(of: text, at: early) } }
        guard case .versionPruned(_, let counter, let keptFrom)? = error else {
            Issue.record("expected versionPruned, got \(String(describing: error))")
            return
        }
        #expect(counter == early[store.replica] && keptFrom == pruned[store.replica])
        let read = try store.read { tx in
            [try tx.string(of: text, at: pruned), try tx.string(of: text, at: late), try tx.string(of: text, at: tx.version)]
        }
        #expect(read == ["one two", "one two three", "one two three"])
    }
}
