import Foundation
import Quire
import QuireApps
import QuireCore
import QuireTestSupport

/// A record type of the reference apps; its texts are the ones it declares.
protocol ReferenceRecord: Record, Equatable {}

extension Project: ReferenceRecord {}
extension Folder: ReferenceRecord {}
extension File: ReferenceRecord {}
extension Category: ReferenceRecord {}
extension CardNote: ReferenceRecord {}
extension Clue: ReferenceRecord {}

/// Every record type of both reference apps.
let referenceRecordTypes: [any ReferenceRecord.Type] = [Project.self, Folder.self, File.self, Category.self, CardNote.self, Clue.self]

/// Options that make merges check sibling names of every reference type, even in a
/// store that has not written one yet.
func referenceOptions(replica: UInt64? = nil) -> Store.Options {
    var options = Store.Options()
    options.durability = .noSync  // tests need no power-loss safety
    options.recordTypes = referenceRecordTypes
    if let replica { options.replica = ReplicaID(replica) }
    return options
}

/// Everything a reader can observe of a store, as text: the hierarchy (top level, then
/// the trash) with each record's ID, type, fields (as sorted-key JSON) and texts, and the
/// version. Two stores that agree on every observable value give equal dumps.
func dump(_ store: Store) throws -> String {
    try store.read { tx throws in
        var lines = ["top level:"]
        try appendLines(for: tx.children(of: nil), depth: 1, to: &lines, tx)
        lines.append("trash:")
        try appendLines(for: tx.trash, depth: 1, to: &lines, tx)
        let version = tx.version.counters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        lines.append("version: " + version.joined(separator: " "))
        return lines.joined(separator: "\n")
    }
}

private func appendLines(for ids: [RecordID], depth: Int, to lines: inout [String], _ tx: borrowing StoreReader) throws {
    for id in ids {
        lines.append(String(repeating: "  ", count: depth) + (try describe(id, tx)))
        try appendLines(for: tx.children(of: id), depth: depth + 1, to: &lines, tx)
    }
}

private func describe(_ id: RecordID, _ tx: borrowing StoreReader) throws -> String {
    guard let typeName = tx.typeName(of: id) else { return "\(id) <no record>" }
    guard let type = referenceRecordTypes.first(where: { $0.typeName == typeName }) else { return "\(id) <unknown type \(typeName)>" }
    return try describe(type, id, tx)
}

private func describe<T: ReferenceRecord>(_ type: T.Type, _ id: RecordID, _ tx: borrowing StoreReader) throws -> String {
    let value = try tx.record(T.self, id)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var line = "\(id) \(T.typeName) \(String(decoding: try encoder.encode(value), as: UTF8.self))"
    for field in (T.texts ?? []).sorted() {
        line += " \(field)=\(try tx.string(of: id.text(field)).debugDescription)"
    }
    return line
}

/// Sends each store the changes it lacks from every other, until all have the same
/// version (a few rounds: a change can depend on one that reached its sender late).
func exchangeAll(_ stores: [Store]) throws {
    for _ in 0..<stores.count {
        for receiver in stores {
            for sender in stores where sender !== receiver {
                try receiver.apply(sender.changes(since: receiver.version))
            }
        }
    }
}

/// Exchanges two stores' changes symmetrically: both deltas are computed before either
/// is applied, so each side merges exactly what the other made offline.
@discardableResult
func exchange(_ a: Store, _ b: Store) throws -> (intoA: MergeReport, intoB: MergeReport) {
    let forA = try b.changes(since: a.version)
    let forB = try a.changes(since: b.version)
    return (try a.apply(forA), try b.apply(forB))
}

/// Names of the children of `parent`, for any of the reference types.
func childNames(of parent: RecordID?, _ tx: borrowing StoreReader) throws -> [String] {
    try tx.children(of: parent).map { id in
        switch tx.typeName(of: id) {
        case Project.typeName: try tx.record(Project.self, id).name
        case Folder.typeName: try tx.record(Folder.self, id).name
        case File.typeName: try tx.record(File.self, id).name
        case Category.typeName: try tx.record(Category.self, id).title
        default: "\(id)"
        }
    }
}
