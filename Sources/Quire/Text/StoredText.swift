import LMDB
import QuireCore

/// A text value held in memory.
///
/// On disk a text is a state snapshot, written at the store's last checkpoint, plus the
/// operations of the changes logged since: a keystroke writes only its change-log entry.
/// A checkpoint writes fresh snapshots of the texts changed since, which keeps reading a
/// text close to the cost of decoding one snapshot. One is due after
/// ``checkpointChanges`` commits, or when the log since the last one reaches a quarter of
/// the snapshots that one wrote (``checkpointBytesDue(lastSnapshotBytes:)``), and when
/// the store closes. Sized so, a long typing session rewrites a large text's snapshot
/// a few times, not once every thousand keystrokes, and the file does not grow by the
/// snapshots LMDB cannot reuse yet.
final class StoredText {
    let text: ReplicatedText

    init(text: ReplicatedText) { self.text = text }

    /// Commits since the checkpoint that trigger the next one.
    static let checkpointChanges = 16_384
    /// Change-log bytes since the checkpoint that trigger the next one at the least and
    /// at the most.
    static let minimumCheckpointBytes = 64 << 10
    static let maximumCheckpointBytes = 512 << 10
    /// Commits after which the keystroke changes logged since are folded into runs.
    static let foldChanges = 1_000

    /// Change-log bytes since the checkpoint that trigger the next one, after one that
    /// wrote snapshots of `lastSnapshotBytes`.
    static func checkpointBytesDue(lastSnapshotBytes: Int) -> Int {
        min(maximumCheckpointBytes, max(minimumCheckpointBytes, lastSnapshotBytes / 4))
    }

    /// Reads the text `id`: its snapshot, then its operations in the changes after the
    /// checkpoint. `nil` when the store has neither.
    ///
    /// - Parameters:
    ///   - log: The state or snapshot whose change log and checkpoint to read.
    ///   - replica: This store's replica, which the text edits as.
    static func load<T: ReadableTransaction & ~Copyable>(
        _ id: TextID, from log: some ChangeLogReader, replica: ReplicaID, in tx: borrowing T
    ) throws -> StoredText? {
        let layout = log.layout
        let snapshot = try TextSnapshotStorage.read(id, layout: layout, in: tx)
        let logged = try log.operationsSinceCheckpoint(in: tx, only: id)[id]
        guard snapshot != nil || logged != nil else { return nil }
        let text: ReplicatedText
        do {
            text = try snapshot.map { try ReplicatedText(replica: replica, state: $0) } ?? ReplicatedText(replica: replica)
        } catch {
            throw StoreError.corrupt(database: layout.texts.name, problem: "text \(id): \(error)")
        }
        for operations in logged ?? [] {
            do {
                try text.apply(operations)
            } catch {
                throw StoreError.corrupt(database: layout.changes.name, problem: "text \(id): \(error)")
            }
        }
        return StoredText(text: text)
    }
}
