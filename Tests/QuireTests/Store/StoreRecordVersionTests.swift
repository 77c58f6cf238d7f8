import Foundation
import Quire
import QuireTestSupport
import Testing

/// A record read at any store version: each field the last-writer-wins register as it was
/// then, from the record's registers and the change log.
@Suite("Store: a record at any version")
struct StoreRecordVersionTests {
    typealias File = StoreSpec.File
    typealias Folder = StoreSpec.Folder

    /// A store version and every record of the run as read right then (`nil`: not there).
    struct Seen {
        var version: VersionVector
        var records: [RecordID: File]
    }

    /// Random writes on `stores` (new files, field updates, keystrokes into their texts,
    /// deletes), merging two replicas every few writes; returns each store's (version,
    /// records) after every write and merge, and the records made. Ends in sync.
    private static func write(_ writes: Int, on stores: [Store]) throws -> (seen: [Seen], ids: [RecordID]) {
        var random: UInt64 = 11
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        var ids: [RecordID] = []
        var seen: [Seen] = []
        func note(_ store: Store) throws {
            seen.append(try store.read { tx throws in
                var records: [RecordID: File] = [:]
                for id in ids { records[id] = try tx.get(File.self, id) }
                return Seen(version: tx.version, records: records)
            })
        }
        for step in 0..<writes {
            if step % 9 == 8 {
                let a = next(stores.count), b = (a + 1 + next(stores.count - 1)) % stores.count
                try StoreSpec.send(stores[a], to: stores[b])
                try note(stores[b])
                continue
            }
            let store = stores[next(stores.count)]
            let known = try store.read { tx in try ids.filter { try tx.get(File.self, $0) != nil } }
            let action = known.isEmpty ? 0 : next(20)
            if case 12..<19 = action {  // a burst of keystrokes, one write each (folded into runs)
                let text = known[next(known.count)].text("content")
                for _ in 0...next(6) {
                    try store.write { tx in
                        try tx.insert(String(UnicodeScalar(UInt8(97 + next(26)))), at: try tx.length(of: text), in: text)
                    }
                    try note(store)
                }
                continue
            }
            let made: RecordID? = try store.write { tx in
                switch action {
                case 0..<3:
                    return try tx.insert(File(name: "file \(step)", rating: next(2) == 0 ? nil : next(5)))
                case 3..<12:
                    let id = known[next(known.count)]
                    var file = try tx.record(File.self, id)
                    if next(2) == 0 { file.name = "name \(step)" }
                    if next(3) == 0 { file.status = ["draft", "ready", "set aside"][next(3)] }
                    if next(3) == 0 { file.rating = next(3) == 0 ? nil : next(5) }
                    try tx.replace(id, with: file)
                default:
                    let id = known[next(known.count)]
                    if !tx.isDeleted(id) { try tx.delete(id) }
                }
                return nil
            }
            if let made { ids.append(made) }
            try note(store)
        }
        for a in stores.indices { for b in stores.indices where a != b { try StoreSpec.send(stores[a], to: stores[b]) } }
        for store in stores { try note(store) }
        return (seen, ids)
    }

    /// Checks that `store` reads every record at every version seen as it was then.
    private static func check(_ seen: [Seen], _ ids: [RecordID], on store: Store, _ comment: Comment) throws {
        try store.read { tx throws in
            for (index, old) in seen.enumerated() {
                for id in ids {
                    let read = try tx.get(File.self, id, at: old.version)
                    #expect(read == old.records[id], "\(comment): step \(index), \(id) at \(old.version)")
                    if read != old.records[id] { return }
                }
            }
        }
    }

    /// Expects `body` to throw ``StoreError/versionPruned(replica:counter:keptFrom:)`` for
    /// `replica`, at `version`'s counter, with its history kept from `kept`'s.
    private static func expectPruned(
        of replica: ReplicaID, at version: VersionVector, keptFrom kept: VersionVector, _ body: () throws -> Any?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: StoreError.self, sourceLocation: sourceLocation) { _ = try body() }
        guard case .versionPruned(let thrown, let counter, let keptFrom)? = error else {
            Issue.record("expected versionPruned, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(thrown == replica && counter == version[replica] && keptFrom == kept[replica], sourceLocation: sourceLocation)
    }

    @Test("every version three replicas were at, merges included, reads each record as it was then (nil before it existed); after reopening")
    func everyVersion() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let (seen, ids) = try Self.write(200, on: replicas.stores)
        #expect(ids.count > 10)
        #expect(seen.contains { old in old.records.count < ids.count }, "some versions precede some records")
        #expect(ids.contains { id in Set(seen.compactMap { $0.records[id]?.name }).count > 2 }, "some record was renamed twice")
        for index in 0..<3 { try Self.check(seen, ids, on: replicas[index], "replica \(index + 1)") }
        // Closing folds the keystrokes logged into runs, which the search skips.
        let reopened = try replicas.reopen(0)
        let statistics = try reopened.statistics()
        #expect(statistics.changeLogEntries < statistics.changeCount * 3 / 4, "keystrokes were folded into runs")
        try Self.check(seen, ids, on: reopened, "replica 1 reopened")
    }

    @Test("two replicas write one field concurrently: each side's version shows its own value, the merged version the winner")
    func concurrentWrites() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let file = try a.write { tx in try tx.insert(File(name: "Ode")) }
        try StoreSpec.sync(a, b)
        let before = a.version
        // Same Lamport time: the higher replica (b) wins the name; a writes the status later.
        try a.write { tx in try tx.update(file, as: File.self) { $0.name = "Ode (a)" } }
        try a.write { tx in try tx.update(file, as: File.self) { $0.status = "ready" } }
        try b.write { tx in try tx.update(file, as: File.self) { $0.name = "Ode (b)"; $0.status = "set aside" } }
        let (onA, onB) = (a.version, b.version)
        try StoreSpec.sync(a, b)
        let merged = a.version
        #expect(b.version == merged)
        for store in [a, b] {
            try store.read { tx throws in
                #expect(try tx.get(File.self, file, at: before) == File(name: "Ode"))
                #expect(try tx.get(File.self, file, at: onA) == File(name: "Ode (a)", status: "ready"))
                #expect(try tx.get(File.self, file, at: onB) == File(name: "Ode (b)", status: "set aside"))
                #expect(try tx.get(File.self, file, at: merged) == File(name: "Ode (b)", status: "ready"))
                #expect(try tx.get(File.self, file, at: merged) == tx.record(File.self, file))
            }
        }
    }

    @Test("a version before the record's creation reads nil; a field first written later is absent before (an optional reads nil)")
    func beforeCreation() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        try a.write { tx in _ = try tx.insert(Folder(name: "Drafts")) }
        let empty = VersionVector(), early = a.version
        let file = try a.write { tx in try tx.insert(File(name: "Ode")) }
        let created = a.version
        try StoreSpec.send(a, to: b)
        let rated = try b.write { tx in try tx.insert(File(name: "Rated", rating: 3)) }
        try b.write { tx in try tx.update(file, as: File.self) { $0.rating = 4 } }
        try StoreSpec.send(b, to: a)
        try a.read { tx throws in
            #expect(try tx.get(File.self, file, at: empty) == nil)
            #expect(try tx.get(File.self, file, at: early) == nil)
            #expect(try tx.get(File.self, file, at: created) == File(name: "Ode"))
            #expect(try tx.get(File.self, file, at: tx.version) == File(name: "Ode", rating: 4))
            #expect(try tx.get(File.self, rated, at: created) == nil)  // made on another replica, later
            #expect(try tx.get(File.self, rated, at: tx.version) == File(name: "Rated", rating: 3))
            #expect(try tx.get(File.self, RecordID(replica: ReplicaID(9), counter: 0), at: tx.version) == nil)
        }
    }

    @Test("inside a write, the write's own changes are not yet in tx.version: the record reads as committed")
    func insideAWrite() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let file = try store.write { tx in try tx.insert(File(name: "Ode")) }
        let read = try store.write { tx in
            try tx.update(file, as: File.self) { $0.name = "Hymn" }
            let new = try tx.insert(File(name: "New"))
            return (try tx.get(File.self, file, at: tx.version), try tx.get(File.self, new, at: tx.version), try tx.get(File.self, file))
        }
        #expect(read.0 == File(name: "Ode") && read.1 == nil && read.2 == File(name: "Hymn"))
    }

    @Test("a version beyond what the store has is refused, naming the replica; another type is refused as by get")
    func beyondTheStoreAndWrongType() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let file = try a.write { tx in try tx.insert(File(name: "Ode")) }
        try b.write { tx in _ = try tx.insert(Folder(name: "B's")) }  // not sent to a
        for version in [b.version, VersionVector([a.replica: a.version[a.replica] + 1])] {
            let error = #expect(throws: StoreError.self) { try a.read { tx in try tx.get(File.self, file, at: version) } }
            guard case .versionBeyondStore(let replica, _, _)? = error else {
                Issue.record("expected versionBeyondStore, got \(String(describing: error))")
                continue
            }
            #expect(version[replica] > a.version[replica])
            // Refused also for a record the store does not have.
            #expect(throws: StoreError.self) {
                try a.read { tx in try tx.get(File.self, RecordID(replica: b.replica, counter: 0), at: version) }
            }
        }
        let error = #expect(throws: StoreError.self) { try a.read { tx in try tx.get(Folder.self, file, at: tx.version) } }
        guard case .wrongType? = error else {
            Issue.record("expected wrongType, got \(String(describing: error))")
            return
        }
    }

    @Test("in pruned history: refused where a field's value then was pruned; read where the current registers prove it")
    func prunedHistory() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let file = try store.write { tx in try tx.insert(File(name: "one")) }
        let kept = try store.write { tx in try tx.insert(File(name: "kept")) }
        let early = store.version
        try store.write { tx in try tx.update(file, as: File.self) { $0.status = "ready" } }
        let pruned = store.version
        try store.write { tx in _ = try tx.insert(Folder(name: "between")) }
        try store.write { tx in try tx.update(file, as: File.self) { $0.name = "two" } }
        let late = store.version
        let later = try store.write { tx in try tx.insert(File(name: "later")) }
        try store.pruneHistory(acknowledged: HistoryAcknowledgements([ReplicaID(99): pruned]))
        for version in [early, pruned] {
            Self.expectPruned(of: store.replica, at: version, keptFrom: pruned) { try store.read { tx in try tx.get(File.self, file, at: version) } }
        }
        try store.read { tx throws in
            // Every field's last write is within these versions.
            #expect(try tx.get(File.self, kept, at: early) == File(name: "kept"))
            #expect(try tx.get(File.self, file, at: late) == File(name: "two", status: "ready"))
            // The kept log below `late` holds a hierarchy operation older than the record's.
            #expect(try tx.get(File.self, later, at: late) == nil)
            #expect(try tx.get(File.self, later, at: tx.version) == File(name: "later"))
        }
    }

    @Test("in pruned history: a name written on another replica after every pruned change is read; one the pruned changes hold is refused")
    func prunedHistoryOutranked() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let file = try a.write { tx in try tx.insert(File(name: "one")) }
        try a.write { tx in try tx.update(file, as: File.self) { $0.status = "ready" } }
        let pruned = a.version
        try a.write { tx in _ = try tx.insert(Folder(name: "kept")) }
        let kept = a.version
        try StoreSpec.sync(a, b)
        try b.write { tx in try tx.update(file, as: File.self) { $0.name = "two" } }
        try StoreSpec.sync(a, b)
        let renamed = a.version
        try a.write { tx in try tx.update(file, as: File.self) { $0.name = "three" } }
        try StoreSpec.send(a, to: b)
        try a.pruneHistory(acknowledged: HistoryAcknowledgements([b.replica: pruned]))
        // B had seen all of A's pruned changes when it renamed, so none of them can beat
        // its name; the status is the current register's.
        #expect(try a.read { tx in try tx.get(File.self, file, at: renamed) } == File(name: "two", status: "ready"))
        // Before B's rename the name then was written in a pruned change.
        Self.expectPruned(of: a.replica, at: kept, keptFrom: pruned) { try a.read { tx in try tx.get(File.self, file, at: kept) } }
        #expect(try b.read { tx in try tx.get(File.self, file, at: kept) } == File(name: "one", status: "ready"))
    }
}
