import Foundation
import Quire
import QuireTestSupport
import Testing

// The shapes docs/store.md ("Helper functions over a transaction") recommends for code
// that factors work on a transaction into functions. This file compiles with the suite,
// so a shape that stops compiling (or starts crashing the compiler) fails the build.
//
// Not here, because it crashes the Swift 6.3.1 compiler (MoveOnlyChecker, signal 11): a
// local `func` or a closure stored in a `let`, inside `store.read { tx in … }`, that
// captures `tx`:
//
//     try store.read { tx in
//         func title(_ id: RecordID) throws -> String { try tx.record(Note.self, id).title }   // crashes swiftc
//         return try ids.map(title)
//     }

/// Shape 1: a generic function over any transaction, taking it as `borrowing`; works in
/// `read` and in `write` alike.
private func title<Tx: StoreReading & ~Copyable>(of id: RecordID, in tx: borrowing Tx) throws -> String {
    try tx.record(StoreSpec.Folder.self, id).name
}

/// Shape 1 for writes: a function taking `borrowing StoreWriter`.
private func rename(_ id: RecordID, to name: String, in tx: borrowing StoreWriter) throws {
    try tx.update(id, as: StoreSpec.Folder.self) { $0.name = name }
}

@Suite("Transaction helpers: the shapes that compile")
struct TransactionHelperShapesTests {
    typealias Folder = StoreSpec.Folder

    @Test("a generic helper over StoreReading, a local func taking tx as a parameter, and an inline closure all read through the transaction")
    func helperShapes() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let ids = try store.write { tx throws in
            let ids = try ["Draft", "Ready"].map { try tx.insert(Folder(name: $0)) }
            try rename(ids[1], to: "Done", in: tx)
            #expect(try title(of: ids[1], in: tx) == "Done")   // the writer's own write
            return ids
        }
        let names = try store.read { tx throws in
            // Shape 2: a local func that takes the transaction as a parameter, not a capture.
            func name(_ id: RecordID, in tx: borrowing StoreReader) throws -> String { try tx.record(Folder.self, id).name }
            var names: [String] = []
            for id in ids { names.append(try name(id, in: tx)) }
            // Shape 3: an inline, non-escaping closure may capture `tx`.
            let mapped = try ids.map { id in try tx.record(Folder.self, id).name }
            let generic = try ids.map { id in try title(of: id, in: tx) }
            #expect(mapped == names && generic == names)
            return names
        }
        #expect(names == ["Draft", "Done"])
    }
}
