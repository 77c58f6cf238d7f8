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
