import QuireCore

/// The tests' seeded generator.
typealias SeededRandom = SplitMix64

/// Text to type: ASCII, accented letters, combining marks, CJK, emoji (astral plane).
let sampleTexts = ["a", "b", "xyz", "é", "e\u{301}", "中文", "😀", "👩‍👩‍👧", "𝒜", " ", "hello", "🇫🇷"]

/// Why a set of replicas has not converged; empty when it has.
func convergenceFailures(_ replicas: [ReplicatedText]) -> [String] {
    guard let first = replicas.first else { return [] }
    var failures: [String] = []
    for other in replicas.dropFirst() {
        if other.string != first.string {
            failures.append("\(other.replica) has \(other.string.debugDescription), \(first.replica) has \(first.string.debugDescription)")
        }
        if other.version != first.version {
            failures.append("\(other.replica) is at \(other.version), \(first.replica) at \(first.version)")
        }
        for unit in [TextUnit.unicodeScalars, .utf16, .utf8] where other.count(in: unit) != first.count(in: unit) {
            failures.append("\(other.replica) counts \(other.count(in: unit)) \(unit), \(first.replica) \(first.count(in: unit))")
        }
    }
    return failures
}

/// Makes a random local edit: an insert of sample text or a delete of a short range.
func randomEdit(_ text: ReplicatedText, using random: inout SeededRandom) throws {
    let count = text.count
    if count > 0 && random.next() % 3 == 0 {
        let start = Int(random.next() % UInt64(count))
        let length = 1 + Int(random.next() % UInt64(min(4, count - start)))
        try text.delete(start..<start + length)
    } else {
        let position = Int(random.next() % UInt64(count + 1))
        try text.insert(sampleTexts[Int(random.next() % UInt64(sampleTexts.count))], at: position)
    }
}

/// Whether two strings hold the same Unicode scalars (`==` on `String` would call
/// canonically equivalent spellings, such as "é" and "e\u{301}", equal).
func sameScalars(_ a: String, _ b: String) -> Bool {
    a.unicodeScalars.elementsEqual(b.unicodeScalars)
}

/// Why `diff` does not turn `old` into `new`; empty when it does. Checks the edits' shape
/// (in order, separated, within the texts, UTF-16 ranges matching the scalar ones), then
/// applies them three ways: back to front by scalar ranges, back to front by UTF-16
/// ranges, and front to back at the inserted ranges.
func diffFailures(_ diff: TextDiff, from old: String, to new: String) -> [String] {
    func utf16Offsets(_ text: String) -> [Int] {
        var offsets = [0]
        for scalar in text.unicodeScalars { offsets.append(offsets[offsets.count - 1] + scalar.utf16.count) }
        return offsets
    }
    let oldUTF16 = utf16Offsets(old)
    let newUTF16 = utf16Offsets(new)
    var failures: [String] = []
    var previous: TextDiff.Edit?
    for (index, edit) in diff.edits.enumerated() {
        if edit.deletedRange.isEmpty && edit.insertedText.isEmpty { failures.append("edit \(index) changes nothing") }
        if let previous, edit.deletedRange.lowerBound <= previous.deletedRange.upperBound {
            failures.append("edit \(index) does not start after an unchanged character following edit \(index - 1)")
        }
        guard edit.deletedRange.lowerBound >= 0, edit.deletedRange.upperBound < oldUTF16.count,
            edit.insertedRange.lowerBound >= 0, edit.insertedRange.upperBound < newUTF16.count
        else {
            failures.append("edit \(index) reaches outside the texts")
            return failures
        }
        let deleted16 = oldUTF16[edit.deletedRange.lowerBound]..<oldUTF16[edit.deletedRange.upperBound]
        if edit.deletedUTF16Range != deleted16 {
            failures.append("edit \(index) deletes UTF-16 \(edit.deletedUTF16Range), its scalars are \(deleted16)")
        }
        let inserted16 = newUTF16[edit.insertedRange.lowerBound]..<newUTF16[edit.insertedRange.upperBound]
        if edit.insertedUTF16Range != inserted16 {
            failures.append("edit \(index) inserts at UTF-16 \(edit.insertedUTF16Range), its scalars are \(inserted16)")
        }
        if edit.insertedRange.count != edit.insertedText.unicodeScalars.count {
            failures.append("edit \(index) inserts \(edit.insertedText.unicodeScalars.count) scalars into a range of \(edit.insertedRange.count)")
        }
        previous = edit
    }
    guard failures.isEmpty else { return failures }
    var scalars = Array(old.unicodeScalars)
    var units = Array(old.utf16)
    for edit in diff.edits.reversed() {
        scalars.replaceSubrange(edit.deletedRange, with: edit.insertedText.unicodeScalars)
        units.replaceSubrange(edit.deletedUTF16Range, with: edit.insertedText.utf16)
    }
    var forward = Array(old.unicodeScalars)
    for edit in diff.edits {
        let start = edit.insertedRange.lowerBound
        guard start + edit.deletedRange.count <= forward.count else {
            failures.append("front to back, edit at \(start) reaches past the text")
            return failures
        }
        forward.replaceSubrange(start..<start + edit.deletedRange.count, with: edit.insertedText.unicodeScalars)
    }
    let expected = Array(new.unicodeScalars)
    if scalars != expected { failures.append("by scalar ranges, back to front, the diff gives \(String(String.UnicodeScalarView(scalars)).debugDescription), not \(new.debugDescription)") }
    if String(decoding: units, as: UTF16.self).unicodeScalars.elementsEqual(expected) == false {
        failures.append("by UTF-16 ranges, back to front, the diff gives \(String(decoding: units, as: UTF16.self).debugDescription)")
    }
    if forward != expected { failures.append("front to back, the diff gives \(String(String.UnicodeScalarView(forward)).debugDescription)") }
    return failures
}
