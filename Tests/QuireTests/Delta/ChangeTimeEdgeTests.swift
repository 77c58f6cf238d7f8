import Foundation
@testable import Quire
import QuireCore
import QuireTestSupport
import Synchronization
import Testing

/// Times on changes where they are cut, overtaken, relayed and checked: runs cut in the
/// middle by exports and by the receiver, files overtaken while pending, a failed import,
/// reopening, the sync folder, and time fields that would resolve beyond the limit.
@Suite("Changes: wall-clock times at the edges")
struct ChangeTimeEdgeTests {
    typealias File = StoreSpec.File

    private static func open(_ directory: TemporaryDirectory, replica: UInt64, clock: TestClock) throws -> Store {
        try Store(directory: directory.path, options: StoreSpec.options(replica: replica, clock: clock))
    }

    /// Types `count` letters, one change each, with steps of 0, 1, 3, 0, 7, 2 … seconds so
    /// that a step taken from the wrong change shows.
    private static func type(_ count: Int, into text: TextID, of store: Store, clock: TestClock, from start: Int = 0) throws {
        let steps: [TimeInterval] = [0, 1, 3, 0, 7, 2, 0, 0, 11, 1]
        for index in start..<(start + count) {
            clock.advance(steps[index % steps.count])
            try store.write { tx in try tx.insert("a", at: tx.length(of: text), in: text) }
        }
    }

    private static func since(_ store: Store, _ counter: UInt64) -> VersionVector {
        var version = VersionVector()
        version[store.replica] = counter
        return version
    }

    @Test("runs cut in the middle by exports, pending files overtaken by longer ones and trimmed, and single changes from inside a folded run all arrive with their times")
    func cutRunsKeepTimes() throws {
        let directories = try (0..<3).map { _ in try TemporaryDirectory() }
        defer { directories.forEach { $0.remove() } }
        let clock = TestClock()
        let writer = try Self.open(directories[0], replica: 1, clock: clock)
        defer { try? writer.close() }
        let file = try writer.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        let creation = try #require(try writer.exportDelta())
        try Self.type(500, into: text, of: writer, clock: clock)
        let early = try #require(try writer.exportDelta(since: Self.since(writer, 1)))  // 1 ..< 501
        try Self.type(300, into: text, of: writer, clock: clock, from: 500)
        let middle = try #require(try writer.exportDelta(since: Self.since(writer, 437)))  // 437 ..< 801, cut inside a run
        try Self.type(400, into: text, of: writer, clock: clock, from: 800)  // folds past 1,000
        let late = try #require(try writer.exportDelta(since: Self.since(writer, 650)))  // 650 ..< 1201
        let expected = try writer.changes()
        #expect(expected.count == 1_201)
        #expect(try writer.statistics().changeLogEntries < 250, "the writer's first thousand keystrokes were folded into runs")

        // The late file waits, then the middle one; the early one lets the middle one in,
        // which overtakes the late one: its rest is trimmed to start after the middle one.
        let receiver = try Self.open(directories[1], replica: 2, clock: clock)
        defer { try? receiver.close() }
        try receiver.importDelta(creation)
        try receiver.importDelta(late)
        try receiver.importDelta(middle)
        #expect(try receiver.changes().count == 1)
        try receiver.importDelta(early)
        #expect(try receiver.changes().map(\.time) == expected.map(\.time))

        // Single changes from inside the writer's folded runs, newest first: each waits for
        // the one before and takes its step from that one's time.
        let singles = try Self.open(directories[2], replica: 3, clock: clock)
        defer { try? singles.close() }
        try singles.importDelta(creation)
        try singles.importDelta(early)
        for change in expected[501..<520].reversed() { try singles.importDelta(try writer.exportDelta(change: change.id)) }
        #expect(try singles.changes().map(\.time) == expected.prefix(520).map(\.time))
    }

    @Test("after reopening, after a failed import and after its own writes, a receiver resolves the next file's steps from the sender's latest change")
    func receiverTimesAcrossReopenAndRollback() throws {
        let directories = try (0..<2).map { _ in try TemporaryDirectory() }
        defer { directories.forEach { $0.remove() } }
        let clock = TestClock()
        let writer = try Self.open(directories[0], replica: 1, clock: clock)
        defer { try? writer.close() }
        let file = try writer.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        try Self.type(10, into: text, of: writer, clock: clock)
        var receiver = try Self.open(directories[1], replica: 2, clock: clock)
        try receiver.importDelta(try #require(try writer.exportDelta()))
        try receiver.write { tx in try tx.insert("b", at: 0, in: text) }  // the receiver's own change
        try receiver.close()
        receiver = try Self.open(directories[1], replica: 2, clock: clock)
        defer { try? receiver.close() }

        // A file of the next change, then one whose second unit names a text field the
        // writer never used: refused as a whole.
        try Self.type(3, into: text, of: writer, clock: clock, from: 10)
        var broken = try DeltaFile.decode(try #require(try writer.exportDelta(since: receiver.version)))
        guard case .run(var run) = try #require(broken.changes.last) else {
            Issue.record("the writer's keystrokes are sent as a run")
            return
        }
        run.field = .position(99)
        broken.changes[broken.changes.count - 1] = .run(run)
        let before = try StoreSpec.dump(receiver)
        #expect(throws: (any Error).self) { try receiver.importDelta(broken.encoded()) }
        #expect(try StoreSpec.dump(receiver) == before)

        // Keystroke files one by one: steps from the changes before them.
        let missing = try writer.changes().filter { $0.id.counter >= receiver.version[writer.replica] }
        for change in missing { try receiver.importDelta(try writer.exportDelta(change: change.id)) }
        let expected = try writer.changes()
        let received = try receiver.changes().filter { $0.id.replica == writer.replica }
        #expect(received.map(\.time) == expected.map(\.time))
        #expect(received.allSatisfy { $0.time > 0 })
    }

    @Test("a sync folder round trip carries times both ways, and a new store filled from the folder has them")
    func syncFolderKeepsTimes() throws {
        let directories = try (0..<4).map { _ in try TemporaryDirectory() }
        defer { directories.forEach { $0.remove() } }
        let clock = TestClock()
        let folder = directories[3].path
        let a = try Self.open(directories[0], replica: 1, clock: clock)
        defer { try? a.close() }
        let b = try Self.open(directories[1], replica: 2, clock: clock)
        defer { try? b.close() }
        let file = try a.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        try Self.type(40, into: text, of: a, clock: clock)
        _ = try a.sync(folder: folder)
        _ = try b.sync(folder: folder)
        try Self.type(25, into: text, of: b, clock: clock)
        _ = try b.sync(folder: folder)
        try Self.type(15, into: text, of: a, clock: clock, from: 40)
        _ = try a.sync(folder: folder)
        _ = try b.sync(folder: folder)
        _ = try a.sync(folder: folder)
        let changesA = try a.changes(), changesB = try b.changes()
        #expect(changesA.count == 1 + 40 + 25 + 15)
        #expect(changesA == changesB, "the same changes with the same times on both")
        #expect(changesA.allSatisfy { $0.time > 0 })
        let newcomer = try Self.open(directories[2], replica: 3, clock: clock)
        defer { try? newcomer.close() }
        _ = try newcomer.sync(folder: folder)
        #expect(try newcomer.changes() == changesA)
    }

    @Test("a delta file whose time would resolve beyond the limit is refused, and the receiver's log stays readable")
    func resolvedTimeBeyondLimit() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let writer = replicas[0]
        let file = try writer.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        try replicas[1].importDelta(try #require(try writer.exportDelta()))
        for _ in 0..<4 { try writer.write { tx in try tx.insert("a", at: tx.length(of: text), in: text) } }
        let keystrokes = try writer.changes().dropFirst()

        // A single change one step of 2^40 − 1 seconds after the one before.
        var single = try DeltaFile.decode(try writer.exportDelta(change: try #require(keystrokes.first).id))
        guard case .change(var change) = try #require(single.changes.first) else {
            Issue.record("one change is sent as a change")
            return
        }
        change.time = .after(Change.maximumTime - 1)
        single.changes = [.change(change)]
        let before = try StoreSpec.dump(replicas[1])
        #expect { try replicas[1].importDelta(single.encoded()) } throws: { "\($0)".contains("beyond the limit") }
        #expect(try StoreSpec.dump(replicas[1]) == before)

        // A run whose first change is at the limit's last second and whose steps go past it.
        var runFile = try DeltaFile.decode(try #require(try writer.exportDelta(since: replicas[1].version)))
        guard case .run(var run) = try #require(runFile.changes.first) else {
            Issue.record("keystrokes are sent as a run")
            return
        }
        run.time = .absolute(Change.maximumTime - 1)
        run.timeSteps = [ChangeRun.Repeated(value: 1, times: run.count - 1)]
        runFile.changes = [.run(run)]
        #expect { try replicas[1].importDelta(runFile.encoded()) } throws: { "\($0)".contains("beyond the limit") }
        #expect(try StoreSpec.dump(replicas[1]) == before)
        try replicas.reopen(1)
        #expect(try StoreSpec.dump(replicas[1]) == before)
    }

    @Test("version(at:) at every second of a typing session counts exactly the changes made by then, inside folded runs with steps of 0 and across entries")
    func versionAtEverySecond() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let store = try Self.open(directory, replica: 1, clock: clock)
        defer { try? store.close() }
        let file = try store.write { tx in try tx.insert(File(name: "Chapter")) }
        try Self.type(1_050, into: file.text("content"), of: store, clock: clock)  // the first thousand fold into runs
        #expect(try store.statistics().changeLogEntries < 100, "most of the log is runs")
        let changes = try store.changes()
        let first = try #require(changes.first?.time), last = try #require(changes.last?.time)
        var mismatches: [UInt64] = []
        for second in (first - 1)...(last + 1) {
            let expected = changes.filter { $0.time <= second }.last?.endCounter ?? 0
            let version = try store.read { tx in try tx.version(at: Date(timeIntervalSince1970: TimeInterval(second) + 0.5)) }
            if version[store.replica] != expected { mismatches.append(second) }
        }
        #expect(mismatches.isEmpty, "version(at:) is wrong at \(mismatches.count) seconds, first \(mismatches.prefix(5))")
    }

    @Test("version(at:) after pruning: a replica whose logged history is all pruned counts as made before the date, and the changes that depend on it stay in")
    func versionAtTimeAfterPruning() throws {
        let directories = try (0..<2).map { _ in try TemporaryDirectory() }
        defer { directories.forEach { $0.remove() } }
        let clock = TestClock()
        var a = try Self.open(directories[0], replica: 1, clock: clock)
        let b = try Self.open(directories[1], replica: 2, clock: clock)
        defer { try? b.close() }
        let file = try a.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        try Self.type(5, into: text, of: a, clock: clock)
        try StoreSpec.send(a, to: b)
        let acknowledged = b.version
        clock.advance(60)
        try Self.type(3, into: text, of: b, clock: clock)  // depends on all of a's changes
        try StoreSpec.send(b, to: a)
        try a.close()
        a = try Self.open(directories[0], replica: 1, clock: clock)
        defer { try? a.close() }
        let report = try a.pruneHistory(acknowledged: HistoryAcknowledgements([b.replica: acknowledged]))
        #expect(report.prunedChanges > 0)
        #expect(try a.changes(since: acknowledged).count == 3, "b's changes are kept")
        let now = a.version
        let later = Date(timeIntervalSince1970: clock.date.timeIntervalSince1970 + 3_600)
        let version = try a.read { tx in try tx.version(at: later) }
        #expect(version == now, "every change was made before an hour from now")
        let string = try a.read { tx in try tx.string(of: text) }
        #expect(try a.read { tx in try tx.string(of: text, at: version) } == string)
    }

    @Test("a pending change arriving again with its time sent another way (a step, then absolute once the sender pruned the change before) is the same change, not a cloned replica")
    func pendingCopyWithOtherTimeForm() throws {
        let directories = try (0..<2).map { _ in try TemporaryDirectory() }
        defer { directories.forEach { $0.remove() } }
        let clock = TestClock()
        var writer = try Self.open(directories[0], replica: 1, clock: clock)
        let receiver = try Self.open(directories[1], replica: 2, clock: clock)
        defer { try? receiver.close() }
        let file = try writer.write { tx in try tx.insert(File(name: "Chapter")) }
        try receiver.importDelta(try #require(try writer.exportDelta()))
        try Self.type(5, into: file.text("content"), of: writer, clock: clock)
        let last = try #require(try writer.changes().last)
        let asStep = try writer.exportDelta(change: last.id)
        try writer.close()
        writer = try Self.open(directories[0], replica: 1, clock: clock)
        defer { try? writer.close() }
        var acknowledged = VersionVector()
        acknowledged[writer.replica] = last.id.counter
        let pruned = try writer.pruneHistory(acknowledged: HistoryAcknowledgements([ReplicaID(99): acknowledged]))
        #expect(pruned.prunedChanges > 0)
        let asAbsolute = try writer.exportDelta(change: last.id)
        #expect(asAbsolute != asStep, "with the change before pruned, the time is sent absolute")

        try receiver.importDelta(asStep)
        let report = try receiver.importDelta(asAbsolute)
        #expect(report.pending == [last.id])
    }
}
