import QuireCore

/// Why a persisted tree could not be opened or read.
public enum TreeStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The store belongs to another replica: a copied store must not keep writing under
    /// the original's replica ID.
    case replicaMismatch(stored: ReplicaID, requested: ReplicaID)
    /// A stored record does not decode: the file is damaged or was written by an
    /// incompatible version.
    case corruptRecord(database: String, problem: String)

    /// What went wrong, and what to do.
    public var description: String {
        switch self {
        case .replicaMismatch(let stored, let requested):
            "the tree store belongs to replica \(stored), not \(requested); open it with its own replica ID, or give a copied store a new one by creating a fresh store and importing"
        case .corruptRecord(let database, let problem):
            "a record in \(database) is damaged (\(problem)); restore the store from a backup or re-sync it from another replica"
        }
    }
}
