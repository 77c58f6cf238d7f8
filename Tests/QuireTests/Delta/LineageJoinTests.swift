import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Delta files: a device that wrote before its first sync")
struct LineageJoinTests {
    typealias File = StoreSpec.File

    static func refusal(_ body: () throws -> Void) -> DeltaFileError? {
        do {
            try body()
            return nil
        } catch let error as DeltaFileError {
            return error
        } catch {
            return nil
        }
    }

    @Test("is told what to do; joining the file's lineage merges both, and its own changes then reach the other store")
    func joinAfterWritingLocally() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (laptop, phone) = (replicas[0], replicas[1])
        let ode = try laptop.write { tx in
            let ode = try tx.insert(File(name: "Ode"))
            try tx.insert("The sea.", at: 0, in: ode.text("content"))
            return ode
        }
        let memo = try phone.write { tx in
            let memo = try tx.insert(File(name: "Memo"))
            try tx.insert("Written offline.", at: 0, in: memo.text("content"))
            return memo
        }
        let delta = try #require(try laptop.exportDelta())
        let before = try StoreSpec.dump(phone)
        let refused = Self.refusal { try phone.importDelta(delta) }
        #expect(refused == .otherStoreJoinable(file: laptop.storeID, store: phone.storeID, operations: 3))
        let message = refused.map(String.init(describing:)) ?? ""
        #expect(message.contains("this device wrote to it before its first sync (3 operations), which made it a store of its own"))
        #expect(message.contains("importDelta(_:joiningLineage: true)") && message.contains("quire import --join"))
        #expect(try StoreSpec.dump(phone) == before)

        let report = try phone.importDelta(delta, joiningLineage: true)
        #expect(report.applied.count == 1)
        #expect(phone.storeID == laptop.storeID)
        // The phone's own change goes to the laptop, which accepts it as its lineage's.
        try laptop.importDelta(try #require(try phone.exportDelta(since: laptop.version)))
        #expect(try StoreSpec.dump(laptop) == StoreSpec.dump(phone))
        try laptop.read { tx throws in
            #expect(try tx.string(of: memo.text("content")) == "Written offline.")
            #expect(try tx.string(of: ode.text("content")) == "The sea.")
            #expect(Set(tx.children(of: nil)) == [ode, memo])
        }
        #expect(try replicas.reopen(1).storeID == laptop.storeID)
    }

    @Test("a store holding other devices' changes cannot join another lineage, and says why")
    func storeWithOthersChangesCannotJoin() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let (laptop, phone, tablet) = (replicas[0], replicas[1], replicas[2])
        try laptop.write { tx in try tx.insert(File(name: "Ode")) }
        try phone.write { tx in try tx.insert(File(name: "Memo")) }
        try tablet.importDelta(try #require(try phone.exportDelta()))   // the tablet joins the phone's store
        try tablet.write { tx in try tx.insert(File(name: "Sketch")) }
        let delta = try #require(try laptop.exportDelta())
        for joining in [false, true] {
            let refused = Self.refusal { try tablet.importDelta(delta, joiningLineage: joining) }
            #expect(refused == .otherStore(file: laptop.storeID, store: tablet.storeID))
            #expect(refused.map(String.init(describing:))?.contains("import the file into a new, empty store") == true)
        }
        #expect(tablet.storeID == phone.storeID)
        // A new store joins without being asked, as before.
        let fresh = try TemporaryDirectory()
        defer { fresh.remove() }
        let newcomer = try Store(directory: fresh.path, options: StoreSpec.options(replica: 7))
        defer { try? newcomer.close() }
        try newcomer.importDelta(delta)
        #expect(newcomer.storeID == laptop.storeID)
    }
}
