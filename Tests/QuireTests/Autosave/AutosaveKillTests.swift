import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

/// The record type `store-test-typist` types into.
private struct TypistFile: Record {
    static let typeName = "file"
    var name: String
}

/// SplitMix64: the kill delays are random but the same on every run of the test.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The typist's script (from its `script` mode), replayed forward to give the text after
/// any number of keystrokes; asked for growing counts, it replays each keystroke once.
private struct ExpectedTexts {
    private enum Step {
        case append([Unicode.Scalar])
        case insert([Unicode.Scalar], at: Int)
        case backspace
    }

    private var steps: [Step] = []
    private var scalars: [Unicode.Scalar] = []
    private var replayed = 0

    init(typist: URL, seed: UInt64, count: Int) throws {
        let result = try runProcess(typist, ["script", "\(seed)", "\(count)"])
        guard result.status == 0 else { throw TypistFailure("script: \(result.standardError)") }
        func decode(_ hex: Substring) throws -> [Unicode.Scalar] {
            try hex.split(separator: "+").map { part in
                guard let value = UInt32(part, radix: 16), let scalar = Unicode.Scalar(value) else {
                    throw TypistFailure("bad script text \(hex)")
                }
                return scalar
            }
        }
        for line in result.standardOutput.split(separator: "\n") {
            let words = line.split(separator: " ")
            switch (words.first, words.count) {
            case ("append", 2): steps.append(.append(try decode(words[1])))
            case ("insert", 3): steps.append(.insert(try decode(words[2]), at: Int(words[1]) ?? -1))
            case ("backspace", 1): steps.append(.backspace)
            default: throw TypistFailure("bad script line \(line)")
            }
        }
    }

    private static func apply(_ step: Step, to scalars: inout [Unicode.Scalar]) {
        switch step {
        case .append(let typed): scalars.append(contentsOf: typed)
        case .insert(let typed, let position): scalars.insert(contentsOf: typed, at: position)
        case .backspace: scalars.removeLast()
        }
    }

    private static func string(_ scalars: [Unicode.Scalar]) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// The texts after `keystrokes` and after `keystrokes + 1` keystrokes; `keystrokes`
    /// must not be less than in the previous call.
    mutating func texts(after keystrokes: Int) throws -> (String, String) {
        guard keystrokes >= replayed, keystrokes < steps.count else {
            throw TypistFailure("asked for \(keystrokes) keystrokes after \(replayed), of \(steps.count)")
        }
        while replayed < keystrokes {
            Self.apply(steps[replayed], to: &scalars)
            replayed += 1
        }
        var next = scalars
        Self.apply(steps[keystrokes], to: &next)
        return (Self.string(scalars), Self.string(next))
    }
}

private struct TypistFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One run of the typist, killed with SIGKILL `delay` after its first acknowledgement.
private struct KilledRun {
    var start: Int
    /// The index of the last keystroke acknowledged, or `nil` when none was.
    var lastAcknowledged: Int?
    var finished: Bool

    init(typist: URL, directory: String, seed: UInt64, limit: Int, delay: Duration) throws {
        let process = Process()
        process.executableURL = typist
        process.arguments = ["type", directory, "\(seed)", "\(limit)"]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Wait for the child's first acknowledgement (or its end), then let it type on for
        // `delay` and kill it mid-flight.
        var received = Data()
        while !String(decoding: received, as: UTF8.self).contains("ack ") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds))
        kill(process.processIdentifier, SIGKILL)
        received.append(output.fileHandleForReading.readDataToEndOfFile())
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
        finished = lines.last == "done"
        guard process.terminationReason == .uncaughtSignal || finished else {
            throw TypistFailure("the typist exited \(process.terminationStatus): \(errorText)")
        }
        guard let first = lines.first, first.hasPrefix("start "), let start = Int(first.dropFirst(6)) else {
            throw TypistFailure("the typist printed no start line: \(lines.prefix(3)) \(errorText)")
        }
        self.start = start
        // A line cut short by the kill has no newline yet and cannot end in a full number
        // that was not printed, so every "ack N" line seen counts.
        lastAcknowledged = lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max()
    }
}

@Suite("Autosave under SIGKILL")
struct AutosaveKillTests {
    @Test("every acknowledged keystroke survives SIGKILL at a random moment, and the store verifies")
    func killedTypist() throws {
        let typist = try BuiltProducts.executable(named: "store-test-typist")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storePath = directory.appending("store")
        let seed: UInt64 = 20_250_611
        let limit = 60_000  // more than the runs get through
        var expected = try ExpectedTexts(typist: typist, seed: seed, count: limit)
        var random = SeededGenerator(state: seed)
        let clock = ContinuousClock()
        let started = clock.now

        var iterations = 0
        var acknowledged = 0
        var previous = 0  // keystrokes in the store before this run
        while iterations < 60 {
            iterations += 1
            let delay = Duration.milliseconds(Int.random(in: 2...40, using: &random))
            let run = try KilledRun(typist: typist, directory: storePath, seed: seed, limit: limit, delay: delay)
            #expect(run.start >= previous, "run \(iterations) started at \(run.start), before the \(previous) keystrokes saved")
            if let last = run.lastAcknowledged { acknowledged += last - run.start + 1 }

            // Reopen in this process: the text holds every acknowledged keystroke and at
            // most one more (the one in flight when the kill came).
            let lowest = (run.lastAcknowledged ?? (run.start - 1)) + 1
            let store = try Store(directory: storePath)
            let text = try store.read { tx in
                let files = try tx.all(TypistFile.self)
                try #require(files.count == 1)
                return try tx.string(of: files[0].id.text("content"))
            }
            let (atLowest, afterOneMore) = try expected.texts(after: lowest)
            let matched = text == atLowest ? lowest : text == afterOneMore ? lowest + 1 : nil
            #expect(matched != nil, """
                run \(iterations): \(text.unicodeScalars.count) scalars match neither \(lowest) nor \(lowest + 1) \
                keystrokes (start \(run.start), last ack \(run.lastAcknowledged.map(String.init) ?? "none"))
                """)
            previous = matched ?? lowest
            try verifyChangeLog(store)
            try store.close()
            if run.finished { break }
        }
        let elapsed = clock.now - started
        #expect(iterations >= 50)
        #expect(acknowledged >= iterations)  // the kills came after typing had begun
        print("autosave kill test: \(iterations) kills, \(acknowledged) acknowledged keystrokes, \(previous) in the text, \(elapsed)")
    }

    /// Every change decodes, and per replica the log covers 0 ..< version without gaps.
    private func verifyChangeLog(_ store: Store) throws {
        let changes = try store.changes()
        let version = store.version
        let byReplica = Dictionary(grouping: changes) { $0.id.replica }
        for (replica, list) in byReplica {
            var next: UInt64 = 0
            for change in list.sorted(by: { $0.id.counter < $1.id.counter }) {
                #expect(change.id.counter == next, "replica \(replica): a gap before \(change.id)")
                next = change.endCounter
            }
            #expect(next == version[replica], "replica \(replica): the log ends at \(next), the version says \(version[replica])")
        }
        for (replica, counter) in version.counters where counter > 0 {
            #expect(byReplica[replica] != nil, "replica \(replica) has version \(counter) but no changes")
        }
    }
}
