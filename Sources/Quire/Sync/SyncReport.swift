import QuireCore

/// What one ``Store/sync(folder:)`` did: the files it wrote, imported, skipped, ignored
/// and deleted. Paths are relative to the sync folder, such as
/// `"00000000000000a1/12-40.qdelta"`.
///
/// ```swift
/// let report = try store.sync(folder: syncFolder)
/// for skipped in report.skipped { log("\(skipped.path): \(skipped.reason)") }
/// let changed = report.merged.changedRecords
/// ```
public struct SyncReport: Hashable, Sendable {
    /// This replica's delta files written by this sync (at most one).
    public var written: [String] = []
    /// Other replicas' delta files imported, in the order they were, with what each did.
    public var imported: [ImportedFile] = []
    /// Delta and acknowledgement files that could not be used now, with why: damaged,
    /// truncated (perhaps still syncing), from another store, waiting for earlier files.
    /// The store is unchanged by them; a later sync tries them again.
    public var skipped: [SkippedFile] = []
    /// Entries that are not part of the sync folder's layout: temporary files, copies a
    /// file-sync engine made of another replica's files, anything else. Never deleted
    /// (conflict copies of this replica's own files are, see ``removedConflictCopies``).
    public var ignored: [SkippedFile] = []
    /// This replica's base delta file written by this sync, if it wrote one: its changes
    /// from counter 0 up to what every known replica has acknowledged, in one file that
    /// a replica joining later imports (see ``Store/sync(folder:)``).
    public var base: String?
    /// This replica's delta files deleted because every known replica has acknowledged
    /// their changes and the base delta file holds them.
    public var pruned: [String] = []
    /// Conflict copies a file-sync engine made of this replica's own files (its `ack`, or a
    /// delta file with the same changes as this store), deleted: they hold nothing new.
    public var removedConflictCopies: [String] = []
    /// The version this replica acknowledged in its `ack` file.
    public var acknowledged = VersionVector()

    /// Creates an empty report.
    public init() {}

    /// The imports' merge reports combined: changes applied and already known, changes
    /// still pending after the last import, and everything they changed.
    public var merged: MergeReport {
        var merged = MergeReport()
        for file in imported {
            let report = file.report
            merged.applied += report.applied
            merged.alreadyKnown += report.alreadyKnown
            merged.changedRecords.formUnion(report.changedRecords)
            merged.changedTexts.formUnion(report.changedTexts)
            merged.movedNodes.formUnion(report.movedNodes)
            merged.overwritten += report.overwritten
            merged.overlappingEdits += report.overlappingEdits  // each in the text as its import left it
            merged.skippedMoves += report.skippedMoves
            for clash in report.nameClashes where !merged.nameClashes.contains(clash) { merged.nameClashes.append(clash) }
        }
        let applied = Set(merged.applied)
        merged.pending = Array(Set(imported.last?.report.pending ?? []).subtracting(applied)).sorted()
        return merged
    }

    /// A delta file that was imported, and what importing it did.
    public struct ImportedFile: Hashable, Sendable {
        /// The file's path relative to the sync folder.
        public var path: String
        /// What the import did; changes whose dependencies have not arrived are pending.
        public var report: MergeReport
    }

    /// A file a sync did not use, and why.
    public struct SkippedFile: Hashable, Sendable, CustomStringConvertible {
        /// The file's path relative to the sync folder.
        public var path: String
        /// Why it was not used.
        public var reason: SkipReason

        public var description: String { "\(path): \(reason)" }
    }

    /// Why a sync did not use a file.
    public enum SkipReason: Hashable, Sendable, CustomStringConvertible {
        /// The name is not one the sync folder uses (`<replica>/<first>-<last>.qdelta`,
        /// `<replica>/ack`), for example an unknown file or folder.
        case unrecognizedName
        /// A temporary file (a write in progress, or left by an interrupted one).
        case temporaryFile
        /// A copy a file-sync engine made of a conflicting version of `original`. Only its
        /// replica writes `original`, so the copy holds nothing the original lacks.
        case conflictCopy(original: String)
        /// The delta file was refused: damaged, truncated, another store's, or a compact
        /// file from a replica this store has not met yet (its earlier files are missing).
        case rejected(DeltaFileError)
        /// The delta file's changes contradict this store (see ``StoreError``).
        case refused(StoreError)
        /// The file's content is not what its name says (another replica or range).
        case misnamed(String)
        /// Every change in the file is already waiting for changes that have not arrived.
        case waiting
        /// The file could not be read, or an acknowledgement does not parse.
        case unreadable(String)
        /// An acknowledgement of another store (`store`) than this one (`this`): a replica
        /// that has not joined this store, or another store using the same folder. It
        /// does not hold back pruning (a replica that joins later imports base files).
        case foreignAcknowledgement(store: StoreID, this: StoreID)

        public var description: String {
            switch self {
            case .unrecognizedName: "not a file of the sync folder's layout; ignored"
            case .temporaryFile: "a temporary file; ignored"
            case .conflictCopy(let original): "a file-sync engine's conflict copy of \(original); ignored"
            case .rejected(let error): error.description
            case .refused(let error): error.description
            case .misnamed(let problem): "the file's content does not match its name: \(problem)"
            case .waiting: "its changes are waiting for earlier changes that have not arrived yet; a later sync applies them"
            case .unreadable(let problem): "cannot be read: \(problem)"
            case .foreignAcknowledgement(let store, let this):
                "the acknowledgement of a replica of another store (\(store), not this store \(this)): it has not joined this store; "
                    + "it does not hold back pruning, and it joins by syncing once its store is empty (it imports the base delta files)"
            }
        }
    }
}
