// TEMPORARY (issue 13 item 3): hand-written Deflate vs zlib, side by side. Deleted with
// the hand-written compressor.
import Foundation
import Quire
import QuireCore

struct DeflateCompareCommand: Command {
    static let name = "deflate-compare"
    static let summary = "Temporary: hand-written DEFLATE vs zlib."
    static let usage = "--trace FILE"
    static let discussion = ""
    static let trace = Option.value("trace", placeholder: "FILE", help: "A sequential trace.")
    static var options: [Option] { [trace] }
    var path: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        guard let trace = try arguments.value(of: Self.trace)?.path() else { throw .missingOption(Self.trace) }
        path = trace
    }

    private struct BenchFile: Record {
        static let typeName = "bench-file"
        var name: String
    }

    /// The payload of a delta file, inflated with the hand-written inflater if deflated.
    static func body(of file: [UInt8]) throws -> (body: [UInt8], stream: [UInt8]?) {
        let flags = file[2] & 0x0F
        var offset = 3 + (flags & 2 != 0 ? 16 : 0) + 8
        func varint() -> UInt64 {
            var value: UInt64 = 0, shift: UInt64 = 0
            while true {
                let byte = file[offset]; offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }
        _ = varint()
        guard flags & 1 != 0 else { return (Array(file[offset..<(file.count - 4)]), nil) }
        let size = Int(varint())
        let stream = Array(file[offset..<(file.count - 4)])
        return (try Inflate.inflate(stream, count: size), stream)
    }

    func run(in context: ToolContext) async throws {
        let trace = try TraceFile.load(path)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-deflate-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = Store.Options()
        options.durability = .noSync
        let store = try Store(directory: directory, options: options)
        let text = try store.write { tx in try tx.insert(BenchFile(name: "x")).text("content") }
        var small: [UInt8] = []
        var before = store.version
        for (index, transaction) in trace.transactions.enumerated() {
            if index == 1_000 { before = store.version }
            try store.write { tx in
                for patch in transaction.patches {
                    if patch.deleteCount > 0 { try tx.delete(patch.position..<patch.position + patch.deleteCount, in: text) }
                    if !patch.text.isEmpty { try tx.insert(patch.text, at: patch.position, in: text) }
                }
            }
            // A few keystrokes in the middle of typing: the smallest export of at least 50 bytes.
            if index >= 1_000, small.isEmpty, let file = try store.exportDelta(since: before), file.count >= 50 { small = file }
        }
        guard let file = try store.exportDelta() else { throw BenchmarkFailure("nothing exported") }
        try store.close()
        let (deltaBody, handStream) = try Self.body(of: file)
        print("delta file \(file.count) B, body \(deltaBody.count) B, hand stream in file \(handStream?.count ?? -1) B")
        let replica = try trace.replay()
        var column: [UInt8] = []
        for case .insert(let insertion) in replica.operations(since: VersionVector()) { column += insertion.utf8 }
        let finalText = Array(trace.endContent.utf8)
        let state = replica.encodedState()
        let smallBody = try Self.body(of: small).body
        let inputs: [(String, [UInt8], Int)] = [
            ("(a) per-keystroke delta body", deltaBody, 11),
            ("(b) content column (all inserted text)", column, 21),
            ("(b') final text", finalText, 21),
            ("(b'') text state snapshot (encodedState)", state, 21),
            ("(c) small keystroke delta file", small, 2001),
            ("(c') its payload", smallBody, 2001),
        ]
        for (name, input, runs) in inputs {
            print("== \(name): \(input.count) B, \(runs) runs, medians")
            func row(_ label: String, compress: () -> [UInt8], inflateHand: Bool) throws {
                var packed: [UInt8] = []
                let ct = Timing.median((0..<runs).map { _ in Timing.milliseconds { packed = compress() } })
                var zOut: [UInt8] = [], hOut: [UInt8] = []
                let zt = try Timing.median((0..<runs).map { _ in try Timing.milliseconds { zOut = try RawDeflate.decompress(packed, count: input.count) } })
                let ht = try Timing.median((0..<runs).map { _ in try Timing.milliseconds { hOut = try Inflate.inflate(packed, count: input.count) } })
                let ok = zOut == input && hOut == input
                print(String(format: "  %-22@ %8d B  compress %8.4f ms  zlib inflate %8.4f ms  hand inflate %8.4f ms  both inflaters give input: %@",
                             label as NSString, packed.count, ct, zt, ht, ok ? "yes" : "NO"))
            }
            try row("hand-written Deflate", compress: { Deflate.deflate(input) }, inflateHand: true)
            try row("zlib level 6", compress: { RawDeflate.compress(input, level: 6)! }, inflateHand: true)
            try row("zlib level 9", compress: { RawDeflate.compress(input, level: 9)! }, inflateHand: true)
            if input.count > 500_000 {
                for level in [1, 2, 3, 4, 5, 7, 8] as [Int32] {
                    try row("zlib level \(level)", compress: { RawDeflate.compress(input, level: level)! }, inflateHand: true)
                }
            }
        }
    }
}
