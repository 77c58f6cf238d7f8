import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Store: texts")
struct StoreTextTests {
    typealias File = StoreSpec.File

    /// A store with one file; returns its content text.
    static func file(in store: Store) throws -> TextID {
        try store.write { tx in try tx.insert(File(name: "Ode")) }.text("content")
    }

    @Test("insert, delete and replace at Unicode-scalar positions")
    func scalarEdits() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let text = try Self.file(in: store)
        #expect(try store.read { tx in try tx.string(of: text) } == "")
        try store.write { tx throws in
            try tx.insert("Hello world", at: 0, in: text)
            try tx.insert("é", at: 5, in: text)  // one scalar
        }
        #expect(try store.read { tx in try tx.string(of: text) } == "Helloé world")
        try store.write { tx in try tx.delete(5..<6, in: text) }
        try store.write { tx in try tx.replace(6..<11, with: "there 🌍", in: text) }
        #expect(try store.read { tx in try tx.string(of: text) } == "Hello there 🌍")
        try store.write { tx in try tx.insert("!", at: 13, in: text) }  // after the emoji: one scalar
        #expect(try store.read { tx in try tx.string(of: text) } == "Hello there 🌍!")
        #expect(throws: StoreError.self) { try store.write { tx in try tx.insert("x", at: 15, in: text) } }
        #expect(throws: StoreError.self) { try store.write { tx in try tx.delete(10..<20, in: text) } }
        #expect(try store.read { tx in try tx.string(of: text) } == "Hello there 🌍!")
    }

    @Test("UTF-16 positions (NSRange) agree with NSString around emoji and flags")
    func utf16Edits() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let text = try Self.file(in: store)
        let start = "Café 👩‍👩‍👧 says 👋🏽 hi 🇫🇷 to you"
        try store.write { tx in try tx.insert(start, at: 0, in: text) }
        let expected = NSMutableString(string: start)

        func check(_ line: SourceLocation = #_sourceLocation) throws {
            try store.read { tx throws in
                #expect(try tx.string(of: text) == expected as String, sourceLocation: line)
                #expect(try tx.length(of: text, unit: .utf16) == expected.length, sourceLocation: line)
                #expect(try tx.length(of: text, unit: .unicodeScalars) == (expected as String).unicodeScalars.count, sourceLocation: line)
                #expect(try tx.length(of: text, unit: .utf8) == (expected as String).utf8.count, sourceLocation: line)
            }
        }
        try check()

        // Insert after the wave (an NSRange's upper bound, past a surrogate pair and a modifier).
        let wave = expected.range(of: "👋🏽")
        try store.write { tx in try tx.insert("✌️", at: NSMaxRange(wave), unit: .utf16, in: text) }
        expected.insert("✌️", at: NSMaxRange(wave))
        try check()

        // Replace "hi" (after several astral scalars) as a text view would.
        let hi = expected.range(of: "hi")
        try store.write { tx in try tx.replace(hi.location..<NSMaxRange(hi), with: "hello 😀", unit: .utf16, in: text) }
        expected.replaceCharacters(in: hi, with: "hello 😀")
        try check()

        // Delete the flag (two regional indicators, four UTF-16 units).
        let flag = expected.range(of: "🇫🇷 ")
        #expect(flag.length == 5)
        try store.write { tx in try tx.delete(flag.location..<NSMaxRange(flag), unit: .utf16, in: text) }
        expected.deleteCharacters(in: flag)
        try check()

        // Slices by UTF-16 range are NSString's substrings.
        let says = expected.range(of: "says 👋🏽✌️ hello")
        try store.read { tx throws in
            #expect(try tx.string(of: text, in: says.location..<NSMaxRange(says), unit: .utf16) == expected.substring(with: says))
        }

        // An offset inside a surrogate pair is refused and changes nothing.
        let family = expected.range(of: "👩")
        let before = try store.changes()
        #expect(throws: StoreError.self) {
            try store.write { tx in try tx.insert("x", at: family.location + 1, unit: .utf16, in: text) }
        }
        #expect(throws: StoreError.self) {
            try store.read { tx in try tx.string(of: text, in: 0..<(family.location + 1), unit: .utf16) }
        }
        try check()
        #expect(try store.changes() == before)

        // And the positions still agree after reopening.
        let reopened = try replicas.reopen(0)
        #expect(try reopened.read { tx in try tx.string(of: text) } == expected as String)
    }

    @Test("slices, lengths in every unit and the word count")
    func slicesAndCounts() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let text = try Self.file(in: store)
        let content = "Naïve café, 42 don't—stop_here 🚀 ok"
        try store.write { tx in try tx.insert(content, at: 0, in: text) }
        try store.read { tx throws in
            let scalars = Array(content.unicodeScalars)
            #expect(try tx.length(of: text) == scalars.count)
            #expect(try tx.length(of: text, unit: .utf8) == content.utf8.count)
            #expect(try tx.length(of: text, unit: .utf16) == content.utf16.count)
            var slice = String.UnicodeScalarView()
            slice.append(contentsOf: scalars[6..<14])
            #expect(try tx.string(of: text, in: 6..<14) == String(slice))
            #expect(try tx.string(of: text, in: 0..<0) == "")
            #expect(try tx.string(of: text, in: 0..<6, unit: .utf8) == "Naïve")
            #expect(throws: StoreError.self) { try tx.string(of: text, in: 0..<3, unit: .utf8) }  // inside "ï"
            #expect(throws: StoreError.self) { try tx.string(of: text, in: 0..<(scalars.count + 1)) }
            // Naïve, café, 42, don't, stop_here, ok
            #expect(try tx.wordCount(of: text) == 6)
            let empty = text.record.text("body")
            #expect(try tx.wordCount(of: empty) == 0 && tx.length(of: empty) == 0 && tx.string(of: empty) == "")
        }
        try store.write { tx in try tx.delete(0..<12, in: text) }
        #expect(try store.read { tx in try tx.wordCount(of: text) } == 4)
    }

    @Test("texts persist across reopening")
    func persistence() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (content, body) = try store.write { tx throws in
            let id = try tx.insert(File(name: "Ode"))
            try tx.insert("First line", at: 0, in: id.text("content"))
            try tx.insert("Other", at: 0, in: id.text("body"))
            return (id.text("content"), id.text("body"))
        }
        try store.write { tx throws in
            try tx.insert("\nSecond line", at: 10, in: content)
            try tx.replace(0..<5, with: "Another", in: body)
        }
        let reopened = try replicas.reopen(0)
        try reopened.read { tx throws in
            #expect(try tx.string(of: content) == "First line\nSecond line")
            #expect(try tx.string(of: body) == "Another")
            #expect(try tx.wordCount(of: content) == 4)
        }
        try reopened.write { tx in try tx.delete(0..<6, in: content) }
        #expect(try replicas.reopen(0).read { tx in try tx.string(of: content) } == "line\nSecond line")
    }

    @Test("2,000 one-character writes (past the snapshot compaction threshold) reopen to the same text")
    func manySmallEdits() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let text = try Self.file(in: store)
        var expected: [Unicode.Scalar] = []
        var random = SplitMix64(seed: 5)
        let alphabet = Array("abcdefghij klmnö😀".unicodeScalars)
        for step in 0..<2_000 {
            if step % 7 == 6, !expected.isEmpty {
                // Backspace at a random place.
                let at = Int(random.next() % UInt64(expected.count))
                try store.write { tx in try tx.delete(at..<(at + 1), in: text) }
                expected.remove(at: at)
            } else {
                let at = step % 5 == 0 ? Int(random.next() % UInt64(expected.count + 1)) : expected.count
                let scalar = alphabet[Int(random.next() % UInt64(alphabet.count))]
                try store.write { tx in try tx.insert(String(scalar), at: at, in: text) }
                expected.insert(scalar, at: at)
            }
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: expected)
        let final = String(view)
        #expect(try store.read { tx in try tx.string(of: text) } == final)
        #expect(try store.changes().count == 2_001)
        let reopened = try replicas.reopen(0)
        #expect(try reopened.read { tx in try tx.string(of: text) } == final)
        // Editing continues correctly on top of the reopened state.
        try reopened.write { tx in try tx.insert("END", at: expected.count, in: text) }
        #expect(try replicas.reopen(0).read { tx in try tx.string(of: text) } == final + "END")
    }

    @Test("a replica that merged many one-character changes, in batches, reopens to the same text")
    func manyMergedEdits() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let text = try Self.file(in: a)
        for step in 0..<1_200 {
            try a.write { tx throws in
                let length = try tx.length(of: text)
                if step % 9 == 8 {
                    try tx.delete((length / 2)..<(length / 2 + 1), in: text)
                } else {
                    try tx.insert(String(UnicodeScalar(UInt8(97 + step % 26))), at: step % 4 == 0 ? length / 3 : length, in: text)
                }
            }
            if step % 40 == 39 { try StoreSpec.send(a, to: b) }
        }
        try StoreSpec.send(a, to: b)
        let expected = try a.read { tx in try tx.string(of: text) }
        #expect(expected.count == 1_200 - 2 * (1_200 / 9))
        #expect(try b.read { tx in try tx.string(of: text) } == expected)
        #expect(try replicas.reopen(1).read { tx in try tx.string(of: text) } == expected)
        // The reopened replica keeps merging and editing.
        try replicas[1].write { tx in try tx.insert("B", at: 0, in: text) }
        try StoreSpec.send(replicas[1], to: a)
        #expect(try a.read { tx in try tx.string(of: text) } == "B" + expected)
    }

    @Test("concurrent typing on two replicas merges to the same text on both, without interleaving")
    func concurrentTyping() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let text = try Self.file(in: a)
        try a.write { tx in try tx.insert("[]", at: 0, in: text) }
        try StoreSpec.send(a, to: b)
        // Both type a word, one keystroke per write, at the same place.
        for (index, character) in "alpha".enumerated() {
            try a.write { tx in try tx.insert(String(character), at: 1 + index, in: text) }
        }
        for (index, character) in "beta".enumerated() {
            try b.write { tx in try tx.insert(String(character), at: 1 + index, in: text) }
        }
        try b.write { tx in try tx.insert("!", at: 6, in: text) }  // "[beta]!"
        try a.write { tx in try tx.delete(0..<1, in: text) }  // "alpha]"
        let reportA = try StoreSpec.send(b, to: a)
        try StoreSpec.send(a, to: b)
        #expect(reportA.changedTexts == [text])
        let merged = try a.read { tx in try tx.string(of: text) }
        #expect(try b.read { tx in try tx.string(of: text) } == merged)
        #expect(merged == "alphabeta]!" || merged == "betaalpha]!")
        #expect(a.version == b.version)
        for index in 0..<2 {
            #expect(try replicas.reopen(index).read { tx in try tx.string(of: text) } == merged)
        }
    }
}

@Suite("Store: a text longer than one operation run")
struct StoreLongTextTests {
    @Test("an insert of 2^24 + 1 characters reads back after reopening, and travels in a delta")
    func longerThanOneRun() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let length = TextOperationCoding.maximumRunLength + 1
        let text = try StoreTextTests.file(in: replicas[0])
        try replicas[0].write { tx in try tx.insert(String(repeating: "a", count: length), at: 0, in: text) }
        try replicas[0].write { tx in try tx.insert("b", at: length, in: text) }
        let reopened = try replicas.reopen(0)
        #expect(try reopened.read { tx in try tx.length(of: text) } == length + 1)
        #expect(try reopened.read { tx in try tx.string(of: text, in: length - 1..<length + 1) } == "ab")
        #expect(try reopened.verify().problems.isEmpty)
        let delta = try #require(try reopened.exportDelta())
        try replicas[1].importDelta(delta)
        #expect(try replicas[1].read { tx in try tx.length(of: text) } == length + 1)
        #expect(try replicas[1].read { tx in try tx.string(of: text, in: 0..<3) } == "aaa")
    }
}

@Suite("Store: values the encodings could not read back are refused")
struct StoreValueLimitTests {
    typealias Project = StoreSpec.Project

    @Test("a field value over 16 MiB is refused before anything is written; one at the limit reads back after reopening")
    func fieldValueLimit() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let created = Date(timeIntervalSinceReferenceDate: 0)
        // The stored value is the JSON string: the characters and two quotes.
        let largest = String(repeating: "d", count: (16 << 20) - 2)
        #expect(throws: StoreError.self) {
            try replicas[0].write { tx in try tx.insert(Project(name: "Big", kind: .prose, created: created, details: largest + "d")) }
        }
        let id = try replicas[0].write { tx in try tx.insert(Project(name: "Big", kind: .prose, created: created, details: largest)) }
        let reopened = try replicas.reopen(0)
        #expect(try reopened.read { tx in try tx.record(Project.self, id) }.details?.count == largest.count)
        #expect(try reopened.changes().count == 1)
    }

    @Test("a text field name over 255 bytes is refused; the store stays readable")
    func textFieldNameLimit() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let file = try replicas[0].write { tx in try tx.insert(StoreSpec.File(name: "Ode")) }
        #expect(throws: StoreError.self) {
            try replicas[0].write { tx in try tx.insert("x", at: 0, in: file.text(String(repeating: "f", count: 256))) }
        }
        try replicas[0].write { tx in try tx.insert("x", at: 0, in: file.text(String(repeating: "f", count: 255))) }
        let reopened = try replicas.reopen(0)
        #expect(try reopened.read { tx in try tx.string(of: file.text(String(repeating: "f", count: 255))) } == "x")
        #expect(try reopened.changes().count == 2)
    }
}
