@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Delta files: runs of keystroke changes")
struct DeltaRunTests {
    private typealias File = StoreSpec.File

    /// A history of one change per keystroke: typing, backspacing, a paste, a field write
    /// (which ends a run) and typing elsewhere in the text. Returns the file and the
    /// writer's version after each change.
    private func typeHistory(into writer: Store) throws -> (file: RecordID, versions: [VersionVector]) {
        var versions = [writer.version]
        let file = try writer.write { tx in try tx.insert(File(name: "Paper", status: "draft", rating: 0)) }
        versions.append(writer.version)
        let content = file.text("content")
        func keystroke(_ body: (borrowing StoreWriter) throws -> Void) throws {
            try writer.write { tx in try body(tx) }
            versions.append(writer.version)
        }
        for character in "Hello wörld" { try keystroke { tx in try tx.insert(String(character), at: try tx.length(of: content), in: content) } }
        for _ in 0..<3 { try keystroke { tx in try tx.delete((try tx.length(of: content) - 1)..<(try tx.length(of: content)), in: content) } }
        try keystroke { tx in try tx.insert(" pasted 😀 text", at: try tx.length(of: content), in: content) }
        try keystroke { tx in try tx.update(file, as: File.self) { $0.status = "editing" } }
        for character in "ab" { try keystroke { tx in try tx.insert(String(character), at: 0, in: content) } }
        try keystroke { tx in try tx.delete(3..<4, in: content) }  // Delete key, forwards
        try keystroke { tx in try tx.delete(3..<4, in: content) }
        return (file, versions)
    }

    private func runs(in delta: [UInt8]) throws -> [DeltaRun] {
        try DeltaFile.decode(delta).changes.compactMap { if case .run(let run) = $0 { run } else { nil } }
    }

    @Test("a keystroke history travels as runs, cut at every change boundary, and imports exactly as typed")
    func cutAtEveryBoundary() throws {
        let writer = try Replicas(1)
        defer { writer.close() }
        let (_, versions) = try typeHistory(into: writer[0])
        let whole = try #require(try writer[0].exportDelta())
        #expect(try runs(in: whole).count == 2, "one run before the field write, one after")
        let expected = try StoreSpec.dump(writer[0])

        for cut in versions.indices.dropLast() {
            let receiver = try Replicas(2)  // replica 2 receives
            defer { receiver.close() }
            // The changes up to the cut, one file each, then the rest in one file.
            for index in 0..<cut {
                try receiver[1].importDelta(try single(of: writer[0], at: versions[index]))
            }
            #expect(receiver[1].version == versions[cut])
            let rest = try #require(try writer[0].exportDelta(since: versions[cut]))
            let report = try receiver[1].importDelta(rest)
            #expect(report.applied.count == versions.count - 1 - cut)
            #expect(report.pending.isEmpty)
            #expect(try StoreSpec.dump(receiver[1]) == expected, "cut after \(cut) changes")
            // The whole history again: a partially known run for the cut-off store before,
            // nothing new now.
            let again = try receiver[1].importDelta(whole)
            #expect(again.applied.isEmpty && again.alreadyKnown.count == versions.count - 1)
            _ = try receiver.reopen(1)
            #expect(try StoreSpec.dump(receiver[1]) == expected, "cut after \(cut) changes, reopened")
        }
    }

    @Test("a partially known run is trimmed: the known changes are compared and skipped, the rest applied")
    func partiallyKnownRun() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (writer, receiver) = (replicas[0], replicas[1])
        let (_, versions) = try typeHistory(into: writer)
        for index in 0..<6 {
            try receiver.importDelta(try single(of: writer, at: versions[index]))
        }
        let whole = try #require(try writer.exportDelta())
        let report = try receiver.importDelta(whole)
        #expect(report.alreadyKnown.count == 6)
        #expect(report.applied.count == versions.count - 1 - 6)
        #expect(report.applied.first == ChangeID(replica: ReplicaID(1), counter: versions[6][ReplicaID(1)]))
        #expect(try StoreSpec.dump(receiver) == StoreSpec.dump(writer))
    }

    @Test("a run whose first change waits for another replica's change is pending, across a reopen, until it arrives")
    func pendingRun() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let file = try a.write { tx in try tx.insert(File(name: "Shared")) }
        let base = try #require(try a.exportDelta())
        try b.importDelta(base)
        try replicas[2].importDelta(base)
        let beforeTitle = a.version
        try a.write { tx in try tx.update(file, as: File.self) { $0.status = "final" } }
        let fromA = try #require(try a.exportDelta(since: beforeTitle))
        try b.importDelta(fromA)
        let bBefore = b.version
        for character in "typed by b" {
            try b.write { tx in try tx.insert(String(character), at: try tx.length(of: file.text("content")), in: file.text("content")) }
        }
        let run = try #require(try b.exportDelta(since: bBefore))
        #expect(try runs(in: run).first?.dependencies[ReplicaID(1)] == bBefore[ReplicaID(1)])

        let report = try replicas[2].importDelta(run)
        #expect(report.applied.isEmpty && report.pending.count == 1)
        let c = try replicas.reopen(2)
        #expect(try c.read { tx in try tx.string(of: file.text("content")) } == "")
        let arrived = try c.importDelta(fromA)
        #expect(arrived.applied.count == 1 + "typed by b".count && arrived.pending.isEmpty)
        #expect(try c.read { tx in try tx.string(of: file.text("content")) } == "typed by b")
        #expect(try StoreSpec.dump(c) == StoreSpec.dump(b))
    }

    @Test("a run that differs from the changes a store has under its IDs is refused; one whose operations do not cut at its lengths too")
    func tamperedRun() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let (writer, receiver, fresh) = (replicas[0], replicas[1], replicas[2])
        _ = try typeHistory(into: writer)
        let whole = try #require(try writer.exportDelta())
        try receiver.importDelta(whole)
        let before = try StoreSpec.dump(receiver)

        // Another history under the same IDs: one Lamport time changed.
        var file = try DeltaFile.decode(whole)
        let position = try #require(file.changes.firstIndex { if case .run = $0 { true } else { false } })
        guard case .run(var run) = file.changes[position] else { return }
        run.lamportSteps[0].value += 1
        file.changes[position] = .run(run)
        #expect {
            try receiver.importDelta(file.encoded())
        } throws: { error in
            "\(error)".contains("cloned replica")
        }
        #expect(try StoreSpec.dump(receiver) == before)

        // Lengths that do not add up to the operations: refused by any store.
        guard case .run(var cut) = try DeltaFile.decode(whole).changes[position] else { return }
        cut.lengths[0].value += 1
        var broken = try DeltaFile.decode(whole)
        broken.changes[position] = .run(cut)
        let emptyBefore = try StoreSpec.dump(fresh)
        #expect {
            try fresh.importDelta(broken.encoded())
        } throws: { error in
            "\(error)".contains("counters")
        }
        #expect(try StoreSpec.dump(fresh) == emptyBefore)
    }

    @Test("two replicas typing one change per keystroke converge whatever order and cuts their files arrive in", arguments: [1, 2, 3])
    func convergence(seed: UInt64) throws {
        let replicas = try Replicas(4)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let file = try a.write { tx in try tx.insert(File(name: "Shared")) }
        try b.importDelta(try #require(try a.exportDelta()))
        let content = file.text("content")
        var random = SplitMix64(seed: seed)
        var files: [[UInt8]] = []
        var marks: [[VersionVector]] = [[], []]
        for round in 0..<60 {
            let side = Int(random.next() % 2)
            let store = side == 0 ? a : b
            try store.write { tx in
                let length = try tx.length(of: content)
                if length > 0, random.next() % 4 == 0 {
                    let at = Int(random.next() % UInt64(length))
                    try tx.delete(at..<(at + 1), in: content)
                } else {
                    let at = random.next() % 3 == 0 ? Int(random.next() % UInt64(length + 1)) : length
                    try tx.insert(String(UnicodeScalar(UInt8(97 + random.next() % 26))), at: at, in: content)
                }
            }
            marks[side].append(store.version)
            // Now and then a file since some earlier version: runs cut anywhere, overlapping.
            if round % 7 == 6 {
                for (side, store) in [a, b].enumerated() {
                    let earlier = marks[side]
                    let since = earlier.isEmpty ? VersionVector() : earlier[Int(random.next() % UInt64(earlier.count))]
                    if let delta = try store.exportDelta(since: since) { files.append(delta) }
                }
            }
            // And sometimes the two exchange what they have.
            if round % 11 == 10 {
                if let delta = try a.exportDelta(since: b.version) { try b.importDelta(delta) }
                if let delta = try b.exportDelta(since: a.version) { try a.importDelta(delta) }
            }
        }
        for store in [a, b] { if let delta = try store.exportDelta() { files.append(delta) } }
        if let delta = try a.exportDelta(since: b.version) { try b.importDelta(delta) }
        if let delta = try b.exportDelta(since: a.version) { try a.importDelta(delta) }
        let expected = try a.read { tx in try tx.string(of: content) }
        #expect(try b.read { tx in try tx.string(of: content) } == expected)

        for receiver in [replicas[2], replicas[3]] {
            var order = files
            for index in order.indices.reversed() {
                order.swapAt(index, Int(random.next() % UInt64(index + 1)))
            }
            // A compact file from a replica the receiver has not met waits for an earlier one,
            // as a sync folder would retry it.
            var progress = true
            while progress, !order.isEmpty {
                progress = false
                var waiting: [[UInt8]] = []
                for delta in order {
                    do {
                        try receiver.importDelta(delta)
                        progress = true
                    } catch DeltaFileError.unknownSender {
                        waiting.append(delta)
                    }
                }
                order = waiting
            }
            #expect(order.isEmpty)
            #expect(receiver.version == a.version)
            #expect(try receiver.read { tx in try tx.string(of: content) } == expected)
            #expect(try Set(receiver.changes()) == Set(a.changes()))
        }
        #expect(try StoreSpec.dump(replicas[2]).records == StoreSpec.dump(replicas[3]).records)
        #expect(try StoreSpec.dump(replicas[2]).records == StoreSpec.dump(a).records)
    }

    @Test("a Backspace's file from an earlier build, its one-character deletion flagged backward, is the change the store has, not a clone")
    func backspaceFlaggedBackward() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (writer, receiver) = (replicas[0], replicas[1])
        let (file, versions) = try typeHistory(into: writer)
        try receiver.importDelta(try #require(try writer.exportDelta()))  // runs: Backspaces joined
        let before = try StoreSpec.dump(receiver)

        // The second Backspace (change 13; changes 12-14 are the three), as its own file.
        let current = try single(of: writer, at: versions[13])
        func withTextOperations(_ edit: (inout [UInt8]) -> Void) throws -> [UInt8] {
            var file = try DeltaFile.decode(current)
            guard case .change(var change) = file.changes[0],
                case .text(let record, let field, var encoded)? = change.operations.first
            else {
                Issue.record("the keystroke's file holds no text change: \(file.changes)")
                return current
            }
            edit(&encoded)
            change.operations[0] = .text(record: record, field: field, encoded: encoded)
            file.changes[0] = .change(change)
            return file.encoded()
        }
        // One operation (count byte 1), a deletion of this replica's character, forward.
        let legacy = try withTextOperations { encoded in
            #expect(encoded[0] == 1 && encoded[1] == 1)
            encoded[1] |= 2  // flagged backward, as builds before 2026-12-03 wrote a Backspace after another
        }
        #expect(legacy != current)
        let report = try receiver.importDelta(legacy)
        #expect(report.applied.isEmpty)
        #expect(report.alreadyKnown == [ChangeID(replica: writer.replica, counter: versions[13][writer.replica])])
        #expect(try StoreSpec.dump(receiver) == before)

        // The comparison still tells another change from it: another target is refused.
        let other = try withTextOperations { encoded in encoded[encoded.count - 1] &+= 1 }
        #expect {
            try receiver.importDelta(other)
        } throws: { error in
            "\(error)".contains("cloned replica")
        }
        #expect(try StoreSpec.dump(receiver) == before)

        // Waiting as pending (the first Backspace has not arrived), the old spelling meets
        // the new one: the same change, kept once; then the gap closes.
        let late = try Replicas(2)
        defer { late.close() }
        for index in 0..<12 { try late[1].importDelta(try single(of: writer, at: versions[index])) }
        #expect(try late[1].importDelta(legacy).pending.count == 1)
        #expect(try late[1].importDelta(current).pending.count == 1)
        let closing = try late[1].importDelta(try single(of: writer, at: versions[12]))
        #expect(closing.applied.count == 2 && closing.pending.isEmpty)
        #expect(late[1].version == versions[14])
        let content = file.text("content")
        #expect(try late[1].read { tx in try tx.string(of: content) } == writer.read { tx in try tx.string(of: content, at: versions[14]) })
    }

    @Test("a run imported whole is logged with the bytes and replica table it came in: it reads back, reopens and travels on unchanged")
    func runLoggedAsItCame() throws {
        let replicas = try Replicas(4)
        defer { replicas.close() }
        // Replica 1 makes the record; replica 2 types into it one change per keystroke, so
        // its runs' tables name replica 1 (the record's), which the log's own would too.
        let file = try replicas[0].write { tx in try tx.insert(File(name: "Shared", status: "draft", rating: 0)) }
        try replicas[1].importDelta(try #require(try replicas[0].exportDelta()))
        let content = file.text("content")
        for character in "typed on the second device" {
            try replicas[1].write { tx in try tx.insert(String(character), at: try tx.length(of: content), in: content) }
        }
        for _ in 0..<6 {
            try replicas[1].write { tx in try tx.delete((try tx.length(of: content) - 1)..<(try tx.length(of: content)), in: content) }
        }
        let expected = try replicas[1].read { tx in try tx.string(of: content) }
        let history = try #require(try replicas[1].exportDelta(since: replicas[0].version))
        #expect(try runs(in: history).count == 1)

        try replicas[2].importDelta(try #require(try replicas[0].exportDelta()))
        try replicas[2].importDelta(history)
        #expect(try Set(replicas[2].changes()) == Set(replicas[1].changes()))
        let reopened = try replicas.reopen(2)
        #expect(try reopened.read { tx in try tx.string(of: content) } == expected)
        #expect(try reopened.verify().isHealthy)
        // Relayed from the third store's log to a fourth, whole.
        try replicas[3].importDelta(try #require(try reopened.exportDelta()))
        #expect(try replicas[3].read { tx in try tx.string(of: content) } == expected)
        #expect(try StoreSpec.dump(replicas[3]).records == StoreSpec.dump(replicas[1]).records)
    }

    @Test("joining text operations and cutting them at the changes' lengths gives every change's operations back")
    func joinAndSplit() throws {
        let replica = ReplicaID(7)
        func id(_ counter: UInt64) -> OperationID { OperationID(replica: replica, counter: counter) }
        let groups: [[TextOperation]] = [
            [.insert(TextInsertion(id: id(0), originLeft: nil, rightParent: nil, text: "a"))],
            [.insert(TextInsertion(id: id(1), originLeft: id(0), rightParent: nil, text: "bé"))],
            [.delete(TextDeletion(id: id(3), target: id(2), length: 1))],  // backspace
            [.delete(TextDeletion(id: id(4), target: id(1), length: 1))],  // backspace
            [.delete(TextDeletion(id: id(5), target: id(0), length: 1))],  // backspace
            [.insert(TextInsertion(id: id(6), originLeft: nil, rightParent: id(0), text: "x"))],
            [.delete(TextDeletion(id: id(7), target: id(6), length: 1, isBackward: true))],  // kept as it is
        ]
        let joined = TextOperation.concatenated(groups)
        #expect(joined.count == 4)
        let lengths = groups.map { $0.reduce(UInt64(0)) { $0 + UInt64($1.length) } }
        #expect(TextOperation.split(joined, lengths: lengths) == groups)
        #expect(TextOperation.split(joined, lengths: lengths.dropLast() + [2]) == nil)
    }
}

/// The delta file of the one change of `store` that starts at `version`.
private func single(of store: Store, at version: VersionVector) throws -> [UInt8] {
    try store.exportDelta(change: ChangeID(replica: ReplicaID(1), counter: version[ReplicaID(1)]))
}
