import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Delta files: export, import, sizes")
struct DeltaFileTests {
    private typealias File = StoreSpec.File

    @Test("CRC-32C matches the standard check value")
    func crcCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8]()) == 0)
        let long = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 31) }
        var bytewise: UInt32 = 0xFFFF_FFFF
        for byte in long {
            bytewise ^= UInt32(byte)
            for _ in 0..<8 { bytewise = bytewise & 1 != 0 ? (bytewise >> 1) ^ 0x82F6_3B78 : bytewise >> 1 }
        }
        #expect(CRC32C.checksum(long) == bytewise ^ 0xFFFF_FFFF)
    }

    @Test("a keystroke's delta file is at most 32 bytes, headers and checksum included, even beside tombstones")
    func keystrokeSize() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (writer, reader) = (replicas[0], replicas[1])
        let file = try writer.write { tx in try tx.insert(File(name: "Paper", status: "draft", rating: 0)) }
        let content = file.text("content")
        try reader.importDelta(try #require(try writer.exportDelta()))
        var sizes: [Int] = []
        for index in 0..<1000 {
            let before = writer.version
            try writer.write { tx in
                if index % 10 == 9 {
                    try tx.delete((index - 1)..<index, in: content)
                    try tx.insert("xy", at: index - 1, in: content)
                } else {
                    try tx.insert(index % 7 == 0 ? " " : "e", at: try tx.length(of: content), in: content)
                }
            }
            let delta = try #require(try writer.exportDelta(since: before))
            if index % 10 != 9 { sizes.append(delta.count) }  // a replace is two edits, not one keystroke
            let report = try reader.importDelta(delta)
            #expect(report.applied.count == 1)
        }
        // The first keystroke into the text spells its field's name once ("content");
        // every later one refers to it by position.
        #expect(sizes[0] <= 32 + "content".utf8.count)
        #expect(sizes.dropFirst().max()! <= 32, "largest keystroke delta: \(sizes.dropFirst().max()!) bytes")
        let text = try writer.read { tx in try tx.string(of: content) }
        #expect(try reader.read { tx in try tx.string(of: content) } == text)
    }

    @Test("export all, import into an empty store: identical; importing again changes nothing")
    func roundTrip() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (source, copy) = (replicas[0], replicas[1])
        try source.write { tx in
            let folder = try tx.insert(StoreSpec.Folder(name: "Drafts"))
            let file = try tx.insert(File(name: "Ode", status: "draft", rating: 1), under: folder)
            try tx.insert(String(repeating: "A long poem line. ", count: 200), at: 0, in: file.text("content"))
            try tx.insert(File(name: "Second", status: "ready", rating: 2), under: folder)
        }
        try source.write { tx in
            let folder = tx.children(of: nil)[0]
            try tx.delete(tx.children(of: folder)[1])
        }
        let delta = try #require(try source.exportDelta())
        let report = try copy.importDelta(delta)
        #expect(report.applied.count == 2)
        #expect(copy.storeID == source.storeID)
        #expect(try StoreSpec.dump(copy).records == StoreSpec.dump(source).records)
        #expect(try StoreSpec.dump(copy).children == StoreSpec.dump(source).children)
        #expect(copy.version == source.version)
        let before = try StoreSpec.dump(copy)
        let again = try copy.importDelta(delta)
        #expect(again.applied.isEmpty && again.alreadyKnown.count == 2)
        #expect(try StoreSpec.dump(copy) == before)
        // A big delta is deflated: smaller than the text it carries.
        #expect(delta.count < 200 * 18)
    }

    @Test("names used in earlier files are referred to, and out-of-order files wait as pending")
    func namesAcrossFilesAndPending() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (a, b) = (replicas[0], replicas[1])
        let file = try a.write { tx in try tx.insert(File(name: "One", status: "s", rating: 0)) }
        let first = try #require(try a.exportDelta())
        var files: [[UInt8]] = []
        for rating in 1...3 {
            let before = a.version
            try a.write { tx in
                try tx.update(file, as: File.self) { $0.rating = rating }
                try tx.insert("\(rating)", at: 0, in: file.text("content"))
            }
            files.append(try #require(try a.exportDelta(since: before)))
        }
        // The first file introduces the replica; the later ones arrive newest first.
        try b.importDelta(first)
        let last = try b.importDelta(files[2])
        #expect(last.pending.count == 1 && last.applied.isEmpty)
        #expect(try b.importDelta(files[1]).pending.count == 2)
        let closing = try b.importDelta(files[0])
        #expect(closing.applied.count == 3 && closing.pending.isEmpty)
        #expect(try b.read { tx in try tx.record(File.self, file).rating } == 3)
        #expect(try b.read { tx in try tx.string(of: file.text("content")) } == "321")
        #expect(b.version == a.version)
    }

    @Test("relayed changes of a third replica import through another replica's file")
    func relay() throws {
        let replicas = try Replicas(3)
        defer { replicas.close() }
        let (a, b, c) = (replicas[0], replicas[1], replicas[2])
        let file = try a.write { tx in try tx.insert(File(name: "Relay", status: "s", rating: 0)) }
        try b.importDelta(try #require(try a.exportDelta()))
        try b.write { tx in try tx.insert("from b", at: 0, in: file.text("content")) }
        try a.write { tx in try tx.update(file, as: File.self) { $0.status = "edited" } }
        try b.importDelta(try #require(try a.exportDelta(since: b.version)))
        // c has nothing; b's file carries a's changes and its own.
        try c.importDelta(try #require(try b.exportDelta()))
        #expect(c.version == b.version)
        #expect(try StoreSpec.dump(c).records == StoreSpec.dump(b).records)
    }
}
