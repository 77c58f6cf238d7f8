import Foundation
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

/// Inputs the `delta-import` fuzz target found, as specifications.
@Suite("Fuzz findings: delta-import")
struct DeltaImportFindingsTests {
    /// `bytes` with the first occurrence of `pattern` replaced and the checksum resealed:
    /// a tampered file that gets past the checksum.
    private func tampered(_ bytes: [UInt8], replacing pattern: [UInt8], with replacement: [UInt8]) throws -> [UInt8] {
        let start = try #require((0...(bytes.count - pattern.count)).first { Array(bytes[$0..<($0 + pattern.count)]) == pattern })
        var body = Array(bytes.dropLast(4))
        body.replaceSubrange(start..<(start + pattern.count), with: replacement)
        withUnsafeBytes(of: CRC32C.checksum(body).littleEndian) { body.append(contentsOf: $0) }
        return body
    }

    @Test("A field value that is not JSON is refused, and the store is unchanged (it would make the record unreadable)")
    func fieldValueNotJSON() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (writer, receiver) = (replicas[0], replicas[1])
        let file = try writer.write { tx in try tx.insert(StoreSpec.File(name: "Shared", status: "draft", rating: 1)) }
        try receiver.importDelta(try #require(try writer.exportDelta()))
        let before = writer.version
        try writer.write { tx in try tx.update(file, as: StoreSpec.File.self) { $0.status = "final" } }
        let delta = try #require(try writer.exportDelta(since: before))
        let broken = try tampered(delta, replacing: Array("\"final\"".utf8), with: Array("xfinal\"".utf8))
        let dump = try StoreSpec.dump(receiver)

        #expect {
            try receiver.importDelta(broken)
        } throws: { error in
            guard case DeltaFileError.malformed(let problem) = error else { return false }
            return problem.contains("not JSON")
        }
        #expect(try StoreSpec.dump(receiver) == dump)
        #expect(try receiver.read { tx in try tx.record(StoreSpec.File.self, file).status } == "draft")
        // The untampered file still applies.
        try receiver.importDelta(delta)
        #expect(try receiver.read { tx in try tx.record(StoreSpec.File.self, file).status } == "final")
    }

    @Test("A change that places a record without its fields in the hierarchy, or under a record that does not exist, is refused")
    func hierarchyWithoutRecord() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (writer, receiver) = (replicas[0], replicas[1])
        try writer.write { tx in _ = try tx.insert(StoreSpec.Folder(name: "First")) }
        try receiver.importDelta(try #require(try writer.exportDelta()))
        try writer.write { tx in _ = try tx.insert(StoreSpec.Folder(name: "Second")) }
        let insert = try #require(try writer.changes().last)
        let dump = try StoreSpec.dump(receiver)

        // The insert's tree operation alone: a node in the hierarchy with no record.
        var bare = insert
        bare.operations = insert.operations.filter { if case .tree = $0 { true } else { false } }
        #expect(bare.operations.count == 1)
        #expect(throws: StoreError.self) { try receiver.apply([bare]) }
        #expect(try StoreSpec.dump(receiver) == dump)

        // The whole insert, but under a parent no replica created.
        var orphan = insert
        orphan.operations = insert.operations.map { operation in
            guard case .tree(var move) = operation else { return operation }
            move.parent = NodeID(replica: ReplicaID(77), counter: 3)
            return .tree(move)
        }
        #expect(throws: StoreError.self) { try receiver.apply([orphan]) }
        #expect(try StoreSpec.dump(receiver) == dump)

        // The real change applies.
        try receiver.apply([insert])
        #expect(try receiver.read { tx in try tx.all(StoreSpec.Folder.self).map(\.value.name) }.sorted() == ["First", "Second"])
    }

    @Test("A change carrying operations for one text twice is refused (the second copy was dropped as known, and the change log could no longer be read)")
    func textOperationsTwice() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (writer, receiver) = (replicas[0], replicas[1])
        let file = try writer.write { tx in
            let file = try tx.insert(StoreSpec.File(name: "Shared"))
            try tx.insert("Hello", at: 0, in: file.text("content"))
            return file
        }
        try receiver.importDelta(try #require(try writer.exportDelta()))
        let before = writer.version
        try writer.write { tx in try tx.insert("!", at: 5, in: file.text("content")) }
        let delta = try #require(try writer.exportDelta(since: before))
        var decoded = try DeltaFile.decode(delta)
        guard case .change(var change) = decoded.changes[0] else {
            Issue.record("a one-keystroke file holds a run")
            return
        }
        let text = try #require(change.operations.first { if case .text = $0 { true } else { false } })
        change.operations.append(text)
        decoded.changes[0] = .change(change)
        let dump = try StoreSpec.dump(receiver)

        #expect {
            try receiver.importDelta(decoded.encoded())
        } throws: { error in
            "\(error)".contains("twice")
        }
        #expect(try StoreSpec.dump(receiver) == dump)
        #expect(try receiver.changes().count == 1)
        try receiver.importDelta(delta)
        #expect(try receiver.read { tx in try tx.string(of: file.text("content")) } == "Hello!")
        try receiver.close()
        _ = try replicas.reopen(1)
        #expect(try replicas[1].changes().count == 2)
    }
}
