import Foundation
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

@Suite("Delta files: payloads deflated with zlib")
struct DeltaCompressionTests {
    private typealias File = StoreSpec.File

    /// Tests/QuireTests/Fixtures.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The text of the fixture delta-v2-handwritten-deflate.qdelta: what
    /// ``typeFixtureHistory(into:)`` leaves in the file's content, built with plain strings.
    static func fixtureText() -> String {
        var scalars = Array(String(repeating: "A line of verse, ünïcödé — and more. ", count: 12).unicodeScalars)
        let typed = "The quick brown fox jumps over the lazy dog; état, naïve, 日本語. "
        for (index, scalar) in typed.unicodeScalars.enumerated() where index < 60 { scalars.append(scalar) }
        scalars.removeSubrange(10..<30)
        scalars.insert(contentsOf: "[edited]".unicodeScalars, at: 5)
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        return String(text)
    }

    /// The history of the fixture: a folder and a file, its text written whole, then 60
    /// keystrokes of one change each, a deletion, an insertion and a rename.
    static func typeFixtureHistory(into store: Store) throws {
        let file = try store.write { tx in
            let folder = try tx.insert(StoreSpec.Folder(name: "Old format"))
            let file = try tx.insert(File(name: "Deflated by hand", status: "draft", rating: 1), under: folder)
            try tx.insert(String(repeating: "A line of verse, ünïcödé — and more. ", count: 12), at: 0, in: file.text("content"))
            return file
        }
        let content = file.text("content")
        let typed = "The quick brown fox jumps over the lazy dog; état, naïve, 日本語. "
        for (index, scalar) in typed.unicodeScalars.enumerated() where index < 60 {
            try store.write { tx in try tx.insert(String(scalar), at: try tx.length(of: content), in: content) }
        }
        try store.write { tx in try tx.delete(10..<30, in: content) }
        try store.write { tx in try tx.insert("[edited]", at: 5, in: content) }
        try store.write { tx in try tx.update(file, as: File.self) { $0.name = "Renamed" } }
    }

    @Test("a delta file deflated by the hand-written compressor of earlier builds imports (its stream is standard raw DEFLATE)")
    func handWrittenFixtureImports() throws {
        let bytes = Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("delta-v2-handwritten-deflate.qdelta")))
        #expect(bytes[2] == 2 << 4 | 3, "format 2, deflated, with a store ID")
        // Replica 1 wrote it: the importing store is replica 2.
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let store = replicas[1]
        let report = try store.importDelta(bytes)
        // The folder and file, 60 keystrokes, a deletion, an insertion and a rename.
        #expect(report.applied.count == 64)
        let (name, text) = try store.read { tx in
            let file = try #require(tx.children(of: try #require(tx.children(of: nil).first)).first)
            return (try tx.record(File.self, file).name, try tx.string(of: file.text("content")))
        }
        #expect(name == "Renamed")
        #expect(text == Self.fixtureText())
    }

    @Test("the same history written now is deflated by zlib and imports the same")
    func currentFileImports() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        try Self.typeFixtureHistory(into: replicas[0])
        let delta = try #require(try replicas[0].exportDelta())
        #expect(delta[2] & 1 == 1, "the payload is deflated")
        try replicas[1].importDelta(delta)
        let text = try replicas[1].read { tx in
            try tx.string(of: try #require(tx.children(of: try #require(tx.children(of: nil).first)).first).text("content"))
        }
        #expect(text == Self.fixtureText())
    }

    /// Inputs for the round trips: name and bytes.
    static let inputs: [(String, [UInt8])] = {
        var random = SplitMix64(seed: 7)
        let noise = (0..<65_536).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let prose = String(repeating: "A long poem line, ünïcödé — with some 日本語 and 😀. ", count: 20_000)
        return [("empty", []), ("one byte", [0x61]), ("a keystroke's payload", Array("\u{1}\u{2}content\u{3}x".utf8)),
                ("1 MB of prose", Array(prose.utf8)), ("64 KiB of noise", noise), ("1 MiB of zeros", [UInt8](repeating: 0, count: 1 << 20))]
    }()

    @Test("zlib inflates what it deflated: empty, small, large, incompressible", arguments: inputs.indices)
    func roundTrip(_ index: Int) throws {
        let (name, bytes) = Self.inputs[index]
        for level: Int32 in [1, RawDeflate.level, 9] {
            let packed = try #require(RawDeflate.compress(bytes, level: level), "\(name)")
            #expect(try RawDeflate.decompress(packed, count: bytes.count) == bytes, "\(name), level \(level)")
            if bytes.count > 1000 {
                // Noise grows a little (stored blocks); everything else shrinks.
                #expect(name.contains("noise") ? packed.count < bytes.count + 64 : packed.count < bytes.count / 2, "\(name): \(packed.count)")
            }
        }
    }

    /// The problem `decompress` throws for `stream` inflated to `count` bytes.
    private func failure(_ stream: [UInt8], count: Int) -> DecodingError? {
        do {
            _ = try RawDeflate.decompress(stream, count: count)
            return nil
        } catch {
            return error
        }
    }

    @Test("a stream cut short anywhere is refused as ending early")
    func truncatedStream() throws {
        let text = Array(String(repeating: "all work and no play ", count: 300).utf8)
        let packed = try #require(RawDeflate.compress(text))
        for cut in 0..<packed.count {
            let error = try #require(failure(Array(packed[..<cut]), count: text.count), "cut to \(cut) of \(packed.count)")
            #expect(error.endsEarly, "cut to \(cut): \(error)")
            #expect(error.problem.contains("ends inside deflate stream") || error.problem.contains("cannot inflate"), "\(error)")
        }
    }

    @Test("a stream inflating to more or fewer bytes than declared, or followed by other bytes, is refused")
    func wrongSize() throws {
        let text = Array(String(repeating: "all work and no play ", count: 300).utf8)
        let packed = try #require(RawDeflate.compress(text))
        // One byte of room past the declared size: one too many is seen as the stream's end.
        #expect(failure(packed, count: text.count - 1)?.problem == "deflate stream inflates to \(text.count) bytes, not \(text.count - 1)")
        #expect(failure(packed, count: text.count - 100)?.problem == "deflate stream inflates to more than \(text.count - 100) bytes")
        #expect(failure(packed, count: text.count + 1)?.problem == "deflate stream inflates to \(text.count) bytes, not \(text.count + 1)")
        #expect(failure(packed, count: 0)?.problem == "deflate stream inflates to more than 0 bytes")
        #expect(failure(packed + [0], count: text.count)?.problem == "1 bytes after the end of the deflate stream")
        #expect(failure(packed + packed, count: text.count)?.problem == "\(packed.count) bytes after the end of the deflate stream")
        #expect(failure(packed, count: -1) != nil)
    }

    @Test("garbage is refused, never trapping")
    func garbage() throws {
        // Block type 3 is reserved; a stored block whose length check fails.
        #expect(failure([0x07], count: 10)?.problem == "deflate stream: invalid block type")
        #expect(failure([0x01, 0x05, 0x00, 0x05, 0x00] + Array("hello".utf8), count: 5)?.problem == "deflate stream: invalid stored block lengths")
        var random = SplitMix64(seed: 3)
        var refused = 0
        for _ in 0..<2_000 {
            let bytes = (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if failure(bytes, count: Int(random.next() % 512)) != nil { refused += 1 }
        }
        #expect(refused > 1_990, "only \(refused) of 2,000 random streams refused")
    }

    @Test("a size no stream of its length can produce is refused before allocating; a real bomb stops at the declared size")
    func bombs() throws {
        // Two bytes cannot hold a gigabyte (DEFLATE's ratio is at most 1,032 : 1).
        let claim = failure([0x03, 0x00], count: 1 << 30)
        #expect(claim?.problem == "a deflate stream of 2 bytes cannot inflate to 1073741824 bytes")
        // 64 MiB of zeros in about 64 KiB, declared as 1,000 bytes: refused after 1,001.
        let zeros = try #require(RawDeflate.compress([UInt8](repeating: 0, count: 64 << 20)))
        #expect(zeros.count < 80_000)
        #expect(failure(zeros, count: 1_000)?.problem == "deflate stream inflates to more than 1000 bytes")
    }
}
