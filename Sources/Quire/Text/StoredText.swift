import LMDB
import QuireCore

/// A text value held in memory, with what is needed to persist its next edits.
///
/// On disk a text is a state snapshot plus the operations made since (one entry per
/// change that touched it), so a keystroke writes a few dozen bytes rather than the whole
/// text. When the entries outgrow ``compactionThreshold(snapshotBytes:)`` the next write
/// replaces them with a fresh snapshot, which keeps opening a text close to the cost of
/// decoding one snapshot.
final class StoredText {
    let text: ReplicatedText
    /// Operation entries after the snapshot, and their total size.
    var tailCount: Int
    var tailBytes: Int
    /// The size of the stored snapshot; `nil` when none is stored yet.
    var snapshotBytes: Int?

    init(text: ReplicatedText, tailCount: Int, tailBytes: Int, snapshotBytes: Int?) {
        self.text = text
        self.tailCount = tailCount
        self.tailBytes = tailBytes
        self.snapshotBytes = snapshotBytes
    }

    /// The most operation entries kept before a new snapshot is written.
    static let maximumTailCount = 512

    /// Whether `tailBytes` operation bytes after a snapshot of `snapshotBytes` are
    /// enough to write a new snapshot instead.
    static func compactionThreshold(snapshotBytes: Int) -> Int { max(8_192, snapshotBytes / 4) }

    /// Reads the text `id` (snapshot, then the operations after it), or `nil` when the
    /// store has no such text.
    static func load<T: ReadableTransaction & ~Copyable>(
        _ id: TextID, replica: ReplicaID, layout: StoreLayout, in tx: borrowing T
    ) throws -> StoredText? {
        guard let snapshot = try tx.value(forKey: StoreLayout.textKey(id), in: layout.texts) else { return nil }
        let text: ReplicatedText
        do {
            text = try ReplicatedText(replica: replica, state: snapshot)
        } catch {
            throw StoreError.corrupt(database: layout.texts.name, problem: "text \(id): \(error)")
        }
        var count = 0
        var bytes = 0
        var failure: (any Error)?
        try tx.scan(layout.textOperations, range: .prefix(StoreLayout.textKey(id))) { _, value in
            count += 1
            bytes += value.count
            do {
                try text.applyEncoded(Array(value))
            } catch {
                failure = error
                return .stop
            }
            return .continue
        }
        if let failure {
            throw StoreError.corrupt(database: layout.textOperations.name, problem: "text \(id): \(failure)")
        }
        return StoredText(text: text, tailCount: count, tailBytes: bytes, snapshotBytes: snapshot.count)
    }
}
