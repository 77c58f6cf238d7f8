import Foundation
import QuireCore

/// What the replicas of a store have acknowledged having: the input of history pruning
/// (``Store/pruneHistory(acknowledged:)``).
///
/// ```swift
/// var acknowledgements = try HistoryAcknowledgements(syncFolder: "/Users/me/Dropbox/Notes.sync")
/// acknowledgements.note(phone, has: phoneVersion)          // a version passed in by hand
/// let report = try store.pruneHistory(acknowledged: acknowledgements)
/// ```
///
/// A replica known to exist but without an acknowledgement blocks all pruning: the store
/// never removes a change some known replica may lack.
public struct HistoryAcknowledgements: Hashable, Sendable {
    /// Replica → the version it acknowledged having.
    public private(set) var versions: [ReplicaID: VersionVector] = [:]
    /// Replicas known to exist that have not acknowledged anything.
    public private(set) var unacknowledged: Set<ReplicaID> = []

    /// No acknowledgement at all.
    public init() {}

    /// Acknowledgements given as versions, replica by replica.
    public init(_ versions: [ReplicaID: VersionVector]) {
        for (replica, version) in versions { note(replica, has: version) }
    }

    /// Reads the acknowledgements of a sync folder (`FOLDER/<replica>/ack`, see
    /// `docs/format.md`). A replica with delta files but no readable `ack` is known but
    /// unacknowledged. Folders of other stores' lineages are not told apart here: pass
    /// the folder this store syncs with.
    ///
    /// An `ack`'s own line says how far the replica's files in the folder go, which is at
    /// most what it has: pruning by it is safe.
    ///
    /// - Throws: ``SyncError/folderUnavailable(path:problem:)`` when the folder cannot be
    ///   listed.
    public init(syncFolder folder: String) throws {
        let files = FileManager.default
        let names: [String]
        do {
            names = try files.contentsOfDirectory(atPath: folder)
        } catch {
            throw SyncError.folderUnavailable(path: folder, problem: SyncError.problem(error))
        }
        for name in names.sorted() {
            guard let replica = SyncFolderLayout.replica(folderName: name) else { continue }
            let subfolder = folder + "/" + name
            let entries = (try? files.contentsOfDirectory(atPath: subfolder)) ?? []
            let ackPath = subfolder + "/" + SyncFolderLayout.acknowledgementName
            if let data = files.contents(atPath: ackPath),
                let acknowledgement = try? SyncAcknowledgement.decode([UInt8](data.prefix(SyncAcknowledgement.maximumSize + 1))) {
                note(replica, has: acknowledgement.version)
            } else if entries.contains(where: { if case .delta = SyncFolderLayout.entry($0) { true } else { false } })
                        || entries.contains(SyncFolderLayout.acknowledgementName) {
                noteExists(replica)
            }
        }
    }

    /// Notes that `replica` has at least `version` (several notes of one replica keep the
    /// union: each is a lower bound of what it has).
    public mutating func note(_ replica: ReplicaID, has version: VersionVector) {
        versions[replica, default: VersionVector()].formUnion(version)
        unacknowledged.remove(replica)
    }

    /// Notes that `replica` exists, without knowing what it has.
    public mutating func noteExists(_ replica: ReplicaID) {
        if versions[replica] == nil { unacknowledged.insert(replica) }
    }

    /// Both sets of acknowledgements.
    public mutating func formUnion(_ other: HistoryAcknowledgements) {
        for (replica, version) in other.versions { note(replica, has: version) }
        for replica in other.unacknowledged { noteExists(replica) }
    }
}
