import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

/// Calling a store inside one of its own transaction bodies: an error, never a crash.
/// Without the check, each of these kills the test process with "Recursive call to lock
/// Mutex".
@Suite("Store: calls inside a transaction body")
struct StoreNestedCallTests {
    typealias Folder = StoreSpec.Folder

    static func isNested(_ error: any Error, call: String) -> Bool {
        guard case .nestedTransaction(let named)? = error as? StoreError else { return false }
        return named == call
    }

    @Test("store.read, store.write and store.changes inside a body throw .nestedTransaction naming the call")
    func nestedCallsThrow() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let folder = try store.write { tx in try tx.insert(Folder(name: "Drafts")) }

        let readInRead = #expect(throws: StoreError.self) {
            try store.read { _ in try store.read { tx in tx.children(of: nil) } }
        }
        #expect(readInRead.map { Self.isNested($0, call: "store.read") } == true)
        let message = readInRead.map { "\($0)" } ?? ""
        #expect(message.contains("store.read") && message.contains("move the call outside the body"))

        let writeInRead = #expect(throws: StoreError.self) {
            try store.read { _ in try store.write { tx in try tx.delete(folder) } }
        }
        #expect(writeInRead.map { Self.isNested($0, call: "store.write") } == true)

        let changesInWrite = #expect(throws: StoreError.self) {
            try store.write { tx in
                try tx.update(folder, as: Folder.self) { $0.name = "Poems" }
                _ = try store.changes()
            }
        }
        #expect(changesInWrite.map { Self.isNested($0, call: "store.changes") } == true)

        // The failed write wrote nothing, and the store works on.
        #expect(try store.read { tx in try tx.record(Folder.self, folder).name } == "Drafts")
        try store.write { tx in try tx.update(folder, as: Folder.self) { $0.name = "Poems" } }
        #expect(try store.read { tx in try tx.record(Folder.self, folder).name } == "Poems")
        #expect(try store.changes().count == 2)
    }

    @Test("a body that catches the nested call's error goes on and commits")
    func caughtNestedCall() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (folder, caught) = try store.write { tx throws in
            let folder = try tx.insert(Folder(name: "Drafts"))
            var caught: StoreError?
            do { try store.write { _ in } } catch let error as StoreError { caught = error }
            return (folder, caught)
        }
        #expect(caught == .nestedTransaction("store.write"))
        #expect(try store.read { tx in tx.children(of: nil) } == [folder])
    }

    @Test("store.version and store.storeID inside a body answer from the state the body sees")
    func propertiesInsideBodies() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        try store.write { tx in _ = try tx.insert(Folder(name: "Drafts")) }
        let (outsideVersion, outsideID) = (store.version, store.storeID)

        let (readVersion, txVersion, readID) = try store.read { tx in (store.version, tx.version, store.storeID) }
        #expect(readVersion == outsideVersion && txVersion == outsideVersion && readID == outsideID)

        let (writeVersion, writeID) = try store.write { tx throws in
            _ = try tx.insert(Folder(name: "Poems"))
            return (store.version, store.storeID)
        }
        #expect(writeVersion == outsideVersion && writeID == outsideID)  // before this write commits
        #expect(store.version != outsideVersion)                         // and after it
    }

    @Test("another store may be used inside a body: the check is per store")
    func otherStoreInsideBody() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        try a.write { tx in _ = try tx.insert(Folder(name: "Drafts")) }
        let changes = try b.write { _ in try a.changes() }  // a read of A inside B's write
        #expect(changes.count == 1)
        let merged = try a.read { _ in try b.apply(changes) }  // a write of B inside A's read
        #expect(merged.applied.count == 1)
        #expect(try b.read { tx in tx.children(of: nil).count } == 1)
    }

    @Test("reads of two stores nest on one thread: each knows its own snapshot, and leaving clears it")
    func nestedReadsOfTwoStores() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        try a.write { tx in _ = try tx.insert(Folder(name: "Drafts")) }
        let versionA = a.version
        try a.read { outer in
            #expect(a.version == outer.version)
            try b.read { inner in
                #expect(b.version == inner.version)
                #expect(a.version == versionA, "A's read is still registered inside B's")
                #expect(throws: StoreError.self) { try a.read { _ in 0 } }
                #expect(throws: StoreError.self) { try b.read { _ in 0 } }
            }
            #expect(throws: StoreError.self) { try a.read { _ in 0 } }
            #expect(try b.read { tx in tx.children(of: nil).count } == 0, "B's read ended with its body")
        }
        try a.write { tx in _ = try tx.insert(Folder(name: "Later")) }  // A's read ended too
        #expect(try a.read { tx in tx.children(of: nil).count } == 2)
    }
}

