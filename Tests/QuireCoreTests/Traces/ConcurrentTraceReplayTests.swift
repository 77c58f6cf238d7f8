import QuireTestSupport
import Testing
@testable import QuireCore

/// A random concurrent history: `agents` agents making `transactions` transactions, each
/// on a random version (its agent's previous transaction, often merged with other
/// branches, sometimes an empty-document root), with inserts biased to the start, the end
/// and the middle so that concurrent inserts often land on one position.
///
/// Patches are made on a real replica at the transaction's version, so they always fit;
/// `endContent` is the reference replay's text.
private func randomHistory(seed: UInt64, agents: Int, transactions: Int) throws -> EditingTrace {
    var random = SeededRandom(seed: seed)
    var snapshots: [ReplicatedText] = []
    var latest: [Int: Int] = [:]
    var result: [EditingTrace.Transaction] = []
    for index in 0..<transactions {
        let agent = Int(random.next() % UInt64(agents))
        var parents: [Int] = []
        if let previous = latest[agent] { parents.append(previous) }
        if index > 0 {
            // Merge up to two other transactions (branches join), or none (the branch goes on).
            for _ in 0..<Int(random.next() % 3) {
                let other = Int(random.next() % UInt64(index))
                if !parents.contains(other) { parents.append(other) }
            }
        }
        let text = ReplicatedText(replica: EditingTrace.replica(ofAgent: agent))
        for parent in parents { text.merge(snapshots[parent]) }
        var patches: [EditingTrace.Patch] = []
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let count = text.count
            if count > 0, random.next() % 3 == 0 {
                let start = Int(random.next() % UInt64(count))
                let length = 1 + Int(random.next() % UInt64(min(3, count - start)))
                patches.append(EditingTrace.Patch(position: start, deleteCount: length, text: ""))
            } else {
                let position = switch random.next() % 4 {
                case 0: 0
                case 1: count
                case 2: count / 2
                default: Int(random.next() % UInt64(count + 1))
                }
                let inserted = sampleTexts[Int(random.next() % UInt64(sampleTexts.count))]
                patches.append(EditingTrace.Patch(position: position, deleteCount: 0, text: inserted))
            }
            let patch = patches[patches.count - 1]
            if patch.deleteCount > 0 { try text.delete(patch.position..<patch.position + patch.deleteCount) }
            if !patch.text.isEmpty { try text.insert(patch.text, at: patch.position) }
        }
        snapshots.append(text)
        latest[agent] = index
        result.append(EditingTrace.Transaction(parents: parents, agent: agent, patches: patches))
    }
    var trace = EditingTrace(endContent: "", isConcurrent: true, transactions: result)
    trace.endContent = try trace.referenceReplay().string
    return trace
}

/// Why `replay` disagrees with the reference per-agent replay on `trace`; `nil` when both
/// give the same text.
private func divergence(of trace: EditingTrace, replay: (EditingTrace) throws -> String) throws -> String? {
    let expected = try trace.referenceReplay().string
    let found = try replay(trace)
    guard found != expected else { return nil }
    let common = zip(expected.unicodeScalars, found.unicodeScalars).prefix { $0 == $1 }.count
    return "expected \(expected.debugDescription), got \(found.debugDescription) (first difference at scalar \(common))"
}

@Suite("Concurrent trace replay on one document")
struct ConcurrentTraceReplayTests {
    @Test("random concurrent histories replay to the same text as the per-agent reference", arguments: 0..<40)
    func randomHistories(seed: UInt64) throws {
        let trace = try randomHistory(seed: seed, agents: 2 + Int(seed % 4), transactions: 12 + Int(seed % 30))
        let problem = try divergence(of: trace) { try $0.replay().string }
        #expect(problem == nil, "seed \(seed): \(problem ?? "")")
        // The engine's own item list agrees with the replica it returns.
        var engine = ConcurrentTraceReplay(trace: trace)
        let replica = try engine.run(progress: nil, progressStride: 1)
        #expect(engine.finalText == replica.string)
        #expect(replica.invariantViolations.isEmpty)
        // The same operations (IDs, origins, targets) as the per-agent replicas made.
        #expect(characterOperations(replica) == characterOperations(try trace.referenceReplay()))
    }

    @Test("the comparison catches a wrong replay: one that ignores concurrency")
    func checkerCatchesWrongReplay() throws {
        var caught = 0
        for seed in UInt64(0)..<10 {
            let trace = try randomHistory(seed: seed, agents: 3, transactions: 20)
            // Wrong on purpose: every patch applied in trace order to one document.
            let problem = try divergence(of: trace) { trace in
                let text = ReplicatedText(replica: ReplicaID(1))
                for patch in trace.transactions.flatMap(\.patches) {
                    let start = min(patch.position, text.count)
                    let end = min(start + patch.deleteCount, text.count)
                    if end > start { try text.delete(start..<end) }
                    if !patch.text.isEmpty { try text.insert(patch.text, at: start) }
                }
                return text.string
            }
            if problem != nil { caught += 1 }
        }
        #expect(caught >= 5, "only \(caught) of 10 histories told the wrong replay apart")
    }

    @Test("concurrent inserts at one position are ordered as the per-agent replay orders them")
    func concurrentInsertsAtOnePosition() throws {
        // Three roots type at the start of the empty document; a fourth merges them and types between.
        let trace = EditingTrace(endContent: "", isConcurrent: true, transactions: [
            .init(parents: [], agent: 2, patches: [.init(position: 0, deleteCount: 0, text: "c")]),
            .init(parents: [], agent: 0, patches: [.init(position: 0, deleteCount: 0, text: "a")]),
            .init(parents: [], agent: 1, patches: [.init(position: 0, deleteCount: 0, text: "b")]),
            .init(parents: [0, 1, 2], agent: 3, patches: [.init(position: 1, deleteCount: 1, text: "xy")]),
            .init(parents: [1], agent: 0, patches: [.init(position: 1, deleteCount: 0, text: "z")]),
            .init(parents: [3, 4], agent: 3, patches: [.init(position: 0, deleteCount: 0, text: "<")]),
        ])
        let expected = try trace.referenceReplay().string
        #expect(try trace.replay().string == expected)
        #expect(expected.unicodeScalars.count == 6)
    }

    @Test("a patch that does not fit the version it edits is refused, naming the transaction")
    func patchOutOfRangeAtItsVersion() throws {
        // Transaction 1 is a root: its document is empty, although the merged one is not.
        let trace = EditingTrace(endContent: "", isConcurrent: true, transactions: [
            .init(parents: [], agent: 0, patches: [.init(position: 0, deleteCount: 0, text: "ab")]),
            .init(parents: [], agent: 1, patches: [.init(position: 0, deleteCount: 1, text: "")]),
        ])
        #expect {
            try trace.replay()
        } throws: { error in
            guard case TraceError.patchOutOfRange(let transaction, _, let length) = error else { return false }
            return transaction == 1 && length == 0
        }
    }

    @Test("a parent that is not an earlier transaction is refused, naming the transaction")
    func badParent() throws {
        for parent in [1, 5, -1] {
            let trace = EditingTrace(endContent: "", isConcurrent: true, transactions: [
                .init(parents: [], agent: 0, patches: [.init(position: 0, deleteCount: 0, text: "a")]),
                .init(parents: [parent], agent: 1, patches: []),
            ])
            #expect {
                try trace.replay()
            } throws: { error in
                guard case TraceError.badParent(let transaction, let found) = error else { return false }
                return transaction == 1 && found == parent
            }
        }
    }

    @Test("an agent's transaction that does not follow its previous one is refused as the reference refuses it")
    func agentLeavesItsChain() throws {
        let trace = EditingTrace(endContent: "", isConcurrent: true, transactions: [
            .init(parents: [], agent: 0, patches: [.init(position: 0, deleteCount: 0, text: "a")]),
            .init(parents: [], agent: 0, patches: [.init(position: 0, deleteCount: 0, text: "b")]),
        ])
        var expected = ""
        do { _ = try trace.referenceReplay() } catch { expected = "\(error)" }
        #expect(expected.hasPrefix("transaction 1:"))
        #expect {
            try trace.replay()
        } throws: { error in
            "\(error)" == expected
        }
    }
}
