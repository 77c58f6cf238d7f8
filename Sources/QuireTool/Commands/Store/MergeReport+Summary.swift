import Quire

extension MergeReport {
    /// The report as `quire import` and `quire sync` print it: one line of counts, then
    /// a line for each overwritten value, name clash and overlapping edit of a text.
    ///
    /// ```
    /// 12 applied, 0 already known, 1 pending; 3 records, 1 text, 0 hierarchy nodes changed; 1 overwritten value, 0 name clashes, 0 skipped moves
    ///   overwritten: 5f…@3.title lost "Draft" (written at 17@3a9d…)
    /// ```
    var summaryLines: [String] {
        var line = "\(applied.count) applied, \(alreadyKnown.count) already known, \(pending.count) pending; "
        line += Self.count(changedRecords.count, "record") + ", " + Self.count(changedTexts.count, "text") + ", "
        line += Self.count(movedNodes.count, "hierarchy node") + " changed; "
        line += Self.count(overwritten.count, "overwritten value") + ", " + Self.count(nameClashes.count, "name clash", plural: "name clashes")
        line += ", " + Self.count(skippedMoves, "skipped move")
        var lines = [line]
        lines += overwritten.map { "  overwritten: \($0)" }
        lines += nameClashes.map { "  name clash: \($0) (both kept; rename one)" }
        lines += overlappingEdits.map { "  overlapping edits: \($0) (both kept, interleaved; review the passage)" }
        if skippedMoves > 0 {
            lines.append("  skipped moves: \(skippedMoves) would have made a cycle; they stay in the log and may apply later")
        }
        return lines
    }

    /// `1 record`, `2 records`.
    static func count(_ count: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
    }

    /// Adds another report's counts and lists to this one.
    mutating func add(_ other: MergeReport) {
        applied += other.applied
        alreadyKnown += other.alreadyKnown
        pending = other.pending  // what is still pending after the latest import
        changedRecords.formUnion(other.changedRecords)
        changedTexts.formUnion(other.changedTexts)
        movedNodes.formUnion(other.movedNodes)
        overwritten += other.overwritten
        overlappingEdits += other.overlappingEdits
        for clash in other.nameClashes where !nameClashes.contains(clash) { nameClashes.append(clash) }
        skippedMoves += other.skippedMoves
    }
}
