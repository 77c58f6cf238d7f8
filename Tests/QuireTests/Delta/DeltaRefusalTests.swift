import Foundation
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Delta files: refusals leave the store unchanged")
struct DeltaRefusalTests {
    private typealias File = StoreSpec.File

    /// Two replicas of one lineage, the receiver already holding the writer's first change,
    /// and a compact delta file of the writer's next change.
    private func setUp() throws -> (Replicas, writer: Store, receiver: Store, delta: [UInt8]) {
        let replicas = try Replicas(2)
        let (writer, receiver) = (replicas[0], replicas[1])
        let file = try writer.write { tx in
            let file = try tx.insert(File(name: "Shared", status: "draft", rating: 0))
            try tx.insert("Hello", at: 0, in: file.text("content"))
            return file
        }
        try receiver.importDelta(try #require(try writer.exportDelta()))
        let before = writer.version
        try writer.write { tx in
            try tx.update(file, as: File.self) { $0.rating = 5 }
            try tx.insert(" world", at: 5, in: file.text("content"))
        }
        return (replicas, writer, receiver, try #require(try writer.exportDelta(since: before)))
    }

    /// Replaces the checksum so that only the change under test is wrong.
    private func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var body = Array(bytes.dropLast(4))
        withUnsafeBytes(of: CRC32C.checksum(body).littleEndian) { body.append(contentsOf: $0) }
        return body
    }

    /// Imports `bytes`, expecting a refusal whose message contains `fragment`, and checks
    /// that the store is exactly as before.
    private func expectRefusal(_ bytes: [UInt8], into store: Store, mentioning fragment: String,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try StoreSpec.dump(store)
        let version = store.version
        do {
            try store.importDelta(bytes)
            Issue.record("the import was not refused", sourceLocation: sourceLocation)
        } catch {
            #expect("\(error)".contains(fragment), "message: \(error)", sourceLocation: sourceLocation)
        }
        #expect(try StoreSpec.dump(store) == before, sourceLocation: sourceLocation)
        #expect(store.version == version, sourceLocation: sourceLocation)
    }

    @Test("the untouched file imports, so each refusal below is about its defect")
    func control() throws {
        let (replicas, _, receiver, delta) = try setUp()
        defer { replicas.close() }
        #expect(try receiver.importDelta(delta).applied.count == 1)
    }

    @Test("runs that claim billions of changes in a few kilobytes are refused without allocating by the claim")
    func claimedChangesAllocateNothing() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (writer, receiver) = (replicas[0], replicas[1])
        // 262,144 runs from the writer, each claiming 65,536 one-counter changes with one
        // byte of text operations: 2^34 changes, 16 B each if anything sized by the claim.
        let changesPerRun = UInt64(DeltaRun.maximumChanges)
        let runs = (0..<UInt64(1 << 18)).map { k in
            DeltaUnit.run(DeltaRun(
                id: ChangeID(replica: writer.replica, counter: k * changesPerRun), lamport: k * changesPerRun + 1,
                lamportSteps: [.init(value: 1, times: changesPerRun - 1)], lengths: [.init(value: 1, times: changesPerRun)],
                count: changesPerRun, dependencies: VersionVector(), table: [writer.replica],
                record: RecordID(replica: writer.replica, counter: 0), field: .spelled("content"), encoded: [0]))
        }
        let file = DeltaFile(storeID: writer.storeID, sender: writer.replica, senderFirst: 0, changes: runs).encoded()
        #expect(file.count < 64 << 10)
        try expectRefusal(file, into: receiver, mentioning: "run")
    }

    @Test("wrong magic number")
    func wrongMagic() throws {
        let (replicas, _, receiver, delta) = try setUp()
        defer { replicas.close() }
        var bytes = delta
        bytes[0] = UInt8(ascii: "P")
        try expectRefusal(bytes, into: receiver, mentioning: "not a Quire delta file")
        try expectRefusal(Array("{\"json\": true}".utf8), into: receiver, mentioning: "not a Quire delta file")
    }

    @Test("unsupported format version")
    func unsupportedVersion() throws {
        let (replicas, _, receiver, delta) = try setUp()
        defer { replicas.close() }
        var bytes = delta
        bytes[2] = 4 << 4 | (bytes[2] & 0x0F)
        try expectRefusal(resealed(bytes), into: receiver, mentioning: "format version 4 is not supported")
    }

    @Test("truncated at every length")
    func truncated() throws {
        let (replicas, _, receiver, delta) = try setUp()
        defer { replicas.close() }
        for length in 0..<delta.count {
            let cut = Array(delta.prefix(length))
            let before = receiver.version
            do {
                try receiver.importDelta(cut)
                Issue.record("a file cut to \(length) of \(delta.count) bytes was accepted")
            } catch let error as DeltaFileError {
                switch error {
                case .truncated, .checksumMismatch, .notADeltaFile: break
                default: Issue.record("cut to \(length): \(error)")
                }
            }
            #expect(receiver.version == before)
        }
    }

    @Test("a file cut short at any length is reported as truncated (it may still be syncing), not as damaged")
    func cutShortIsTruncated() throws {
        let (replicas, writer, receiver, small) = try setUp()
        defer { replicas.close() }
        // A second file, deflated: a long text and many changes.
        let before = writer.version
        try writer.write { tx in
            let file = try tx.insert(File(name: "Long", status: "draft", rating: 1))
            try tx.insert(String(repeating: "all work and no play ", count: 200), at: 0, in: file.text("content"))
        }
        for round in 0..<20 {
            try writer.write { tx in
                let file = try tx.insert(File(name: "F\(round)", status: "s", rating: round))
                try tx.insert("round \(round)", at: 0, in: file.text("content"))
            }
        }
        let large = try #require(try writer.exportDelta(since: before))
        #expect(large[2] & 1 == 1, "the payload is deflated")
        // Every cut of the deflated file; of the small plain one, every cut but one that
        // lands where the cut-off rest declares no length (27 of 43 bytes: reported as
        // damaged, which is still refused).
        for (delta, undetectable) in [(small, 1), (large, 0)] {
            var damaged = 0
            for length in 0..<delta.count {
                do {
                    try receiver.importDelta(Array(delta.prefix(length)))
                    Issue.record("a file cut to \(length) of \(delta.count) bytes was accepted")
                } catch let error as DeltaFileError {
                    if error != .truncated { damaged += 1 }
                }
            }
            #expect(damaged <= undetectable, "\(damaged) cuts of \(delta.count) bytes read as damaged")
        }
        try expectRefusal(Array(large.prefix(large.count / 2)), into: receiver, mentioning: "truncated (it ends before the lengths it declares): it may still be syncing")
    }

    @Test("a flipped bit anywhere is refused: as damaged, or as truncated where it makes a declared length run past the end")
    func checksum() throws {
        let (replicas, _, receiver, delta) = try setUp()
        defer { replicas.close() }
        for position in 3..<delta.count {
            var bytes = delta
            bytes[position] ^= 0x10
            do {
                try receiver.importDelta(bytes)
                Issue.record("a flipped bit at \(position) was accepted")
            } catch let error as DeltaFileError {
                switch error {
                case .checksumMismatch, .truncated: break
                default: Issue.record("flip at \(position): \(error)")
                }
            }
        }
        var bytes = delta
        bytes[delta.count / 2] ^= 1
        try expectRefusal(bytes, into: receiver, mentioning: "damaged")
    }

    @Test("counts and lengths beyond the file or the limits are refused before allocating")
    func limits() throws {
        let (replicas, _, receiver, _) = try setUp()
        defer { replicas.close() }
        // Header of a compact file from the known writer: magic, version 1 (no flags), sender 1, first 0.
        let header: [UInt8] = [0x51, 0x44, 0x10] + [1, 0, 0, 0, 0, 0, 0, 0] + [0]
        func file(_ payload: [UInt8]) -> [UInt8] { resealed(header + payload + [0, 0, 0, 0]) }
        // 2^40 changes in a file of a few bytes.
        try expectRefusal(file([0x80, 0x80, 0x80, 0x80, 0x80, 0x20]), into: receiver, mentioning: "exceeds the limit")
        // 100,000 changes announced, none there.
        try expectRefusal(file([0xA0, 0x8D, 0x06]), into: receiver, mentioning: "malformed")
        // A deflated payload declaring a gigabyte and more.
        let deflatedHeader: [UInt8] = [0x51, 0x44, 0x11] + [1, 0, 0, 0, 0, 0, 0, 0] + [0]
        try expectRefusal(resealed(deflatedHeader + [0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x03, 0x00] + [0, 0, 0, 0]),
                          into: receiver, mentioning: "exceeds the limit")
        // A field value claiming 16 MiB and more.
        let change: [UInt8] = [0x09, 0x00, 0x00, 0x00, 0x01] + [0x80, 0x80, 0x80, 0x10]
        try expectRefusal(file(change), into: receiver, mentioning: "malformed")
    }

    /// `delta` (a file whose payload is not deflated) with its payload replaced by `stream`
    /// of it, declared as `size` of its length, resealed.
    private func deflating(_ delta: [UInt8], declaring size: (Int) -> Int = { $0 },
                           stream: ([UInt8]) throws -> [UInt8] = { try #require(RawDeflate.compress($0)) }) throws -> [UInt8] {
        #expect(delta[2] & 1 == 0)
        var headerEnd = 3 + (delta[2] & 2 != 0 ? StoreID.byteCount : 0) + 8
        while delta[headerEnd] & 0x80 != 0 { headerEnd += 1 }
        headerEnd += 1  // the sender's first counter
        let payload = Array(delta[headerEnd..<(delta.count - 4)])
        var writer = ByteWriter()
        writer.write(raw: Array(delta[..<headerEnd]))
        writer.write(varint: UInt64(size(payload.count)))
        writer.write(raw: try stream(payload))
        var bytes = writer.bytes + [0, 0, 0, 0]
        bytes[2] |= 1
        return resealed(bytes)
    }

    @Test("a deflated payload that is truncated, garbage, of the wrong size, followed by other bytes or a bomb is refused, naming the problem")
    func malformedDeflatedPayload() throws {
        let (replicas, _, receiver, delta) = try setUp()
        defer { replicas.close() }
        let compress = { (bytes: [UInt8]) throws -> [UInt8] in try #require(RawDeflate.compress(bytes)) }
        try expectRefusal(try deflating(delta, stream: { Array(try compress($0).dropLast(2)) }), into: receiver,
                          mentioning: "payload: input ends inside deflate stream")
        try expectRefusal(try deflating(delta, stream: { _ in [0x07, 0x01, 0x02] }), into: receiver,
                          mentioning: "payload: deflate stream: invalid block type")
        try expectRefusal(try deflating(delta, declaring: { $0 - 5 }), into: receiver,
                          mentioning: "payload: deflate stream inflates to more than")
        try expectRefusal(try deflating(delta, declaring: { $0 + 1 }), into: receiver,
                          mentioning: "bytes, not")
        try expectRefusal(try deflating(delta, stream: { try compress($0) + [0xAB] }), into: receiver,
                          mentioning: "payload: 1 bytes after the end of the deflate stream")
        // A few bytes declaring 100 MiB (within the 1 GiB limit): refused before allocating.
        try expectRefusal(try deflating(delta, declaring: { _ in 100 << 20 }), into: receiver,
                          mentioning: "cannot inflate to 104857600 bytes")
        // A real bomb: 64 MiB of zeros declared as the payload's size; inflation stops there.
        try expectRefusal(try deflating(delta, stream: { _ in try compress([UInt8](repeating: 0, count: 64 << 20)) }), into: receiver,
                          mentioning: "inflates to more than")
        // The control: the payload deflated as it should be imports.
        #expect(try receiver.importDelta(try deflating(delta)).applied.count == 1)
    }

    @Test("a file of another store's lineage is refused")
    func otherLineage() throws {
        let (replicas, _, receiver, _) = try setUp()
        defer { replicas.close() }
        let stranger = try TemporaryDirectory()
        defer { stranger.remove() }
        let other = try Store(directory: stranger.path, options: StoreSpec.options(replica: 9))
        defer { try? other.close() }
        try other.write { tx in try tx.insert(File(name: "Elsewhere", status: "s", rating: 1)) }
        try expectRefusal(try #require(try other.exportDelta()), into: receiver, mentioning: "belongs to store")
    }

    @Test("a compact file from a replica never met is refused until its earlier files arrive")
    func unknownSender() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let (writer, friend, stranger) = (replicas[0], replicas[1], replicas[2])
        try writer.write { tx in try tx.insert(File(name: "First", status: "s", rating: 0)) }
        let full = try #require(try writer.exportDelta())
        try friend.importDelta(full)
        try stranger.write { tx in try tx.insert(File(name: "Own", status: "s", rating: 0)) }
        let before = writer.version
        try writer.write { tx in try tx.insert(File(name: "Second", status: "s", rating: 0)) }
        let compact = try #require(try writer.exportDelta(since: before))
        try expectRefusal(compact, into: stranger, mentioning: "has not met yet")
        #expect(try friend.importDelta(compact).applied.count == 1)
    }

    @Test("a cloned replica's divergent change under a known ID is refused")
    func clonedReplica() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (original, receiver) = (replicas[0], replicas[1])
        try original.write { tx in try tx.insert(File(name: "Base", status: "s", rating: 0)) }
        try receiver.importDelta(try #require(try original.exportDelta()))
        // Copy the original's directory: a second device now writes under the same replica ID.
        try original.close()
        let cloneDirectory = try TemporaryDirectory()
        defer { cloneDirectory.remove() }
        try FileManager.default.removeItem(atPath: cloneDirectory.path)
        try FileManager.default.copyItem(atPath: replicas.directories[0].path, toPath: cloneDirectory.path)
        let reopened = try replicas.reopen(0)
        let clone = try Store(directory: cloneDirectory.path, options: StoreSpec.options(replica: 1))
        defer { try? clone.close() }
        let before = reopened.version
        try reopened.write { tx in try tx.insert(File(name: "Mine", status: "s", rating: 1)) }
        try clone.write { tx in try tx.insert(File(name: "Theirs", status: "s", rating: 2)) }
        try receiver.importDelta(try #require(try reopened.exportDelta(since: before)))
        try expectRefusal(try #require(try clone.exportDelta(since: before)), into: receiver, mentioning: "two different changes")
    }
}
