import QuireCore

/// The texts a write session changed, in the order first touched, each with where it
/// stood before: what the commit collects their new operations from.
///
/// A list searched in place: a keystroke's session touches one text, and two dictionary
/// lookups and an insert by text ID cost it more than the edit itself. A merge that
/// touches many texts gets a dictionary index past ``indexedFrom`` entries.
struct TouchedTexts {
    /// Where a text stood before the session changed it.
    enum Start {
        /// Local edits only add this replica's operations: its counter in the text.
        case counter(UInt64)
        /// A merge adds others' operations: the text's version.
        case version(VersionVector)
    }

    struct Entry {
        let id: TextID
        let start: Start
    }

    private(set) var entries: [Entry] = []
    private var index: [TextID: Int] = [:]
    private static let indexedFrom = 16

    /// Whether `id` was touched.
    func contains(_ id: TextID) -> Bool {
        if entries.count >= Self.indexedFrom { return index[id] != nil }
        return entries.contains { $0.id == id }
    }

    /// Notes that `id` is touched, standing at `start`; the first note of a text counts.
    mutating func note(_ id: TextID, _ start: @autoclosure () -> Start) {
        guard !contains(id) else { return }
        entries.append(Entry(id: id, start: start()))
        if entries.count == Self.indexedFrom {
            for (position, entry) in entries.enumerated() { index[entry.id] = position }
        } else if entries.count > Self.indexedFrom {
            index[id] = entries.count - 1
        }
    }
}
