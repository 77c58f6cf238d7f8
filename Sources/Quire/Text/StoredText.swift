import LMDB
import QuireCore

/// A text value held in memory.
///
/// On disk a text is a state snapshot, written at the store's last checkpoint, plus the
/// operations of the changes logged since: a keystroke writes only its change-log entry.
/// A checkpoint (every ``checkpointChanges`` changes or ``checkpointBytes`` of log, and
/// when the store closes) writes fresh snapshots of the texts changed since, which
/// keeps reading a text close to the cost of decoding one snapshot.
final class StoredText {
    let text: ReplicatedText

    init(text: ReplicatedText) { self.text = text }

    /// Changes logged since the checkpoint that trigger the next one.
    static let checkpointChanges = 1_000
    /// Change-log bytes since the checkpoint that trigger the next one.
    static let checkpointBytes = 512 << 10

    /// Reads the text `id`: its snapshot, then its operations in the changes after the
    /// checkpoint. `nil` when the store has neither.
    static func load<T: ReadableTransaction & ~Copyable>(
        _ id: TextID, state: StoreState, in tx: borrowing T
    ) throws -> StoredText? {
        let layout = state.layout
        let snapshot = try tx.value(forKey: StoreLayout.textKey(id), in: layout.texts)
        let logged = try state.operationsSinceCheckpoint(in: tx, only: id)[id]
        guard snapshot != nil || logged != nil else { return nil }
        let text: ReplicatedText
        do {
            text = try snapshot.map { try ReplicatedText(replica: state.replica, state: $0) } ?? ReplicatedText(replica: state.replica)
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
