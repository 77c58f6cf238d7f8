import QuireCore

/// Why a delta file was refused. The store is unchanged whenever one is thrown.
public enum DeltaFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes do not start with the delta file magic number.
    case notADeltaFile
    /// The file is of a format version this build cannot read.
    case unsupportedVersion(Int)
    /// The file ends before its checksum, before the lengths and counts it declares, or
    /// is shorter than a header: cut short, for instance still being copied.
    case truncated
    /// The checksum does not match: the file was damaged or changed.
    case checksumMismatch(stored: UInt32, computed: UInt32)
    /// The content does not decode, or a count or length exceeds a limit.
    case malformed(String)
    /// The file belongs to another store, and this one has changes of other replicas: two
    /// stores that cannot be merged.
    case otherStore(file: StoreID, store: StoreID)
    /// The file belongs to another store, and this one has only its own changes (it was
    /// written before its first sync; `operations` counts them): it can join the file's
    /// store with ``Store/importDelta(_:joiningLineage:)``.
    case otherStoreJoinable(file: StoreID, store: StoreID, operations: UInt64)
    /// A compact file (without store ID) from a replica this store has never heard of.
    case unknownSender(ReplicaID)

    /// A sentence naming the problem and what to do.
    public var description: String {
        switch self {
        case .notADeltaFile:
            "not a Quire delta file (wrong magic number)"
        case .unsupportedVersion(let version):
            "delta file format version \(version) is not supported by this build; update Quire"
        case .truncated:
            "the delta file is truncated (it ends before the lengths it declares): it may still be syncing — try again once it is complete; if it stays so, it is damaged: fetch it again from its sender"
        case .checksumMismatch(let stored, let computed):
            "the delta file is damaged: checksum \(String(stored, radix: 16)) expected, \(String(computed, radix: 16)) found; fetch it again from its sender"
        case .malformed(let problem):
            "the delta file is malformed: \(problem)"
        case .otherStore(let file, let store):
            "the delta file belongs to store \(file), not to this store (\(store)); it comes from another lineage, and this "
                + "store already holds changes of other devices, so the two cannot be merged: import the file into a new, "
                + "empty store (it joins that lineage), or import here only files of this store's devices"
        case .otherStoreJoinable(let file, let store, let operations):
            "the delta file belongs to store \(file), not to this store (\(store)): this device wrote to it before its "
                + "first sync (\(operations) operation\(operations == 1 ? "" : "s")), which made it a store of its own. "
                + "To merge them into store \(file), import the file again joining its lineage "
                + "(importDelta(_:joiningLineage: true), or 'quire import --join'): this store then takes that lineage "
                + "and its changes travel on as that store's; or open a new, empty store to join it without them"
        case .unknownSender(let sender):
            "the delta file is a compact one from replica \(sender), which this store has not met yet; import that replica's earlier delta files first"
        }
    }
}
