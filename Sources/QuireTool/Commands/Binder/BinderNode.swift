import Foundation
import Quire
import QuireApps
import QuireCore

/// A record of the writing app as the binder commands see it: a project, a folder or a
/// file, with its name.
struct BinderNode: Equatable {
    /// What a binder record is.
    enum Kind: String, Encodable {
        case project, folder, file
    }

    var id: RecordID
    var kind: Kind
    var name: String

    /// The binder record `id` now, or as it was at `version` (see
    /// `StoreReading.get(_:_:at:)`); `nil` for a record of another app (or none), or one
    /// the version precedes.
    static func read<R: StoreReading & ~Copyable>(
        _ id: RecordID, at version: VersionVector? = nil, _ tx: borrowing R
    ) throws -> BinderNode? {
        let kind: Kind, name: String?
        switch tx.typeName(of: id) {
        case Project.typeName: (kind, name) = (.project, try value(Project.self, id, at: version, tx)?.name)
        case Folder.typeName: (kind, name) = (.folder, try value(Folder.self, id, at: version, tx)?.name)
        case File.typeName: (kind, name) = (.file, try value(File.self, id, at: version, tx)?.name)
        default: return nil
        }
        return name.map { BinderNode(id: id, kind: kind, name: $0) }
    }

    /// The record `id` now (it must exist), or at `version`.
    private static func value<T: Record, R: StoreReading & ~Copyable>(
        _ type: T.Type, _ id: RecordID, at version: VersionVector?, _ tx: borrowing R
    ) throws -> T? {
        guard let version else { return try tx.record(type, id) }
        return try tx.get(type, id, at: version)
    }

    /// The binder records among `ids`, in order.
    static func read<R: StoreReading & ~Copyable>(_ ids: [RecordID], _ tx: borrowing R) throws -> [BinderNode] {
        try ids.compactMap { id in try read(id, tx) }
    }

    /// The binder children of `parent` (`nil`: the projects at the top level).
    static func children<R: StoreReading & ~Copyable>(of parent: RecordID?, _ tx: borrowing R) throws -> [BinderNode] {
        let nodes = try read(tx.children(of: parent), tx)
        return parent == nil ? nodes.filter { $0.kind == .project } : nodes
    }

    /// The content text of a file.
    var content: TextID { id.text(File.contentField) }

    /// `folder 3a9d52c01b7e4f66@12`, as errors list candidates.
    var kindAndID: String { "\(kind.rawValue) \(id)" }
}
