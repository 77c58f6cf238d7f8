import Foundation
import Quire

/// A writing project: a top-level record whose subtree is its folder template.
///
/// ```swift
/// let poems = try store.write { tx in
///     try createProject(name: "My Poetry", type: .poetry, created: .now, in: tx)
/// }
/// let byName = try store.read { tx in try tx.all(Project.self, sortedBy: \.name) }
/// ```
public struct Project: Record, Equatable {
    public static let typeName = "writing.project"
    public static let siblingNameField: String? = "name"
    /// A project owns no texts; its content is its folders and files.
    public static let texts: Set<String>? = []

    /// The name shown in the project list; unique among projects, but two offline
    /// devices may both create one name (reported as a ``NameClash``).
    public var name: String
    /// Prose, poetry or drama.
    public var type: ProjectType
    /// When the project was created; the list sorts by it.
    public var created: Date
    /// Free-form notes about the project.
    public var details: String?

    /// Creates a project value; insert it with ``createProject(name:type:created:details:in:)``
    /// to get its folder template too.
    public init(name: String, type: ProjectType, created: Date, details: String? = nil) {
        self.name = name
        self.type = type
        self.created = created
        self.details = details
    }

    /// Checks the name with ``RecordName/validate(_:)``.
    ///
    /// - Throws: ``StoreError/invalidName(_:reason:)``.
    public func validate() throws { try RecordName.validate(name) }
}
