import Foundation
import QuireCore
import Testing
@testable import QuireTool

/// The shared folder beside the repository: conformance cases and traces.
private let shared = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared")

private func files(in folder: String) -> [String] {
    let directory = shared.appendingPathComponent(folder)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".json") || $0.hasSuffix(".json.gz") }.sorted()
        .map { directory.appendingPathComponent($0).path }
}

/// The decompressed bytes of a shared file.
private func json(at path: String) throws -> [UInt8] {
    let raw = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    return Gzip.isCompressed(raw) ? try Gzip.decompress(raw) : raw
}

private func read(_ text: String) throws -> TraceJSONReader.Document {
    try TraceJSONReader.read(Array(text.utf8), name: "t.json")
}

/// The message of the failure reading `bytes`, or `nil` if they parse.
private func failure(_ bytes: [UInt8]) -> String? {
    do {
        _ = try TraceJSONReader.read(bytes, name: "t.json")
        return nil
    } catch {
        return error.description
    }
}

private func failure(_ text: String) -> String? { failure(Array(text.utf8)) }

/// A trace with every part of the shape: optional keys, unknown keys, escapes and
/// non-ASCII text.
private let smallTrace = #"{"kind":"concurrent","numAgents":2,"endContent":"a\u00e9\"b","txns":[{"parents":[],"agent":0,"time":"2021-01-01","patches":[[0,0,"a\"b"],[1,0,"é"]]},{"parents":[0],"numChildren":0,"agent":1,"patches":[[3,0,"x"],[3,1,""]]}]}"#

@Suite("Trace JSON reader")
struct TraceJSONReaderTests {
    @Test("every shared trace reads to the same document as JSONDecoder gives", arguments:
        files(in: "traces/sequential") + files(in: "traces/concurrent") + files(in: "traces/many-replicas"))
    func sharedTracesMatchJSONDecoder(path: String) throws {
        let bytes = try json(at: path)
        let document = try TraceJSONReader.read(bytes, name: path)
        let reference = try JSONDecoderTraceReference.decode(bytes)
        #expect(document.kind == reference.kind)
        #expect(document.startContent == reference.startContent)
        #expect(document.endContent == reference.endContent)
        #expect(document.transactions.count == reference.transactions.count)
        let differing = zip(document.transactions, reference.transactions).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(differing == nil, "transaction \(differing?.offset ?? -1) differs")
    }

    @Test("every shared conformance case reads to the same document as JSONDecoder gives")
    func conformanceCasesMatchJSONDecoder() throws {
        let paths = files(in: "conformance/diamond-types") + files(in: "conformance/fuguemax")
        #expect(paths.count == 160)
        for path in paths {
            let bytes = try json(at: path)
            #expect(try TraceJSONReader.read(bytes, name: path) == (try JSONDecoderTraceReference.decode(bytes)), "\(path)")
        }
    }

    @Test("a small trace with every part of the shape reads to what it says")
    func smallTraceReads() throws {
        let document = try read(smallTrace)
        #expect(document == TraceJSONReader.Document(
            kind: "concurrent", startContent: nil, endContent: "aé\"b",
            transactions: [
                .init(parents: [], agent: 0, patches: [
                    .init(position: 0, deleteCount: 0, text: "a\"b"), .init(position: 1, deleteCount: 0, text: "é"),
                ]),
                .init(parents: [0], agent: 1, patches: [
                    .init(position: 3, deleteCount: 0, text: "x"), .init(position: 3, deleteCount: 1, text: ""),
                ]),
            ]))
        #expect(document == (try JSONDecoderTraceReference.decode(Array(smallTrace.utf8))))
    }

    @Test("every JSON escape decodes, surrogate pairs combine, and raw UTF-8 passes through")
    func escapes() throws {
        let escaped = #"\" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u20AC \uD83D\uDE00 \u0000 é€😀"#
        let document = try read(#"{"endContent":"\#(escaped)","txns":[{"patches":[[0,0,"\#(escaped)"]]}]}"#)
        let expected = "\" \\ / \u{8} \u{C} \n \r \t A é € 😀 \u{0} é€😀"
        #expect(document.endContent == expected)
        #expect(document.transactions[0].patches[0].text == expected)
        #expect(document.endContent.unicodeScalars.count == 29)
    }

    @Test("an escaped key names the same field as the plain one")
    func escapedKey() throws {
        let document = try read(#"{"end\u0043ontent":"x","t\u0078ns":[]}"#)
        #expect(document.endContent == "x")
        #expect(document.transactions.isEmpty)
    }

    @Test("unknown keys of every JSON type are skipped, at the top and in transactions")
    func unknownKeysSkipped() throws {
        let junk = #""a":{"b":[1,-2.5e+3,0.0,1E-2,true,false,null,"]}\"[{",{},[],[[{}]]],"c":{"d":{}}},"e":[],"f":"x","g":-0,"h":null"#
        let document = try read(#"{ \#(junk) , "endContent" : "z" , \#(junk), "txns" : [ { \#(junk), "patches" : [ [ 0 , 0 , "z" ] ] , \#(junk) } ] , \#(junk) }"#)
        #expect(document == TraceJSONReader.Document(
            kind: nil, startContent: nil, endContent: "z",
            transactions: [.init(parents: nil, agent: nil, patches: [.init(position: 0, deleteCount: 0, text: "z")])]))
    }

    @Test("null for an optional key is the same as leaving it out")
    func nullOptionals() throws {
        let document = try read(#"{"kind":null,"startContent":null,"endContent":"","txns":[{"parents":null,"agent":null,"patches":[]}]}"#)
        #expect(document == TraceJSONReader.Document(
            kind: nil, startContent: nil, endContent: "",
            transactions: [.init(parents: nil, agent: nil, patches: [])]))
    }

    @Test("deeply nested unknown values are skipped without recursion")
    func deepNesting() throws {
        let depth = 200_000
        let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(try read(#"{"x":\#(nested),"endContent":"","txns":[]}"#).endContent == "")
        let unclosed = String(repeating: "[{\"k\":", count: depth)
        #expect(failure(#"{"x":\#(unclosed)"#)?.contains("the end of the input") == true)
    }

    @Test("an error names the file, the problem, the byte offset and the place in the document")
    func messageFormat() {
        #expect(failure(#"{"endContent":"","txns":[{"patches":[[0,0,"a"] [1,0,"b"]]}]}"#)
            == "t.json is not an editing trace: expected ',' or ']' after an element of patches (an array of [position, deleteCount, text]), found '[' at byte 47 in txns[0].patches[0]")
        #expect(failure(#"{"endContent":"","txns":[{"patches":[]},{"patches":[[0,-1,"b"]]}]}"#)
            == "t.json is not an editing trace: expected a patch's delete count (an integer ≥ 0), found a negative number at byte 55 in txns[1].patches[0]")
        #expect(failure(#"{"endContent":"x"}"#) == "t.json is not an editing trace: missing key \"txns\" in the top-level object at byte 17")
        #expect(failure("not json") == "t.json is not an editing trace: expected '{' starting the top-level object, found 'n' at byte 0")
    }

    @Test("every truncation of a small valid trace is a failure, not a crash")
    func truncations() {
        let bytes = Array(smallTrace.utf8)
        for length in 0..<bytes.count {
            let message = failure(Array(bytes[..<length]))
            #expect(message?.hasPrefix("t.json is not an editing trace: ") == true, "truncated to \(length) bytes: \(message ?? "parsed")")
            #expect(message?.contains(" at byte ") == true)
        }
        #expect(failure(bytes) == nil)
    }

    @Test("wrong types, bad numbers, bad structure and trailing data are failures", arguments: [
        (#"[]"#, "expected '{' starting the top-level object, found '['"),
        (#""#, "found the end of the input at byte 0"),
        (#"{"endContent":1,"txns":[]}"#, "expected a string, found '1' at byte 14 in endContent"),
        (#"{"endContent":"","txns":{}}"#, "expected '[' starting txns"),
        (#"{"endContent":"","txns":[[]]}"#, "expected '{' starting a transaction, found '[' at byte 25 in txns[0]"),
        (#"{"endContent":"","txns":[{}]}"#, "missing key \"patches\" in a transaction at byte 26 in txns[0]"),
        (#"{"endContent":"","txns":[{"patches":[[0,0]]}]}"#, "expected ',' after a patch's delete count, found ']'"),
        (#"{"endContent":"","txns":[{"patches":[[0,0,"a",1]]}]}"#, "expected ']' after a patch's three elements"),
        (#"{"endContent":"","txns":[{"patches":[[0,0,1]]}]}"#, "expected a patch's inserted text (a string), found '1'"),
        (#"{"endContent":"","txns":[{"patches":[["0",0,""]]}]}"#, "expected a patch's position (an integer ≥ 0), found '\"'"),
        (#"{"endContent":"","txns":[{"patches":[[1.0,0,""]]}]}"#, "found a number with a fraction or exponent"),
        (#"{"endContent":"","txns":[{"patches":[[1e2,0,""]]}]}"#, "found a number with a fraction or exponent"),
        (#"{"endContent":"","txns":[{"patches":[[01,0,""]]}]}"#, "found a number with a leading zero"),
        (#"{"endContent":"","txns":[{"patches":[[9223372036854775808,0,""]]}]}"#, "found a number too large for an integer"),
        (#"{"endContent":"","txns":[{"patches":[[9223372036854775807,1,""]]}]}"#, "a patch's position plus delete count is too large for an integer at byte 37 in txns[0].patches[0]"),
        (#"{"endContent":"","txns":[{"agent":-1,"patches":[]}]}"#, "expected an agent (an integer ≥ 0), found a negative number"),
        (#"{"endContent":"","txns":[{"parents":[0,"1"],"patches":[]}]}"#, "expected a parent (an integer ≥ 0), found '\"' at byte 39 in txns[0].parents[1]"),
        (#"{"endContent":"","txns":[{"parents":3,"patches":[]}]}"#, "expected '[' starting parents"),
        (#"{"kind":1,"endContent":"","txns":[]}"#, "expected a string, found '1' at byte 8 in kind"),
        (#"{"endContent":"","endContent":"","txns":[]}"#, "duplicate key \"endContent\" in the top-level object at byte 17"),
        (#"{"endContent":"","txns":[]} x"#, "expected the end of the input after the top-level object, found 'x' at byte 28"),
        (#"{"endContent":"","txns":[],}"#, "expected a key (a string) in the top-level object, found '}'"),
        (#"{"endContent":"","txns":[1,]}"#, "expected '{' starting a transaction"),
        (#"{"endContent" "","txns":[]}"#, "expected ':' after a key, found '\"'"),
        (#"{"x":tru,"endContent":"","txns":[]}"#, "expected a JSON value, found 't' at byte 5 in x"),
        (#"{"x":[1 2],"endContent":"","txns":[]}"#, "expected ',' or ']', found '2' at byte 8 in x"),
        (#"{"x":{"a":1]},"endContent":"","txns":[]}"#, "expected ',' or '}', found ']'"),
        (#"{"x":1.,"endContent":"","txns":[]}"#, "expected a digit in a number, found ','"),
        (#"{"x":-,"endContent":"","txns":[]}"#, "expected a digit in a number, found ','"),
        (#"{"x":{1:2},"endContent":"","txns":[]}"#, "expected a key (a string), found '1'"),
    ])
    func malformed(json: String, message: String) {
        let failure = failure(json)
        #expect(failure?.contains(message) == true, "got: \(failure ?? "parsed")")
    }

    @Test("bad escapes, unpaired surrogates and raw control characters are failures", arguments: [
        (#"\x"#, "invalid escape '\\x' in a string"),
        (#"\u12"#, "expected four hex digits after \\u, found '\"'"),
        (#"\u12G4"#, "expected four hex digits after \\u, found 'G'"),
        (#"\uD800"#, "unpaired surrogate \\uD800 (a high surrogate not followed by a \\u low surrogate) at byte 15"),
        (#"\uD800\n"#, "unpaired surrogate \\uD800"),
        (#"\uD800\u0041"#, "unpaired surrogate \\uD800"),
        (#"\uD800\uD800"#, "unpaired surrogate \\uD800"),
        (#"\uDC00"#, "unpaired surrogate \\uDC00 (a low surrogate with no high one before it) at byte 15"),
        ("a\tb", "a control character (byte 0x09) must be escaped in a string at byte 16"),
        ("\n", "a control character (byte 0x0A) must be escaped"),
    ])
    func badStrings(content: String, message: String) {
        let failure = failure(#"{"endContent":"\#(content)","txns":[]}"#)
        #expect(failure?.contains(message) == true, "got: \(failure ?? "parsed")")
        #expect(failure?.contains("in endContent") == true)
    }

    @Test("invalid UTF-8 in a string is a failure naming the byte", arguments: [
        ([0x80], "byte 0x80 cannot start a character"),
        ([0xC0, 0x80], "byte 0xC0 cannot start a character"),  // overlong NUL
        ([0xE0, 0x80, 0x80], "byte 0x80 in a character that starts at byte 15"),  // overlong
        ([0xED, 0xA0, 0x80], "byte 0xA0 in a character that starts at byte 15"),  // an encoded surrogate
        ([0xF4, 0x90, 0x80, 0x80], "byte 0x90 in a character"),  // past U+10FFFF
        ([0xF5, 0x80, 0x80, 0x80], "byte 0xF5 cannot start a character"),
        ([0xE2, 0x82], "byte 0x22 in a character"),  // cut short by the closing quote
        ([0xC3, 0x41], "byte 0x41 in a character"),
    ] as [([UInt8], String)])
    func invalidUTF8(content: [UInt8], message: String) {
        let bytes = Array(#"{"endContent":""#.utf8) + content + Array(#"","txns":[]}"#.utf8)
        let failure = failure(bytes)
        #expect(failure?.contains("invalid UTF-8 (\(message)") == true, "got: \(failure ?? "parsed")")
    }

    @Test("a string cut short inside a UTF-8 character or an escape at the end of the input is a failure")
    func cutInsideCharacter() {
        let start = Array(#"{"endContent":""#.utf8)
        #expect(failure(start + [0xE2, 0x82])?.contains("the input ends inside a UTF-8 character") == true)
        #expect(failure(start + Array(#"\"#.utf8))?.contains("the input ends inside an escape") == true)
        #expect(failure(start + Array(#"\uD83D\uDE"#.utf8))?.contains("the input ends inside a \\u escape") == true)
    }

    @Test("a concurrent trace whose agent number does not fit the replay's 32 bits is refused, not a crash")
    func hugeAgent() throws {
        let json = Array(#"{"kind":"concurrent","endContent":"a","txns":[{"parents":[],"agent":2147483648,"patches":[[0,0,"a"]]}]}"#.utf8)
        #expect(throws: TraceFile.Failure.self) { try TraceFile.parse(json, name: "t.json") }
        do {
            _ = try TraceFile.parse(json, name: "t.json")
        } catch {
            #expect("\(error)" == "t.json: transaction 0 has agent 2147483648, above the largest agent number, 2147483647")
        }
        let largest = Array(#"{"kind":"concurrent","endContent":"a","txns":[{"parents":[],"agent":2147483647,"patches":[[0,0,"a"]]}]}"#.utf8)
        #expect(try TraceFile.parse(largest, name: "t.json").replay().string == "a")
    }

    /// Flips bytes of the small trace at random (a fixed seed): the reader must never
    /// crash, and whatever it accepts `JSONDecoder` accepts too, with the same result.
    @Test("corrupted copies of a small trace fail cleanly, and what parses agrees with JSONDecoder")
    func corruptedCopies() {
        var random = SplitMix64(seed: 15)
        let original = Array(smallTrace.utf8)
        var parsed = 0
        for _ in 0..<3_000 {
            var bytes = original
            for _ in 0...Int.random(in: 0...2, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                // Mostly bytes that matter to the grammar, sometimes any byte.
                let replacements: [UInt8] = [0x22, 0x5C, 0x2C, 0x5B, 0x5D, 0x7B, 0x7D, 0x30, 0x2D, 0x20, 0xC3, 0xFF, 0x00]
                bytes[index] = Bool.random(using: &random)
                    ? replacements.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            do {
                let document = try TraceJSONReader.read(bytes, name: "t.json")
                parsed += 1
                #expect((try? JSONDecoderTraceReference.decode(bytes)) == document, "\(String(decoding: bytes, as: UTF8.self))")
            } catch {
                #expect(error.description.hasPrefix("t.json is not an editing trace: "))
            }
        }
        #expect(parsed > 0, "no corrupted copy parsed, so the comparison never ran")
    }
}
