import QuireCore
import Testing

@Suite("Text CRDT semantics (FugueMax)")
struct TextSemanticsTests {
    private func pair(_ base: String = "") throws -> (ReplicatedText, ReplicatedText) {
        let first = ReplicatedText(replica: ReplicaID(1))
        if !base.isEmpty { try first.insert(base, at: 0) }
        return (first, first.fork(as: ReplicaID(2)))
    }

    private func mergeBoth(_ a: ReplicatedText, _ b: ReplicatedText) {
        a.merge(b)
        b.merge(a)
    }

    @Test("concurrent inserts at one place are ordered by (replica, counter), whatever the merge order")
    func samePlaceOrder() throws {
        for (firstReplica, secondReplica) in [(ReplicaID(1), ReplicaID(2)), (ReplicaID(2), ReplicaID(1))] {
            let a = ReplicatedText(replica: firstReplica)
            let b = ReplicatedText(replica: secondReplica)
            try a.insert("A", at: 0)
            try b.insert("B", at: 0)
            mergeBoth(a, b)
            let lowerFirst = firstReplica < secondReplica ? "AB" : "BA"
            #expect(a.string == lowerFirst)
            #expect(b.string == lowerFirst)
        }
    }

    @Test("an insert next to a concurrently deleted character lands beside its tombstone")
    func besideTombstones() throws {
        let (a, b) = try pair("abc")
        try a.delete(1..<2)  // a: "ac"
        try b.insert("X", at: 2)  // b: "abXc"
        try b.insert("Y", at: 1)  // b: "aYbXc"
        mergeBoth(a, b)
        #expect(a.string == "aYXc")
        #expect(b.string == "aYXc")
        // An insert right after a tombstone, made locally, keeps its place too.
        try a.insert("Z", at: 2)
        b.merge(a)
        #expect(b.string == a.string)
        #expect(a.string == "aYZXc")
    }

    @Test("two concurrent deletes of one character delete it once")
    func doubleDelete() throws {
        let (a, b) = try pair("abcd")
        try a.delete(1..<3)
        try b.delete(2..<4)
        mergeBoth(a, b)
        #expect(a.string == "a")
        #expect(b.string == "a")
        #expect(a.count == 1 && a.count(in: .utf16) == 1)
    }

    @Test("words typed concurrently at one place never interleave")
    func noInterleaving() throws {
        for seed in 0..<20 {
            let (a, b) = try pair("[]")
            var random = SeededRandom(seed: UInt64(seed))
            let first = "hello there", second = "world peace"
            var typedA = 0, typedB = 0
            // Interleave the keystrokes of both typists in a random order.
            while typedA < first.count || typedB < second.count {
                if typedB == second.count || (typedA < first.count && random.next() % 2 == 0) {
                    try a.insert(String(Array(first)[typedA]), at: 1 + typedA)
                    typedA += 1
                } else {
                    try b.insert(String(Array(second)[typedB]), at: 1 + typedB)
                    typedB += 1
                }
            }
            mergeBoth(a, b)
            #expect(a.string == b.string)
            #expect(["[hello thereworld peace]", "[world peacehello there]"].contains(a.string), "seed \(seed): \(a.string)")
        }
    }

    @Test("a delete of a range keeps characters inserted inside it concurrently")
    func deleteWithConcurrentInsert() throws {
        let (a, b) = try pair("abcdef")
        try a.delete(1..<5)  // a: "af"
        try b.insert("X", at: 3)  // b: "abcXdef"
        mergeBoth(a, b)
        #expect(a.string == "aXf")
        #expect(b.string == "aXf")
    }

    @Test("typing at the start, the end and in the middle of a run keeps runs and text right")
    func localEditing() throws {
        let text = ReplicatedText(replica: ReplicaID(7))
        for (index, character) in "Hello world".enumerated() { try text.insert(String(character), at: index) }
        try text.insert(",", at: 5)
        try text.insert(">> ", at: 0)
        try text.delete(3..<4)  // remove "H"
        try text.replace(3..<8, with: "Howdy")
        #expect(text.string == ">> Howdy world")
        #expect(text.wordCount == 2)
        #expect(try text.string(in: 3..<8) == "Howdy")
    }

    @Test("operations arriving out of order and twice wait for their dependencies, then converge")
    func pendingOperations() throws {
        let a = ReplicatedText(replica: ReplicaID(1))
        try a.insert("abc", at: 0)
        let afterFirst = a.version
        try a.insert("X", at: 1)
        try a.delete(2..<3)
        let early = a.operations(since: afterFirst)
        let all = a.operations(since: VersionVector())
        let b = ReplicatedText(replica: ReplicaID(2))
        #expect(try b.apply(early) == 0)
        #expect(b.pendingCount == 2)
        #expect(b.string.isEmpty)
        try b.apply(all + all)
        #expect(b.pendingCount == 0)
        #expect(b.string == a.string)
        #expect(b.version == a.version)
    }

    @Test("invalid operations are refused with a clear error")
    func invalidOperations() throws {
        let text = ReplicatedText(replica: ReplicaID(1))
        try text.insert("ab", at: 0)
        let bogus = TextOperation.delete(TextDeletion(
            id: OperationID(replica: ReplicaID(9), counter: 0), target: OperationID(replica: ReplicaID(1), counter: 2), length: 1))
        // Its target (counter 2 of replica 1) does not exist yet: it waits rather than fails.
        try text.apply([bogus])
        #expect(text.pendingCount == 1)
        try text.delete(0..<1)  // counter 2 of replica 1 is now a deletion, not a character
        #expect(throws: TextError.self) { try text.apply([]) }
        #expect(text.string == "b")
    }

    @Test("an invalid operation mid-batch is dropped: those before it stay integrated, those after it wait as pending")
    func invalidOperationMidBatch() throws {
        let text = ReplicatedText(replica: ReplicaID(1))
        try text.insert("ab", at: 0)
        try text.delete(0..<1)  // counter 2 of replica 1 is a deletion, not a character
        let other = text.fork(as: ReplicaID(9))
        try other.insert("X", at: 1)
        let valid = other.localOperations(since: 0)
        let invalid = TextOperation.insert(TextInsertion(
            id: OperationID(replica: ReplicaID(10), counter: 0), originLeft: OperationID(replica: ReplicaID(1), counter: 2),
            rightParent: nil, text: "Z"))
        let after = TextOperation.insert(TextInsertion(
            id: OperationID(replica: ReplicaID(11), counter: 0), originLeft: nil, rightParent: nil, text: "Q"))
        #expect(throws: TextError.self) { try text.apply(valid + [invalid, after]) }
        #expect(text.string == "bX")
        #expect(text.pendingCount == 1)
        #expect(try text.apply([]) == 1)
        #expect(text.string.contains("Q") && !text.string.contains("Z"))
    }

    @Test("positions outside the text, or inside a character, throw")
    func badPositions() throws {
        let text = ReplicatedText(replica: ReplicaID(1))
        try text.insert("a😀b", at: 0)
        #expect(throws: TextError.self) { try text.insert("x", at: 4) }
        #expect(throws: TextError.self) { try text.insert("x", at: -1) }
        #expect(throws: TextError.self) { try text.insert("x", at: 2, unit: .utf16) }
        #expect(throws: TextError.self) { try text.delete(0..<3, unit: .utf8) }
        try text.insert("x", at: 3, unit: .utf16)
        #expect(text.string == "a😀xb")
    }
}

@Suite("Two texts merging (docs/text.md)")
struct ReadmeExampleTests {
    @Test("two replicas of a text merge through encoded deltas")
    func readmeExample() throws {
        let laptop = ReplicatedText(replica: ReplicaID(1))
        try laptop.insert("Dear diary, today", at: 0)
        let phone = laptop.fork(as: ReplicaID(2))
        try laptop.insert(" it rained", at: laptop.count)
        try phone.insert("👋 ", at: 0)
        try phone.insert(",", at: phone.count(in: .utf16), unit: .utf16)
        let delta = phone.encodedOperations(since: laptop.version)
        #expect(delta.count < 80)
        try laptop.applyEncoded(delta)
        try phone.applyEncoded(laptop.encodedOperations(since: phone.version))
        #expect(laptop.string == phone.string)
        #expect(laptop.string == "👋 Dear diary, today it rained,")
    }
}
