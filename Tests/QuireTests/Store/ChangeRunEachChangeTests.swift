@testable import Quire
import QuireCore
import Testing

@Suite("Change runs: each change summed without being made")
struct ChangeRunEachChangeTests {
    @Test("forEachChange gives every change's ID, Lamport time, wall-clock time and counts as the expanded changes have them, operations cut mid-way")
    func matchesExpandedChanges() throws {
        let replica = ReplicaID(7)
        let text = TextID(record: RecordID(replica: replica, counter: 0), field: "content")
        let operations: [TextOperation] = [
            .insert(TextInsertion(id: OperationID(replica: replica, counter: 10), originLeft: nil, rightParent: nil, text: "abcdéf")),
            .delete(TextDeletion(id: OperationID(replica: replica, counter: 16), target: OperationID(replica: replica, counter: 15), length: 3, isBackward: true)),
            .insert(TextInsertion(id: OperationID(replica: replica, counter: 19), originLeft: OperationID(replica: replica, counter: 11), rightParent: nil, text: "xy")),
        ]
        // Six changes of 2, 2, 2, 1, 2 and 2 counters: the second cuts the first insert,
        // the fourth takes one deletion, the fifth one deletion and one insertion.
        let run = try ChangeRun(
            id: ChangeID(replica: replica, counter: 40), lamport: 100,
            lamportSteps: [.init(value: 1, times: 2), .init(value: 4, times: 1), .init(value: 2, times: 2)],
            lengths: [.init(value: 2, times: 3), .init(value: 1, times: 1), .init(value: 2, times: 2)],
            count: 6, dependencies: VersionVector([ReplicaID(3): 5]), text: text, operations: operations,
            time: 1_780_000_000, timeSteps: [.init(value: 0, times: 2), .init(value: 3, times: 1), .init(value: 1, times: 2)])
        var summaries: [ChangeRun.ChangeSummary] = []
        run.forEachChange { summaries.append($0) }
        let expanded = run.changes
        #expect(summaries.map(\.id) == expanded.map(\.id))
        #expect(summaries.map(\.lamport) == expanded.map(\.lamport))
        #expect(summaries.map(\.lamport) == [100, 101, 102, 106, 108, 110])
        #expect(summaries.map(\.time) == expanded.map(\.time))
        #expect(summaries.map { $0.time - 1_780_000_000 } == [0, 0, 0, 3, 4, 5])
        let counts = expanded.map { change -> [Int] in
            guard case .text(_, let pieces) = change.operations[0] else { return [] }
            let count = TextEditCount().adding(pieces)
            return [count.inserted, count.deleted]
        }
        #expect(summaries.map { [$0.inserted, $0.deleted] } == counts)
        #expect(summaries.map { [$0.inserted, $0.deleted] } == [[2, 0], [2, 0], [2, 0], [0, 1], [0, 2], [2, 0]])
    }
}
