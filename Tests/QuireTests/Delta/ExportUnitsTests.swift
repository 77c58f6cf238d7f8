import Foundation
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

/// An export sends the log's runs as they are stored, joined, instead of expanding every
/// run into its changes and joining those again, and reads the log from the entry where
/// the receiver's version ends: the file must be the same, byte for byte, from any version.
@Suite("Export: the log's runs sent whole")
struct ExportUnitsTests {
    typealias File = StoreSpec.File

    /// The file the export wrote before it took runs whole and read the log from where
    /// `version` ends: the whole log expanded into its changes, those `version` lacks
    /// kept, then joined.
    private static func fileOfExpandedChanges(_ store: Store, since version: VersionVector) throws -> [UInt8]? {
        try store.withSnapshot("test") { snapshot in
            let changes = try snapshot.storedChanges(since: VersionVector()).filter { $0.id.counter >= version[$0.id.replica] }
            return changes.isEmpty ? nil : snapshot.deltaFile(of: changes.map(ChangeUnit.change)).encoded()
        }
    }

    @Test("2,500 keystrokes logged as runs, and another replica's merged changes: from every version tried, the same file as expanding every change, and it imports to the same text")
    func sameFileFromEveryVersion() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let store = replicas[0]
        let file = try store.write { tx in try tx.insert(File(name: "Chapter")) }
        let text = file.text("content")
        var versions: [VersionVector] = [VersionVector(), store.version]
        for index in 0..<2_500 {
            let length = try store.read { tx in try tx.string(of: text) }.unicodeScalars.count
            if index % 9 == 8, length > 0 {
                try store.write { tx in try tx.delete(length - 1..<length, in: text) }
            } else {
                try store.write { tx in try tx.insert(String(UnicodeScalar(UInt8(97 + index % 26))), at: length, in: text) }
            }
            if index % 617 == 300 { versions.append(store.version) }  // inside the log's runs
        }
        // Another replica's typing, merged: units of a replica other than the sender's.
        try replicas[1].importDelta(try #require(try store.exportDelta()))
        for index in 0..<40 { try replicas[1].write { tx in try tx.insert("z", at: index, in: text) } }
        try store.importDelta(try #require(try replicas[1].exportDelta(since: store.version)))
        versions.append(store.version)  // nothing lacking
        let statistics = try store.statistics()
        // Folded every 1,000 commits: runs, then the last keystrokes one entry each.
        #expect(statistics.changeLogEntries < statistics.changeCount / 4, "the log holds runs")

        for version in versions {
            let exported = try store.exportDelta(since: version)
            #expect(exported == (try Self.fileOfExpandedChanges(store, since: version)), "since \(version)")
        }
        let whole = try #require(try store.exportDelta())
        try replicas[2].importDelta(whole)
        #expect(try replicas[2].read { tx in try tx.string(of: text) } == (try store.read { tx in try tx.string(of: text) }))
        #expect(try replicas[2].verify().isHealthy)
    }
}
