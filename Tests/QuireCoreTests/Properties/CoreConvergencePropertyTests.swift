import Testing
@testable import QuireCore

/// Seeded, deterministic multi-replica schedules over the core CRDTs: each replica holds
/// a text and a tree, edits both, and receives the others' operations in random batches
/// that are dropped, duplicated, reordered and delayed. At the end everyone receives
/// everything, and all must agree.
struct CoreSchedule {
    var texts: [ReplicatedText]
    var trees: TreeSimulation
    var random: SeededRandom

    init(seed: UInt64) throws {
        random = SeededRandom(seed: seed)
        let count = 2 + Int(random.next() % 4)
        texts = (1...count).map { ReplicatedText(replica: ReplicaID(UInt64($0))) }
        trees = try TreeSimulation(replicaCount: count, seed: seed &* 31, causal: random.next() % 2 == 0)
    }

    /// A local text edit at a scalar or UTF-16 position.
    mutating func textEdit(_ r: Int) throws {
        let text = texts[r]
        if text.count > 0 && random.next() % 3 == 0 {
            let start = Int(random.next() % UInt64(text.count))
            try text.delete(start..<(start + 1 + Int(random.next() % UInt64(min(3, text.count - start)))))
        } else {
            let scalar = Int(random.next() % UInt64(text.count + 1))
            let snippet = sampleTexts[Int(random.next() % UInt64(sampleTexts.count))]
            if random.next() % 2 == 0 {
                let utf16 = text.string.unicodeScalars.prefix(scalar).reduce(0) { $0 + UTF16.width($1) }
                try text.insert(snippet, at: utf16, unit: .utf16)
            } else {
                try text.insert(snippet, at: scalar)
            }
        }
    }

    /// Some of what `sender` has that `r` lacks (or a stale range of it: duplicates),
    /// some operations dropped, the batch shuffled. Missing ones wait as pending.
    mutating func textDelivery(to r: Int, from sender: Int) throws {
        let since = random.next() % 4 == 0 ? VersionVector() : texts[r].version
        var batch = texts[sender].operations(since: since).filter { _ in random.next() % 4 != 0 }
        batch.shuffle(using: &random)
        try texts[r].apply(batch)
    }

    mutating func run(steps: Int) throws {
        for _ in 0..<steps {
            let r = Int(random.next() % UInt64(texts.count))
            switch random.next() % 6 {
            case 0, 1: try textEdit(r)
            case 2: try textDelivery(to: r, from: (r + 1 + Int(random.next() % UInt64(texts.count - 1))) % texts.count)
            case 3, 4: trees.localStep(r)
            default: _ = trees.deliveryStep(r)
            }
        }
        // Everyone receives everything.
        for r in texts.indices {
            for sender in texts.indices where sender != r { texts[r].merge(texts[sender]) }
        }
        for r in texts.indices { texts[r].merge(texts[(r + 1) % texts.count]) }
        trees.exchangeAll()
    }

    /// Why the replicas have not converged or are unsound; empty when all is well.
    var problems: [String] {
        var problems = convergenceFailures(texts) + convergenceViolations(trees.replicas)
        for text in texts {
            problems += text.invariantViolations
            if text.pendingCount != 0 { problems.append("\(text.replica) still has \(text.pendingCount) pending") }
        }
        for r in trees.replicas.indices { problems += treeInvariantViolations(trees.replicas[r]) + trees.problems(r) }
        return problems
    }
}

@Suite("Properties: core CRDT convergence")
struct CoreConvergencePropertyTests {
    @Test("2,000 seeded multi-replica schedules of text and tree edits with lossy, duplicated, reordered delivery all converge")
    func seededSchedules() throws {
        var failures = 0
        for seed in UInt64(1)...2_000 {
            var schedule = try CoreSchedule(seed: seed)
            try schedule.run(steps: 20 + Int(seed % 30))
            let problems = schedule.problems
            #expect(problems.isEmpty, "seed \(seed): \(problems.prefix(5))")
            if !problems.isEmpty { failures += 1 }
            if failures >= 3 { return }
        }
    }

    @Test("the text convergence checker reports two hand-made texts that differ")
    func checkerReportsDivergence() throws {
        let a = ReplicatedText(replica: ReplicaID(1))
        let b = ReplicatedText(replica: ReplicaID(2))
        try a.insert("ab", at: 0)
        b.merge(a)
        #expect(convergenceFailures([a, b]).isEmpty)
        try b.insert("c", at: 1)
        #expect(!convergenceFailures([a, b]).isEmpty)
        a.merge(b)
        #expect(convergenceFailures([a, b]).isEmpty)
    }
}
