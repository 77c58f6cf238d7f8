@testable import Quire
import QuireCore
import Testing

/// `ChangeRunJoiner` grows runs one change at a time; the change log's fold starts one
/// from the run the log ends with. Both must cut exactly as joining the whole list would.
@Suite("Change runs grown one change at a time")
struct ChangeRunJoinerTests {
    private let replica = ReplicaID(7)
    private let other = ReplicaID(9)
    private var text: TextID { TextID(record: RecordID(replica: replica, counter: 1), field: "body") }
    private var otherText: TextID { TextID(record: RecordID(replica: replica, counter: 2), field: "body") }

    /// A one-keystroke change: `character` typed after the operation `after` (the
    /// previous keystroke), or a Backspace of `deleting`.
    private func keystroke(
        _ counter: UInt64, lamport: UInt64, time: UInt64 = 100, in text: TextID? = nil,
        typing character: UInt8? = nil, after: UInt64? = nil, deleting: UInt64? = nil,
        dependencies: VersionVector = VersionVector()
    ) -> Change {
        let id = OperationID(replica: replica, counter: counter)
        let operation: TextOperation
        if let deleting {
            operation = .delete(TextDeletion(id: id, target: OperationID(replica: replica, counter: deleting), length: 1, isBackward: false))
        } else {
            operation = .insert(TextInsertion(
                id: id, originLeft: after.map { OperationID(replica: replica, counter: $0) }, rightParent: nil,
                text: String(UnicodeScalar(character ?? UInt8(ascii: "a")))))
        }
        return Change(
            id: ChangeID(replica: replica, counter: counter), count: 1, lamport: lamport, dependencies: dependencies,
            operations: [.text(text ?? self.text, [operation])], time: time)
    }

    /// Twelve keystrokes: typing, a Backspace, a pause in time, a change that depends on
    /// another replica (it starts a new run), a field write (no text: a lone change), and
    /// typing into another text.
    private func history() -> [Change] {
        var changes: [Change] = []
        for counter in 0..<5 as Range<UInt64> {
            changes.append(keystroke(counter, lamport: counter + 1, typing: UInt8(ascii: "a") + UInt8(counter), after: counter == 0 ? nil : counter - 1))
        }
        changes.append(keystroke(5, lamport: 6, time: 100, deleting: 4))
        changes.append(keystroke(6, lamport: 7, time: 160, typing: UInt8(ascii: "x"), after: 3))
        changes.append(keystroke(7, lamport: 9, time: 160, typing: UInt8(ascii: "y"), after: 6,
                                 dependencies: VersionVector([other: 3])))
        changes.append(keystroke(8, lamport: 10, time: 161, typing: UInt8(ascii: "z"), after: 7))
        changes.append(Change(
            id: ChangeID(replica: replica, counter: 9), count: 1, lamport: 11, dependencies: VersionVector(),
            operations: [.fields(record: text.record, type: "Note", values: ["title": Array("\"t\"".utf8)])], time: 161))
        changes.append(keystroke(10, lamport: 12, time: 162, in: otherText, typing: UInt8(ascii: "p")))
        changes.append(keystroke(11, lamport: 13, time: 162, in: otherText, typing: UInt8(ascii: "q"), after: 10))
        return changes
    }

    @Test("joining one change at a time cuts a history into the runs and single changes it holds, and expands back to it")
    func joinsHistory() throws {
        let changes = history()
        let units = ChangeRun.units(of: changes)
        // 0–6 one run (a Backspace and a later time continue it), 7–8 a run (7 depends on
        // another replica), 9 alone (a field write), 10–11 a run in the other text.
        #expect(units.map(\.id.counter) == [0, 7, 9, 10])
        #expect(units.map(\.count) == [7, 2, 1, 2])
        guard case .run(let first) = units[0], case .change = units[2] else {
            Issue.record("expected a run first and a single change third: \(units)")
            return
        }
        #expect(first.lastLamport == 7 && first.lastTime == 160)
        #expect(units.flatMap(\.changes) == changes)
    }

    @Test("a joiner started from a logged run tops it up exactly as joining the run's changes and the new ones would")
    func topsUpRun() throws {
        let changes = history()
        guard case .run(let logged)? = ChangeRun.units(of: changes[0..<4]).first else {
            Issue.record("the first four keystrokes did not make a run")
            return
        }
        var joiner = ChangeRunJoiner(continuing: logged)
        for change in changes[4...] { joiner.add(change) }
        let units = joiner.finish()
        #expect(joiner.continuedInitialRun)
        #expect(units == ChangeRun.units(of: changes))
        #expect(units.flatMap(\.changes) == changes)
    }

    @Test("a change that does not continue the logged run leaves it as it was, first among the units")
    func leavesRunUnchanged() throws {
        let changes = history()
        guard case .run(let logged)? = ChangeRun.units(of: changes[0..<7]).first else {
            Issue.record("the first seven keystrokes did not make a run")
            return
        }
        var joiner = ChangeRunJoiner(continuing: logged)
        for change in changes[7...] { joiner.add(change) }  // 7 depends on another replica
        let units = joiner.finish()
        #expect(!joiner.continuedInitialRun)
        #expect(units.first == .run(logged))
        #expect(units == ChangeRun.units(of: changes))
    }

    @Test("units joined whole, as the log stores them, cut exactly as their changes joined one at a time, however the log cut them")
    func joinsLoggedUnits() throws {
        let changes = history()
        // Every way to cut the history into contiguous stretches, each logged as its units.
        for cuts in 0..<(1 << (changes.count - 1)) {
            var logged: [ChangeUnit] = []
            var start = 0
            for end in 1...changes.count where end == changes.count || cuts & (1 << (end - 1)) != 0 {
                logged += ChangeRun.units(of: changes[start..<end])
                start = end
            }
            #expect(ChangeRun.units(of: logged) == ChangeRun.units(of: changes), "cuts \(cuts)")
        }
    }

    @Test("runs joined whole are cut at the most changes a run holds, where joining their changes cuts")
    func joinsLoggedUnitsUpToTheLimit() throws {
        let count = ChangeRun.maximumChanges + 4_500
        let changes = (0..<UInt64(count)).map { counter in
            keystroke(counter, lamport: counter + 1, typing: UInt8(ascii: "a") + UInt8(counter % 26), after: counter == 0 ? nil : counter - 1)
        }
        let logged = stride(from: 0, to: count, by: 1_000).flatMap { ChangeRun.units(of: changes[$0..<min($0 + 1_000, count)]) }
        #expect(logged.count == (count + 999) / 1_000)
        let joined = ChangeRun.units(of: logged)
        #expect(joined.map(\.count) == [UInt64(ChangeRun.maximumChanges), 4_500])
        #expect(joined == ChangeRun.units(of: changes))
    }
}

