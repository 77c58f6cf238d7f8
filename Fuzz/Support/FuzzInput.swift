// Shared by every fuzz target: reading a schedule out of the fuzzer's bytes, and
// reporting a failed check so that libFuzzer records the input.

#if canImport(Glibc)
import Glibc
#endif

/// The fuzzer's bytes read as a stream of small decisions. Past the end every read gives
/// 0, so any input is a complete schedule and a longer input extends it.
struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ start: UnsafePointer<UInt8>, _ count: Int) {
        bytes = Array(UnsafeBufferPointer(start: start, count: count))
    }

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset >= bytes.count }

    /// The next byte, or 0 past the end.
    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A number in `0..<bound` (1 to 2 bytes); 0 when `bound` ≤ 1.
    mutating func int(_ bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        if bound <= 256 { return Int(byte()) % bound }
        return (Int(byte()) << 8 | Int(byte())) % bound
    }

    /// A number in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int { range.lowerBound + int(range.count) }

    /// One of `items`; `nil` when there are none.
    mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[int(items.count)] }

    /// A coin flip.
    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// Every byte not read yet.
    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return offset < bytes.count ? Array(bytes[offset...]) : []
    }
}

/// Snippets the text schedules insert: ASCII, multi-byte letters, emoji (astral, so two
/// UTF-16 units), a ZWJ sequence, combining marks on their own and after a letter.
let fuzzSnippets: [String] = [
    "a", "xyz", "Hello ", "\n", "é", "ß中", "😀", "👩‍👩‍👧", "e\u{301}", "\u{301}", "\u{308}\u{301}", "🇫🇷", "\u{1F3FD}", "Ω≈ç",
]

/// Reports a failed check and stops the process so libFuzzer saves the input.
func fuzzFailure(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    let text = "FUZZ CHECK FAILED (\(file):\(line)): \(message())\n"
    text.withCString { pointer in _ = fputs(pointer, stderr) }
    fflush(stderr)
    abort()
}

/// Fails with `message` unless `condition` holds.
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fuzzFailure(message(), file: file, line: line) }
}
