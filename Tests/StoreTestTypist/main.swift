// A second process for QuireTests' autosave kill test: it types into a store until it is
// killed, acknowledging every keystroke only after its durable commit has returned.
//
//   store-test-typist type DIR SEED LIMIT
//       Opens the store in DIR (creating it), finds its one "file" record (creating it),
//       works out how many keystrokes of the script for SEED the file's "content" text
//       already holds, prints "start K", then types keystroke K, K+1, … through a durable
//       TextEditingSession. After each call returns it prints "ack N" (N: the index of
//       the keystroke just saved) and flushes. Stops after keystroke LIMIT - 1, prints
//       "done" and exits 0 — unless it is killed first, which is the point.
//
//   store-test-typist writer DIR TAG COUNT
//       Opens the store in DIR (creating it) while other processes may have it open
//       too, then makes COUNT durable writes, cycling through three kinds: a new
//       TypistNote named "TAG-i" in the shared folder "Shared" (printed "ack i note ID"),
//       a keystroke appending TAG's first character to the shared file's "content"
//       (printed "ack i key"), and a move of this writer's last note to the top of the
//       folder ("ack i move ID"). Each line is printed after the write has returned.
//       COUNT 0 writes until killed. Prints "done" and exits 0.
//
//   store-test-typist mover DIR NOTE FOLDER
//       Opens the store in DIR and moves the TypistNote named NOTE to the end of the
//       TypistFolder named FOLDER in one durable write; prints "moved" and exits 0.
//
//   store-test-typist script SEED COUNT
//       Prints the first COUNT keystrokes of the script for SEED, one a line:
//       "append HEX", "insert SCALAR_OFFSET HEX" or "backspace", where HEX is the typed
//       text's Unicode scalars in hexadecimal, separated by "+". The test replays them to
//       know the text after any number of keystrokes.

import Foundation
import Quire
import QuireCore

struct TypistFile: Record {
    static let typeName = "file"
    var name: String
}

struct TypistNote: Record {
    static let typeName = "note"
    var name: String
}

struct TypistFolder: Record {
    static let typeName = "folder"
    var name: String
}

/// The `writer` mode: interleaved records, keystrokes and moves into a shared store.
func writeInterleaved(directory: String, tag: String, count: Int) throws {
    let store = try Store(directory: directory)
    // Found or created in one write: under LMDB's writer lock, so two writers agree.
    let (folder, file) = try store.write { tx in
        let folder = try tx.all(TypistFolder.self).first?.id ?? tx.insert(TypistFolder(name: "Shared"))
        let file = try tx.all(TypistFile.self).first?.id ?? tx.insert(TypistFile(name: "Typed"), under: folder)
        return (folder, file)
    }
    let content = file.text("content")
    let key = String(tag.prefix(1))
    var lastNote: RecordID?
    var index = 0
    while count == 0 || index < count {
        switch index % 3 {
        case 0:
            let note = try store.write { tx in try tx.insert(TypistNote(name: "\(tag)-\(index)"), under: folder) }
            lastNote = note
            say("ack \(index) note \(note)")
        case 1:
            try store.write { tx in try tx.insert(key, at: try tx.length(of: content), in: content) }
            say("ack \(index) key")
        default:
            guard let note = lastNote else { break }
            try store.write { tx in try tx.reorder(note, to: 0) }
            say("ack \(index) move \(note)")
        }
        index += 1
    }
    try store.close()
    say("done")
}

/// One keystroke of the script.
enum Keystroke: Equatable {
    /// Typing `text` at the end.
    case append(String)
    /// Typing `text` at a Unicode-scalar offset inside the text (sent as a UTF-16 offset).
    case insert(String, at: Int)
    /// Deleting the last Unicode scalar.
    case backspace
}

/// The deterministic keystroke script of a seed, and the text it produces.
///
/// Mostly appends, some backspaces, some inserts in the middle; one keystroke in
/// sixteen is an emoji or an accented letter. A backspace is only emitted while the text
/// is longer than its longest length so far minus ``slack``, so once the text has grown
/// `slack` scalars past some length it never returns to it: that bounds the search for
/// where a text is in its script.
struct KeystrokeScript {
    static let slack = 8
    private static let letters = Array("etaoinshrdlucmfwypvbgkqjxz     ,.").map(String.init)
    private static let extras = ["é", "ß", "😀", "👍🏽", "🇫🇷", "ñ", "中", "\n"]

    private var random: UInt64
    private(set) var scalars: [Unicode.Scalar] = []
    private(set) var longest = 0
    private(set) var count = 0

    init(seed: UInt64) { random = seed ^ 0x9E37_79B9_7F4A_7C15 }

    /// SplitMix64.
    private mutating func next() -> UInt64 {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next keystroke; `scalars` then holds the text after it.
    mutating func advance() -> Keystroke {
        let roll = next() % 100
        let text = next() % 16 == 0 ? Self.extras[Int(next() % UInt64(Self.extras.count))]
            : Self.letters[Int(next() % UInt64(Self.letters.count))]
        let keystroke: Keystroke
        if roll < 12, !scalars.isEmpty, scalars.count > longest - Self.slack {
            keystroke = .backspace
            scalars.removeLast()
        } else if roll < 24, scalars.count > 1 {
            let position = 1 + Int(next() % UInt64(scalars.count - 1))
            keystroke = .insert(text, at: position)
            scalars.insert(contentsOf: text.unicodeScalars, at: position)
        } else {
            keystroke = .append(text)
            scalars.append(contentsOf: text.unicodeScalars)
        }
        longest = max(longest, scalars.count)
        count += 1
        return keystroke
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("store-test-typist: \(message)\n".utf8))
    exit(1)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))  // unbuffered: one write(2)
}

func hex(_ text: String) -> String {
    text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: "+")
}

/// How many keystrokes of `seed`'s script the text `current` holds: the largest K whose
/// text equals it (equal texts type on identically), searched until the script has grown
/// past any return to `current`'s length.
func keystrokesTyped(_ current: [Unicode.Scalar], seed: UInt64) -> Int? {
    var script = KeystrokeScript(seed: seed)
    var found: Int? = current.isEmpty ? 0 : nil
    while script.longest <= current.count + KeystrokeScript.slack {
        _ = script.advance()
        if script.scalars.count == current.count, script.scalars == current { found = script.count }
    }
    return found
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("type", 4):
        guard let seed = UInt64(arguments[2]), let limit = Int(arguments[3]) else { fail("bad numbers") }
        let store = try Store(directory: arguments[1])
        let file = try store.write { tx in
            try tx.all(TypistFile.self).first?.id ?? tx.insert(TypistFile(name: "Typed"))
        }
        let content = file.text("content")
        let current = Array(try store.read { tx in try tx.string(of: content) }.unicodeScalars)
        guard let start = keystrokesTyped(current, seed: seed) else {
            fail("the text (\(current.count) scalars) is no prefix state of the script for seed \(seed)")
        }
        var script = KeystrokeScript(seed: seed)
        for _ in 0..<start { _ = script.advance() }
        say("start \(start)")
        let session = TextEditingSession(store: store, text: content)
        for index in start..<max(start, limit) {
            let before = script.scalars
            switch script.advance() {
            case .append(let text):
                try session.insert(text, at: before.count)
            case .insert(let text, let position):
                let utf16Offset = before[..<position].reduce(0) { $0 + UTF16.width($1) }
                try session.insert(text, at: utf16Offset, unit: .utf16)
            case .backspace:
                try session.delete(before.count - 1..<before.count)
            }
            say("ack \(index)")
        }
        try session.close()
        try store.close()
        say("done")
    case ("writer", 4):
        guard let count = Int(arguments[3]) else { fail("bad count") }
        try writeInterleaved(directory: arguments[1], tag: arguments[2], count: count)
    case ("mover", 4):
        let store = try Store(directory: arguments[1])
        try store.write { tx in
            guard let note = try tx.all(TypistNote.self).first(where: { $0.value.name == arguments[2] }),
                let folder = try tx.all(TypistFolder.self).first(where: { $0.value.name == arguments[3] })
            else { fail("no note \(arguments[2]) or folder \(arguments[3])") }
            try tx.move(note.id, to: folder.id)
        }
        try store.close()
        say("moved")
    case ("script", 3):
        guard let seed = UInt64(arguments[1]), let count = Int(arguments[2]) else { fail("bad numbers") }
        var script = KeystrokeScript(seed: seed)
        var lines: [String] = []
        for _ in 0..<count {
            switch script.advance() {
            case .append(let text): lines.append("append \(hex(text))")
            case .insert(let text, let position): lines.append("insert \(position) \(hex(text))")
            case .backspace: lines.append("backspace")
            }
        }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    default:
        fail("usage: type DIR SEED LIMIT | writer DIR TAG COUNT | mover DIR NOTE FOLDER | script SEED COUNT")
    }
} catch {
    fail("\(error)")
}
