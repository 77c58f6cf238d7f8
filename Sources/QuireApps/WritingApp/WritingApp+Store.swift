import Foundation
import Quire

// The writing app's operations that take more than one store call, each in the
// caller's transaction so it is one change.

/// Creates a project at the top level of the store with the folder template of its type,
/// in the caller's transaction (so the project and its 15 folders are one change).
///
/// ```swift
/// let project = try store.write { tx in
///     try createProject(name: "My Poetry", type: .poetry, created: .now, in: tx)
/// }
/// ```
///
/// - Parameters:
///   - name: The project's name; validated with ``RecordName/validate(_:)``.
///   - type: Prose, poetry or drama; decides the first folder's name.
///   - created: The creation date the project list sorts by.
///   - details: Optional notes.
///   - tx: The write transaction.
/// - Returns: The project's ID; its folders are its subtree.
/// - Throws: ``StoreError/invalidName(_:reason:)`` for an invalid name (nothing is
///   written), or what the store throws.
@discardableResult
public func createProject(
    name: String, type: ProjectType, created: Date, details: String? = nil, in tx: borrowing StoreWriter
) throws -> RecordID {
    let project = try tx.insert(Project(name: name, type: type, created: created, details: details))
    for entry in ProjectTemplate.outline(for: type) {
        let folder = try tx.insert(Folder(name: entry.name), under: project)
        for child in entry.children { try tx.insert(Folder(name: child), under: folder) }
    }
    return project
}

/// Finds a folder of a project by its path of names, such as `["Your Poetry", "Draft"]`.
///
/// ```swift
/// let draft = try store.read { tx in try folder(at: ["Your Poetry", "Draft"], in: poems, tx) }
/// ```
///
/// - Returns: The first folder along the path with each name, or `nil` when a name is
///   missing.
/// - Complexity: O(*d* × *k*) for a path of *d* names and *k* siblings per level.
public func folder<R: StoreReading & ~Copyable>(at path: [String], in project: RecordID, _ tx: borrowing R) throws -> RecordID? {
    var current = project
    for name in path {
        guard let next = try tx.children(of: current, ofType: Folder.self).first(where: { $0.name == name }) else { return nil }
        current = next.id
    }
    return current
}

/// Creates a file named `name` in `folder` with `content`, in the caller's transaction.
///
/// ```swift
/// try store.write { tx in try createFile(named: "Ode", content: "The sea is calm", in: draft, tx) }
/// ```
///
/// - Returns: The file's ID.
/// - Throws: ``StoreError/invalidName(_:reason:)``, or ``StoreError/hierarchy(_:)`` for
///   an unknown folder.
@discardableResult
public func createFile(named name: String, content: String = "", in folder: RecordID, _ tx: borrowing StoreWriter) throws -> RecordID {
    let file = try tx.insert(File(name: name), under: folder)
    if !content.isEmpty { try tx.insert(content, at: 0, in: file.text(File.contentField)) }
    return file
}
