import Foundation
import LMDB
import Quire
import QuireCore
import QuireTestSupport
import Synchronization
import Testing

/// Record types, replica builders and a whole-store dump shared by the object-store
/// suites. Nested in one namespace so other suites of the target can use the short names.
enum StoreSpec {
    // MARK: Model domains (the writing app and the flash-card app)

    /// A writing-app project.
    struct Project: Record, Equatable {
        static let typeName = "spec.project"
        static let siblingNameField: String? = "name"
        enum Kind: String, Codable, Sendable { case prose, poetry, drama }
        var name: String
        var kind: Kind
        var created: Date
        var details: String?

        func validate() throws { try RecordName.validate(name) }
    }

    /// A writing-app folder.
    struct Folder: Record, Equatable {
        static let typeName = "spec.folder"
        static let siblingNameField: String? = "name"
        var name: String

        func validate() throws { try RecordName.validate(name) }
    }

    /// A writing-app file; its content is the text `"content"`.
    struct File: Record, Equatable {
        static let typeName = "spec.file"
        static let siblingNameField: String? = "name"
        var name: String
        var status = "draft"
        var rating: Int?

        func validate() throws { try RecordName.validate(name) }
    }

    /// A flash-card category.
    struct Category: Record, Equatable {
        static let typeName = "spec.category"
        var title: String
    }

    /// A flash card's clue, referring to a related note by ID.
    struct Clue: Record, Equatable {
        static let typeName = "spec.clue"
        var text: String
        var seeAlso: RecordID?
    }

    /// The names of the texts the suites write; the dump reads these of every record.
    static let textFields = ["content", "body", "answer"]

    // MARK: Replicas

    /// Options with a fixed replica ID, so `(lamport, replica)` ties are predictable.
    static func options(replica: UInt64) -> Store.Options {
        var options = Store.Options()
        options.replica = ReplicaID(replica)
        options.durability = .noSync
        return options
    }

    /// Options with a fixed replica ID whose changes are stamped by `clock`.
    static func options(replica: UInt64, clock: TestClock) -> Store.Options {
        var options = options(replica: replica)
        options.clock = { clock.date }
        return options
    }

    /// Sends `from`'s changes that `to` lacks; returns `to`'s merge report.
    @discardableResult
    static func send(_ from: Store, to: Store) throws -> MergeReport {
        try to.apply(from.changes(since: to.version))
    }

    /// Exchanges changes both ways.
    static func sync(_ a: Store, _ b: Store) throws {
        try send(a, to: b)
        try send(b, to: a)
    }

    // MARK: Dump

    /// Everything a reader can observe of a store, in a form that compares and prints.
    struct Dump: Equatable, CustomStringConvertible {
        var version: VersionVector
        var changes: [Change]
        /// One line per record reachable from the top level or the trash, depth first:
        /// id, parent, deleted, type, fields as sorted JSON, texts.
        var records: [String]
        /// Children order of the top level, the trash and every node.
        var children: [String]

        var description: String {
            (["version \(version)", "\(changes.count) changes"] + records + children).joined(separator: "\n")
        }
    }

    /// Reads the whole store: version, change log, every record (of the types above and
    /// `Note`), its texts, and the hierarchy.
    static func dump(_ store: Store) throws -> Dump {
        let changes = try store.changes()
        return try store.read { tx in
            var records: [String] = []
            var order: [String] = []
            order.append("top: \(tx.children(of: nil))")
            order.append("trash: \(tx.trash)")
            var stack = tx.children(of: nil).reversed() + tx.trash.reversed()
            var seen = Set<RecordID>()
            while let id = stack.popLast() {
                guard seen.insert(id).inserted else {
                    records.append("\(id) seen twice")
                    continue
                }
                let kids = tx.children(of: id)
                if !kids.isEmpty { order.append("\(id): \(kids)") }
                stack.append(contentsOf: kids.reversed())
                var line = "\(id) parent=\(tx.parent(of: id).map(String.init(describing:)) ?? "-") deleted=\(tx.isDeleted(id)) "
                line += try fields(of: id, tx)
                for field in textFields {
                    let text = try tx.string(of: id.text(field))
                    if !text.isEmpty { line += " \(field)=\(text.debugDescription)" }
                }
                records.append(line)
            }
            return Dump(version: tx.version, changes: changes, records: records, children: order)
        }
    }

    /// The record's type and fields as sorted JSON, read through its Swift type.
    static func fields(of id: RecordID, _ tx: borrowing StoreReader) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func json<T: Record>(_ type: T.Type) throws -> String {
            "\(T.typeName) " + String(decoding: try encoder.encode(tx.record(T.self, id)), as: UTF8.self)
        }
        switch tx.typeName(of: id) {
        case Project.typeName: return try json(Project.self)
        case Folder.typeName: return try json(Folder.self)
        case File.typeName: return try json(File.self)
        case Category.typeName: return try json(Category.self)
        case Clue.typeName: return try json(Clue.self)
        case Note.typeName: return try json(Note.self)
        case let other: return "unknown type \(other ?? "nil")"
        }
    }
}

/// Stores opened in fresh temporary directories, closed and removed by ``close()``.
final class Replicas {
    private(set) var directories: [TemporaryDirectory] = []
    private(set) var stores: [Store] = []

    /// Opens `count` stores with replica IDs 1, 2, 3 ….
    init(_ count: Int) throws {
        for index in 0..<count {
            let directory = try TemporaryDirectory()
            directories.append(directory)
            stores.append(try Store(directory: directory.path, options: StoreSpec.options(replica: UInt64(index + 1))))
        }
    }

    subscript(index: Int) -> Store { stores[index] }

    /// Closes store `index` and opens it again from disk.
    @discardableResult
    func reopen(_ index: Int) throws -> Store {
        try stores[index].close()
        stores[index] = try Store(directory: directories[index].path, options: StoreSpec.options(replica: UInt64(index + 1)))
        return stores[index]
    }

    /// Closes every store and removes the directories.
    func close() {
        for store in stores { try? store.close() }
        for directory in directories { directory.remove() }
    }
}

/// A clock a test sets and advances by hand: every change is stamped with what it says
/// (``Store/Options/clock``).
final class TestClock: Sendable {
    private let now = Mutex<TimeInterval>(1_780_000_000)
    var date: Date { Date(timeIntervalSince1970: now.withLock { $0 }) }
    func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
}
