import Foundation
import LMDB
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

/// Stores built for the verify and compaction suites, and direct access to their LMDB
/// databases for damaging them on purpose.
enum MaintenanceSpec {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    /// What two replicas wrote: replica 1 made a folder with a subfolder and a file, typed
    /// into it twice, and received replica 2's folder with a text.
    struct Built {
        var top: RecordID
        var sub: RecordID
        var file: RecordID
        var other: RecordID
    }

    /// Writes the scenario of ``Built`` into `a` (replica 1) and `b` (replica 2), both ways.
    static func build(_ a: Store, _ b: Store) throws -> Built {
        let (top, sub, file) = try a.write { tx in
            let top = try tx.insert(Folder(name: "Poems"))
            let sub = try tx.insert(Folder(name: "Drafts"), under: top)
            let file = try tx.insert(File(name: "Ode"), under: sub)
            try tx.insert("The sea", at: 0, in: file.text("content"))
            return (top, sub, file)
        }
        try a.write { tx in try tx.insert(" is calm.", at: 7, in: file.text("content")) }
        let other = try b.write { tx in
            let other = try tx.insert(Folder(name: "Notes"))
            try tx.insert("b's words", at: 0, in: other.text("body"))
            return other
        }
        try b.write { tx in try tx.update(other, as: Folder.self) { $0.name = "Reading" } }
        try StoreSpec.sync(a, b)
        try a.write { tx in try tx.insert("!", at: 16, in: file.text("content")) }
        try StoreSpec.send(a, to: b)
        return Built(top: top, sub: sub, file: file, other: other)
    }

    /// Opens the environment of a closed store and lets `body` change its databases.
    static func damage(_ directory: String, _ body: (Environment, StoreLayout, borrowing WriteTransaction) throws -> Void) throws {
        var configuration = Environment.Configuration()
        configuration.maxDatabases = 16
        let environment = try Environment(path: directory, configuration: configuration)
        defer { try? environment.close() }
        let layout = try StoreLayout(environment: environment)
        try environment.write { tx in try body(environment, layout, tx) }
    }

    /// The keys of a database, in order.
    static func keys(_ directory: String, _ database: (StoreLayout) -> Database) throws -> [[UInt8]] {
        var configuration = Environment.Configuration()
        configuration.maxDatabases = 16
        let environment = try Environment(path: directory, configuration: configuration)
        defer { try? environment.close() }
        let layout = try StoreLayout(environment: environment)
        return try environment.read { tx in try tx.entries(in: database(layout)).map(\.key) }
    }

    /// What a reader sees: the hierarchy with names, and every text.
    static func view(_ store: Store) throws -> [String] {
        try store.read { tx in
            var lines: [String] = []
            var stack: [(RecordID, Int)] = tx.children(of: nil).reversed().map { ($0, 0) } + tx.trash.reversed().map { ($0, 0) }
            while let (id, depth) = stack.popLast() {
                let fields = try StoreSpec.fields(of: id, tx)
                var line = String(repeating: "  ", count: depth) + "\(id) \(fields)"
                for field in StoreSpec.textFields {
                    let text = try tx.string(of: id.text(field))
                    if !text.isEmpty { line += " \(field)=\(text.debugDescription)" }
                }
                lines.append(line)
                stack += tx.children(of: id).reversed().map { ($0, depth + 1) }
            }
            return lines
        }
    }
}
