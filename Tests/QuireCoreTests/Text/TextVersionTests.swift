@testable import QuireCore
import Testing

@Suite("Text versions")
struct TextVersionTests {
    /// A random history on 1–3 replicas (forks, full and partial merges) with the text
    /// each replica had after each step, and every replica merged into one at the end.
    struct History {
        var snapshots: [(version: VersionVector, string: String)] = []
        var merged: ReplicatedText

        init(seed: Int, steps: Int = 160) throws {
            var random = SeededRandom(seed: UInt64(seed))
            let replicaLimit = 1 + seed % 3
            // Short runs on some seeds, so that runs split and the run bound is crossed.
            let root = seed % 2 == 0 ? ReplicatedText(replica: ReplicaID(1)) : ReplicatedText(replica: ReplicaID(1), maximumRunLength: 3)
            var replicas = [root]
            var recorded: [[VersionVector]] = [[root.version]]
            snapshots = [(root.version, "")]
            for _ in 0..<steps {
                let actor = Int(random.next() % UInt64(replicas.count))
                let text = replicas[actor]
                switch random.next() % 12 {
                case 0 where replicas.count < replicaLimit:
                    replicas.append(text.fork(as: ReplicaID(UInt64(replicas.count + 1))))
                    recorded.append([text.version])
                case 1...2 where replicas.count > 1:
                    // Everything another replica has, or its operations up to one of its
                    // earlier versions.
                    let other = Int(random.next() % UInt64(replicas.count))
                    let versions = recorded[other]
                    if random.next() % 2 == 0 {
                        text.merge(replicas[other])
                    } else {
                        let upTo = versions[Int(random.next() % UInt64(versions.count))]
                        try text.apply(replicas[other].operations(since: text.version, upTo: upTo))
                    }
                default:
                    try randomEdit(text, using: &random)
                }
                recorded[actor].append(text.version)
                snapshots.append((text.version, text.string))
            }
            for replica in replicas { root.merge(replica) }
            merged = root
        }
    }

    @Test("the text at every version recorded while typing, forking and merging on 1–3 replicas", arguments: 0..<12)
    func stringsAtRecordedVersions(seed: Int) throws {
        let history = try History(seed: seed)
        // A loaded copy too, whose logs stay encoded until the first version is asked for.
        let loaded = try ReplicatedText(replica: ReplicaID(100), state: history.merged.encodedState())
        for (version, expected) in history.snapshots {
            for text in [history.merged, loaded] {
                let found = try text.string(at: version)
                #expect(sameScalars(found, expected), "seed \(seed), at \(version): \(found.debugDescription), expected \(expected.debugDescription)")
            }
        }
        // A fork at a version replays exactly its operations.
        for (version, expected) in history.snapshots.suffix(5) {
            let fork = try history.merged.fork(at: version, as: ReplicaID(101))
            #expect(fork.version == version)
            #expect(sameScalars(fork.string, expected))
        }
        #expect(try sameScalars(history.merged.string(at: history.merged.version), history.merged.string))
        #expect(try history.merged.string(at: VersionVector()) == "")
    }

    @Test("a diff applied to the text at one version gives the text at another, for random pairs in both directions", arguments: 0..<12)
    func diffsBetweenRandomVersions(seed: Int) throws {
        let history = try History(seed: seed)
        var random = SeededRandom(seed: UInt64(seed) &+ 1000)
        let snapshots = history.snapshots
        for _ in 0..<60 {
            let old = snapshots[Int(random.next() % UInt64(snapshots.count))]
            let new = snapshots[Int(random.next() % UInt64(snapshots.count))]
            let diff = try history.merged.diff(from: old.version, to: new.version)
            #expect(diffFailures(diff, from: old.string, to: new.string) == [], "seed \(seed), \(old.version) → \(new.version)")
        }
        let last = snapshots[snapshots.count - 1]
        #expect(try history.merged.diff(from: last.version, to: last.version).isEmpty)
    }

    @Test("a diff counts UTF-16 offsets across surrogate pairs and edits between two concurrent versions")
    func diffWithSurrogatePairsAndConcurrentVersions() throws {
        let a = ReplicatedText(replica: ReplicaID(1))
        try a.insert("a😀b🇫🇷c", at: 0)
        let base = a.version
        let b = a.fork(as: ReplicaID(2))
        try a.insert("👍", at: 2)       // after 😀
        try b.delete(3..<5)            // 🇫🇷
        try b.insert("é", at: 0)
        a.merge(b)
        let diff = try a.diff(from: base, to: a.version)
        #expect(diff.edits == [
            TextDiff.Edit(deletedRange: 0..<0, deletedUTF16Range: 0..<0, insertedText: "é", insertedRange: 0..<1, insertedUTF16Range: 0..<1),
            TextDiff.Edit(deletedRange: 2..<2, deletedUTF16Range: 3..<3, insertedText: "👍", insertedRange: 3..<4, insertedUTF16Range: 4..<6),
            TextDiff.Edit(deletedRange: 3..<5, deletedUTF16Range: 4..<8, insertedText: "", insertedRange: 5..<5, insertedUTF16Range: 7..<7),
        ])
        // Between the two concurrent versions: one side's edits undone, the other's made.
        let mine = a.operations(since: base).filter { $0.id.replica == ReplicaID(1) }
        var aOnly = base
        for operation in mine { aOnly.record(operation.id, count: UInt64(operation.length)) }
        let across = try a.diff(from: aOnly, to: b.version)
        #expect(diffFailures(across, from: try a.string(at: aOnly), to: b.string) == [])
        #expect(try sameScalars(a.string(at: aOnly), "a😀👍b🇫🇷c"))
    }

    @Test("the diff checker rejects a wrong diff")
    func diffCheckerFails() throws {
        let text = ReplicatedText(replica: ReplicaID(1))
        try text.insert("x😀y", at: 0)
        let before = text.version
        try text.replace(2..<3, with: "z")
        try text.insert("!", at: 0)
        let diff = try text.diff(from: before, to: text.version)
        #expect(diffFailures(diff, from: "x😀y", to: "!x😀z") == [])
        var wrongText = diff
        wrongText.edits[1].insertedText = "w"
        var wrongUTF16 = diff
        wrongUTF16.edits[1].deletedUTF16Range = 2..<3  // as if 😀 were one unit
        var missingEdit = diff
        missingEdit.edits.removeFirst()
        var wrongPlace = diff
        wrongPlace.edits[1].insertedRange = 2..<3
        for wrong in [wrongText, wrongUTF16, missingEdit, wrongPlace] {
            #expect(diffFailures(wrong, from: "x😀y", to: "!x😀z") != [])
        }
        #expect(diffFailures(diff, from: "x😀y", to: "!x😀y") != [])
    }

    @Test("restore brings back the old text as new operations, and a concurrent edit elsewhere survives the merge")
    func restoreMergesWithConcurrentEdit() throws {
        let a = ReplicatedText(replica: ReplicaID(1))
        try a.insert("Hello world", at: 0)
        let draft = a.version
        try a.replace(6..<11, with: "there")
        let b = a.fork(as: ReplicaID(2))
        try b.insert(" — B", at: b.count)   // right after "there", which the restore deletes
        try b.insert("Oh, ", at: 0)
        let before = a.version
        let operations = try a.restore(to: draft)
        #expect(a.string == "Hello world")
        #expect(operations == a.operations(since: before))
        #expect(operations.allSatisfy { $0.id.replica == ReplicaID(1) })
        // The restored characters are new ones: the old "world" stays deleted.
        #expect(try a.string(at: draft) == "Hello world")
        #expect(a.operations(since: before).contains { if case .insert = $0 { true } else { false } })

        let peer = a.fork(as: ReplicaID(3))
        try b.apply(operations)
        a.merge(b)
        #expect(a.string == "Oh, Hello world — B")
        #expect(convergenceFailures([a, b]) == [])
        #expect(convergenceFailures([peer, a]).isEmpty == false)  // the peer lacks B's edit
        peer.merge(a)
        #expect(convergenceFailures([peer, a]) == [])
    }

    @Test("restore on one replica merged with random concurrent edits on another keeps both", arguments: 0..<12)
    func restoreWithRandomConcurrentEdits(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed))
        let a = ReplicatedText(replica: ReplicaID(1))
        var versions: [(VersionVector, String)] = [(a.version, "")]
        for _ in 0..<60 {
            try randomEdit(a, using: &random)
            versions.append((a.version, a.string))
        }
        let b = a.fork(as: ReplicaID(2))
        // Markers no sample text holds: B's edits, found by value after the merge.
        for _ in 0..<3 { try b.insert("§", at: Int(random.next() % UInt64(b.count + 1))) }
        let (target, expected) = versions[Int(random.next() % UInt64(versions.count))]
        try a.restore(to: target)
        #expect(sameScalars(a.string, expected), "seed \(seed)")
        a.merge(b)
        b.merge(a)
        #expect(convergenceFailures([a, b]) == [])
        // B's characters all survive, and so does everything the restore left or typed.
        #expect(a.string.unicodeScalars.filter { $0 == "§" }.count == 3, "seed \(seed): \(a.string.debugDescription)")
        let withoutMarkers = String(String.UnicodeScalarView(a.string.unicodeScalars.filter { $0 != "§" }))
        #expect(sameScalars(withoutMarkers, expected), "seed \(seed)")
    }

    @Test("restoring the current version makes no operations")
    func restoreToCurrentIsNothing() throws {
        let text = ReplicatedText(replica: ReplicaID(1))
        try text.insert("same", at: 0)
        let counter = text.localCounter
        #expect(try text.restore(to: text.version).isEmpty)
        #expect(text.localCounter == counter)
    }

    @Test("a version that is not causally closed, or reaches past the history, is refused by string, diff, fork and restore")
    func versionsThatCannotBeShown() throws {
        let a = ReplicatedText(replica: ReplicaID(1))
        try a.insert("ab", at: 0)
        let b = a.fork(as: ReplicaID(2))
        try b.insert("x", at: 1)    // after A's "a"
        try b.delete(0..<1)         // A's "a"
        a.merge(b)
        let full = a.version
        let before = a.string

        // B's insertion without A's "a", which it follows.
        #expect(throws: TextError.versionNotCausallyClosed(
            operation: OperationID(replica: ReplicaID(2), counter: 0), missing: OperationID(replica: ReplicaID(1), counter: 0))) {
            try a.string(at: VersionVector([ReplicaID(2): 1]))
        }
        // B's insertion with A's "a" but not A's "b", its right parent.
        #expect(throws: TextError.versionNotCausallyClosed(
            operation: OperationID(replica: ReplicaID(2), counter: 0), missing: OperationID(replica: ReplicaID(1), counter: 1))) {
            try a.string(at: VersionVector([ReplicaID(1): 1, ReplicaID(2): 2]))
        }
        #expect(throws: TextError.versionBeyondHistory(replica: ReplicaID(1), counter: 3, known: 2)) {
            try a.diff(from: VersionVector(), to: VersionVector([ReplicaID(1): 3]))
        }
        #expect(throws: TextError.versionBeyondHistory(replica: ReplicaID(7), counter: 1, known: 0)) {
            try a.fork(at: VersionVector([ReplicaID(7): 1]), as: ReplicaID(8))
        }
        #expect(throws: TextError.self) { try a.restore(to: VersionVector([ReplicaID(2): 1])) }
        #expect(a.version == full)
        #expect(a.string == before)
        // The message says what to do.
        let message = TextError.versionNotCausallyClosed(
            operation: OperationID(replica: ReplicaID(2), counter: 0), missing: OperationID(replica: ReplicaID(1), counter: 0)).description
        #expect(message.contains("include"))

        // The closed version within a given one: cut back to what the text can show.
        let closed = a.causallyClosedVersion(within: VersionVector([ReplicaID(1): 1, ReplicaID(2): 2]))
        #expect(closed == VersionVector([ReplicaID(1): 1]))
        #expect(try a.string(at: closed) == "a")
        #expect(a.causallyClosedVersion(within: full) == full)
    }
}
