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

    /// The binder record `id`, or `nil` for a record of another app (or none).
    static func read<R: StoreReading & ~Copyable>(_ id: RecordID, _ tx: borrowing R) throws -> BinderNode? {
        switch tx.typeName(of: id) {
        case Project.typeName: BinderNode(id: id, kind: .project, name: try tx.record(Project.self, id).name)
        case Folder.typeName: BinderNode(id: id, kind: .folder, name: try tx.record(Folder.self, id).name)
        case File.typeName: BinderNode(id: id, kind: .file, name: try tx.record(File.self, id).name)
        default: nil
        }
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
