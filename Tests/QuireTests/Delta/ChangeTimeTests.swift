import Foundation
@testable import Quire
import QuireCore
import QuireTestSupport
import Synchronization
import Testing

/// Every change carries the second it was made: kept in the log (single entries and
/// folded runs), sent in delta files as a step from the replica's previous change and
/// resolved when applied, whatever order the files come in.
@Suite("Changes: wall-clock times")
struct ChangeTimeTests {
    typealias File = StoreSpec.File

    private static func open(_ directory: TemporaryDirectory, replica: UInt64, clock: TestClock) throws -> Store {
        try Store(directory: directory.path, options: StoreSpec.options(replica: replica, clock: clock))
    }

    /// Types `count` letters, one change each, `step` seconds apart; returns each change's time.
    private static func type(_ count: Int, into text: TextID, of store: Store, clock: TestClock, step: TimeInterval) throws -> [UInt64] {
        var times: [UInt64] = []
        for _ in 0..<count {
            clock.advance(step)
            try store.write { tx in try tx.insert("a", at: tx.length(of: text), in: text) }
            times.append(UInt64(clock.date.timeIntervalSince1970))
        }
        return times
    }

    @Test("a change is stamped with the clock's second, never before its replica's previous change, and keeps it across reopening and folding into runs")
    func localTimes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        var store = try Self.open(directory, replica: 1, clock: clock)
        let file = try store.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        var expected = try Self.type(1_200, into: text, of: store, clock: clock, step: 0.4)  // folds at 1,000
        clock.advance(-3_600)  // the device's clock is set back an hour
        try store.write { tx in try tx.insert("b", at: 0, in: text) }
        expected.append(expected.last!)  // stamped with the previous change's time, not earlier
        let logged = try store.changes().filter { $0.id.counter > 0 }
        #expect(logged.map(\.time) == expected)
        #expect(logged.first?.date == Date(timeIntervalSince1970: TimeInterval(expected[0])))
        try store.close()
        store = try Self.open(directory, replica: 1, clock: clock)
        defer { try? store.close() }
        #expect(try store.changes().filter { $0.id.counter > 0 }.map(\.time) == expected)
        #expect(try store.statistics().changeLogEntries < 20, "the keystrokes were folded into runs")
        // The text's history shows each change's time, inside runs too.
        let history = try store.read { tx in try tx.history(of: text) }
        #expect(history.map(\.time) == expected)
        #expect(history.last?.date == Date(timeIntervalSince1970: TimeInterval(expected.last!)))
        // After reopening, the next change is still not before the last one.
        try store.write { tx in try tx.insert("c", at: 0, in: text) }
        #expect(try store.changes().last?.time == expected.last)
    }

    @Test("times cross delta files: a whole history, keystroke files one by one, and files that arrive out of order")
    func deltaTimes() throws {
        let directories = try (0..<4).map { _ in try TemporaryDirectory() }
        defer { directories.forEach { $0.remove() } }
        let clock = TestClock()
        let writer = try Self.open(directories[0], replica: 1, clock: clock)
        defer { try? writer.close() }
        let file = try writer.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        let creation = try #require(try writer.exportDelta())
        _ = try Self.type(300, into: text, of: writer, clock: clock, step: 1.7)
        let expected = try writer.changes()
        #expect(expected.allSatisfy { $0.time > 0 })

        // The whole history in one file.
        let whole = try Self.open(directories[1], replica: 2, clock: clock)
        defer { try? whole.close() }
        try whole.importDelta(try #require(try writer.exportDelta()))
        #expect(try whole.changes().map(\.time) == expected.map(\.time))

        // One file per keystroke, in order, then a file starting in the middle of a run.
        let follower = try Self.open(directories[2], replica: 3, clock: clock)
        defer { try? follower.close() }
        try follower.importDelta(creation)
        for (index, change) in expected.dropFirst().prefix(50).enumerated() {
            let keystroke = try writer.exportDelta(change: change.id)
            // The first keystroke spells the text's field name out; the others refer to it.
            if index > 0 { #expect(keystroke.count <= 32, "a keystroke's file is \(keystroke.count) bytes") }
            try follower.importDelta(keystroke)
        }
        try follower.importDelta(try #require(try writer.exportDelta(since: follower.version)))
        #expect(try follower.changes().map(\.time) == expected.map(\.time))

        // Files applied out of order wait as pending and resolve their times when applied.
        let late = try Self.open(directories[3], replica: 4, clock: clock)
        defer { try? late.close() }
        let first = try writer.exportDelta(since: VersionVector())
        var middle = VersionVector()
        middle[writer.replica] = 150
        let second = try #require(try writer.exportDelta(since: middle))
        try late.importDelta(creation)
        let created = try late.changes().count
        try late.importDelta(second)
        #expect(try late.changes().count == created, "the later file waits for the changes before it")
        try late.importDelta(try #require(first))
        #expect(try late.changes().map(\.time) == expected.map(\.time))

        // Keystroke files in reverse order: each waits until the one before it arrives,
        // then takes its time as a step from that one's.
        let reversedDirectory = try TemporaryDirectory()
        defer { reversedDirectory.remove() }
        let reversed = try Self.open(reversedDirectory, replica: 5, clock: clock)
        defer { try? reversed.close() }
        try reversed.importDelta(creation)
        let keystrokes = Array(expected.dropFirst(created).prefix(20))
        for change in keystrokes.reversed() { try reversed.importDelta(try writer.exportDelta(change: change.id)) }
        #expect(try reversed.changes().map(\.time) == expected.prefix(created + 20).map(\.time))
    }

    @Test("a change made before times were kept, or sent in an older file, has time 0 and date nil, and compares as the same change")
    func unknownTimes() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let file = try replicas[0].write { tx in try tx.insert(File(name: "Chapter")) }
        var change = try #require(try replicas[0].changes().first)
        #expect(change.time > 0)
        change.time = 0
        #expect(change.date == nil)
        // A copy without its time is the same change: applying it again is not a clone.
        try replicas[1].apply(try replicas[0].changes())
        let report = try replicas[1].apply([change])
        #expect(report.alreadyKnown == [change.id])
        #expect(try replicas[1].read { tx in try tx.get(File.self, file)?.name } == "Chapter")
    }

    @Test("version(at:) is the version as of a moment: each text reads as it did then; a date before everything is the empty version")
    func versionAtTime() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let store = try Self.open(directory, replica: 1, clock: clock)
        defer { try? store.close() }
        let start = clock.date
        let file = try store.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        var snapshots: [(Date, String)] = []
        for index in 0..<1_500 {  // folded into runs after 1,000
            clock.advance(index % 10 == 0 ? 7 : 0.3)
            try store.write { tx in
                if index % 9 == 8 { try tx.delete(0..<1, in: text) } else { try tx.insert("\(index % 10)", at: tx.length(of: text), in: text) }
            }
            snapshots.append((clock.date, try store.read { tx in try tx.string(of: text) }))
        }
        // Every snapshot but those a later write shares a second with.
        for (offset, (date, typed)) in snapshots.enumerated() where offset + 1 == snapshots.count
            || floor(snapshots[offset + 1].0.timeIntervalSince1970) > floor(date.timeIntervalSince1970) {
            let read = try store.read { tx in try tx.string(of: text, at: try tx.version(at: date)) }
            #expect(read == typed, "at \(date)")
        }
        #expect(try store.read { tx in try tx.version(at: start.addingTimeInterval(-1)) } == VersionVector())
        #expect(try store.read { tx in try tx.version(at: clock.date.addingTimeInterval(3_600)) } == store.version)
    }

    @Test("version(at:) leaves out a change made after one it leaves out, when the replicas' clocks disagree")
    func versionAtTimeWithSkewedClocks() throws {
        let directories = try (0..<2).map { _ in try TemporaryDirectory() }
        defer { directories.forEach { $0.remove() } }
        let (clockA, clockB) = (TestClock(), TestClock())
        clockB.advance(-600)  // B's clock is ten minutes slow
        let a = try Self.open(directories[0], replica: 1, clock: clockA)
        let b = try Self.open(directories[1], replica: 2, clock: clockB)
        defer { try? a.close(); try? b.close() }
        let file = try a.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        try b.importDelta(try #require(try a.exportDelta()))
        try a.write { tx in try tx.insert("A", at: 0, in: text) }
        clockA.advance(10)
        try b.importDelta(try #require(try a.exportDelta(since: b.version)))
        try b.write { tx in try tx.insert("B", at: 1, in: text) }  // after A's edit, stamped 10 minutes before it
        let bTime = try #require(try b.changes().last?.date)
        #expect(bTime < clockA.date.addingTimeInterval(-500))
        let version = try b.read { tx in try tx.version(at: bTime) }
        #expect(version[b.replica] < b.version[b.replica], "B's edit depends on A's, made later by A's clock")
        #expect(try b.read { tx in try tx.string(of: text, at: version) } == "")
        #expect(try b.read { tx in try tx.string(of: text, at: try tx.version(at: clockA.date)) } == "AB")
    }

    @Test("a delta file's time field that is out of range is refused, naming it, and nothing is imported")
    func malformedTime() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        _ = try replicas[0].write { tx in try tx.insert(File(name: "Chapter")) }
        var bytes = try #require(try replicas[0].exportDelta())
        // Header: magic, version, store ID (flagged), sender, first counter; then the unit's
        // flags, lamport step and time.
        let unit = 3 + 16 + 8 + 1
        #expect(bytes[unit] & 128 != 0, "the unit carries a time")
        let timeAt = unit + 2
        var reader = [UInt8](bytes[timeAt...])
        #expect(reader[0] & 0x80 != 0, "an absolute time takes several bytes")
        // An absolute time of 2^41 seconds: beyond the limit.
        let impossible: [UInt8] = [0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]
        var length = 0
        while reader[length] & 0x80 != 0 { length += 1 }
        reader.replaceSubrange(0...length, with: impossible)
        bytes = Array(bytes[..<timeAt]) + reader
        #expect(bytes.count > timeAt)
        bytes = Array(bytes.dropLast(4))
        withUnsafeBytes(of: CRC32C.checksum(bytes).littleEndian) { bytes += $0 }
        let before = try StoreSpec.dump(replicas[1])
        #expect { try replicas[1].importDelta(bytes) } throws: { "\($0)".contains("time") }
        #expect(try StoreSpec.dump(replicas[1]) == before)
    }
}
