import Foundation
import QuireCore

/// Why ``Store/sync(folder:)`` failed. Files other replicas wrote never cause one (they
/// are skipped and reported in ``SyncReport``); these are failures of this replica's own
/// side of the folder.
public enum SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The folder, or this replica's subfolder in it, cannot be created or listed.
    case folderUnavailable(path: String, problem: String)
    /// A file of this replica could not be written (a full disk, no permission …).
    case writeFailed(path: String, problem: String)
    /// One of this replica's pruned files could not be deleted.
    case deleteFailed(path: String, problem: String)
    /// The sync folder is the store's directory, inside it, or contains it.
    case overlapsStore(folder: String, store: String)
    /// The folder holds more changes of this replica than the store has: the store was
    /// restored from a backup or copied from another device.
    case folderAhead(replica: ReplicaID, inFolder: UInt64, inStore: UInt64)
    /// Two files of one replica's subfolder (two delta files, or a delta file and a
    /// file-sync engine's conflict copy of one) hold different changes for the same
    /// counters: two devices write as one replica (a restored backup, a copied store).
    /// `isThisReplica` when it is this store's own replica; otherwise the sync did
    /// everything else and imports nothing more of `replica` until it is resolved.
    case divergentHistories(replica: ReplicaID, files: [String], isThisReplica: Bool)
    /// This store is empty and imported nothing although other replicas use the folder:
    /// it has not joined their store (why, per file, in `problems`) and wrote nothing.
    case notJoined(folder: String, problems: [String])

    /// A sentence naming the problem and what to do.
    public var description: String {
        switch self {
        case .folderUnavailable(let path, let problem):
            "cannot use the sync folder \(path): \(problem); check that it exists, is a folder and is writable"
        case .writeFailed(let path, let problem):
            "cannot write \(path): \(problem); free disk space or fix the folder's permissions, then sync again (nothing is lost: the changes are written by the next sync)"
        case .deleteFailed(let path, let problem):
            "cannot delete \(path): \(problem); fix the folder's permissions (the file is only kept longer than needed)"
        case .overlapsStore(let folder, let store):
            "the sync folder \(folder) overlaps the store's directory \(store); keep the store out of synced folders and use a separate folder for syncing"
        case .folderAhead(let replica, let inFolder, let inStore):
            "the sync folder holds changes of replica \(replica) up to counter \(inFolder), but this store has only \(inStore): it was restored from a backup or copied; open a fresh store and import a full delta from another replica instead"
        case .divergentHistories(let replica, let files, let isThisReplica):
            (isThisReplica
                ? "two different histories are written under this store's replica ID \(replica): "
                : "two different histories are written under replica \(replica): ")
                + files.joined(separator: " and ") + " hold different changes for the same counters, so two devices write as that replica "
                + "(a store restored from a backup, or a copied store directory). "
                + (isThisReplica
                    ? "This sync wrote and imported nothing. "
                    : "Nothing more of that replica is imported until this is resolved; everything else was synced. ")
                + "Keep the replica on one device; on the other, move its store aside, sync a new empty store there "
                + "(it joins through the folder under a new replica ID), write again what was written there since the copy, "
                + "and delete the file that device wrote (the conflict copy)"
        case .notJoined(let folder, let problems):
            "this store is empty and has not joined the store that syncs through \(folder): nothing there could be imported"
                + (problems.isEmpty ? " (the other replicas' early delta files are gone)" : " (" + problems.joined(separator: "; ") + ")")
                + "; it wrote nothing to the folder. If the file-sync engine is still delivering files, sync again once it is done. "
                + "Otherwise sync one of the other replicas once (it writes a base delta file a new replica joins from), "
                + "or import a full delta: 'quire export -o FILE' where the store is, then 'quire import FILE' here"
        }
    }

    /// The most useful text of a Foundation file error: the system's reason when there is one.
    static func problem(_ error: any Error) -> String {
        if let problem = error as? SyncProblem { return problem.description }
        if let error = error as? SyncError { return error.description }
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError {
            return underlying.localizedDescription
        }
        return error.localizedDescription
    }
}

/// A problem with a file of the sync folder that is reported, not thrown to the caller.
struct SyncProblem: Error, Hashable, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
