import QuireCore

/// Reads editing-trace JSON in one pass over its bytes, into exactly the shape a trace
/// has — no JSON tree in between.
///
/// ```swift
/// let document = try TraceJSONReader.read(Array(#"{"endContent":"a","txns":[]}"#.utf8), name: "t.json")
/// ```
///
/// The shape: one object with `kind` (string, optional), `startContent` (string,
/// optional), `endContent` (string) and `txns`, an array of objects with `parents`
/// (array of integers, optional), `agent` (integer, optional) and `patches`, an array
/// of `[position, deleteCount, text]`. Each known key may appear once, in any order;
/// `null` for an optional key means the same as leaving it out. Unknown keys are
/// skipped whatever their value (which must still be well-formed JSON).
///
/// Strict where JSON is:
/// - Strings take every JSON escape; `\uXXXX` surrogate pairs combine into one scalar.
///   An unpaired surrogate is an error, not U+FFFD: a replaced character would make the
///   replayed text differ silently from what was typed. Raw bytes must be valid UTF-8
///   (no overlong forms, no encoded surrogates) and control characters must be escaped.
/// - Positions, delete counts, parents and agents are integers written without fraction
///   or exponent, not negative, that fit in `Int`.
/// - Only whitespace may follow the top-level object (a leading UTF-8 byte-order mark
///   is ignored).
///
/// Errors name the file, what was expected and what was found, the byte offset (from 0,
/// in the decompressed JSON) and where in the document it is, e.g. `txns[17].patches[3]`.
///
/// Complexity: O(n) in the length of the input. Memory: the result, plus a buffer as
/// long as the escaped string being decoded and a stack as deep as the deepest skipped
/// value; nothing is sized from guesses about the input.
struct TraceJSONReader {
    /// The trace as written: optional keys still optional, nothing validated beyond
    /// the JSON shape and the non-negative integers.
    struct Document: Equatable {
        var kind: String?
        var startContent: String?
        var endContent: String
        var transactions: [Transaction]
    }

    /// One element of `txns`.
    struct Transaction: Equatable {
        var parents: [Int]?
        var agent: Int?
        var patches: [EditingTrace.Patch]
    }

    /// Parses `json`, a whole trace file.
    ///
    /// - Parameters:
    ///   - json: The (decompressed) bytes of the file.
    ///   - name: The file's name, for error messages.
    /// - Returns: The document.
    /// - Throws: ``TraceFile/Failure`` naming `name`, the problem, its byte offset and
    ///   its place in the document.
    static func read(_ json: [UInt8], name: String) throws(TraceFile.Failure) -> Document {
        try json.withUnsafeBufferPointer { bytes throws(TraceFile.Failure) in
            var cursor = Cursor(bytes: bytes, name: name)
            return try cursor.document()
        }
    }
}

/// Where in the document the cursor is, for error messages.
private enum PathComponent {
    /// The value of the key whose raw bytes (between its quotes) are at this range.
    case key(Range<Int>)
    /// An array element.
    case index(Int)
}

/// The keys the reader knows; any other is skipped.
private enum Field: UInt8 {
    case kind, startContent, endContent, txns, parents, agent, patches, unknown

    static let ofDocument: [(name: StaticString, field: Field)] = [
        ("kind", .kind), ("startContent", .startContent), ("endContent", .endContent), ("txns", .txns),
    ]
    static let ofTransaction: [(name: StaticString, field: Field)] = [
        ("parents", .parents), ("agent", .agent), ("patches", .patches),
    ]
}

/// ASCII bytes the grammar names.
private enum Byte {
    static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), slash = UInt8(ascii: "/")
    static let comma = UInt8(ascii: ","), colon = UInt8(ascii: ":"), minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+"), dot = UInt8(ascii: ".")
    static let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
    static let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")
    static let lowerE = UInt8(ascii: "e"), upperE = UInt8(ascii: "E")
    static let lowerU = UInt8(ascii: "u")

    static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}

/// The reading state over the bytes, valid only inside ``TraceJSONReader/read(_:name:)``'s
/// closure.
///
/// Descriptions of what is expected are autoclosures: a message is built only when
/// reading fails, not once per token (building them eagerly took half the time).
private struct Cursor {
    typealias Failure = TraceFile.Failure

    let bytes: UnsafeBufferPointer<UInt8>
    let name: String
    /// The next byte to read.
    var offset = 0
    var path: [PathComponent] = []
    /// The closers of the containers being skipped, innermost last; reused.
    var skipping: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, name: String) {
        self.bytes = bytes
        self.name = name
    }

    // MARK: The trace's shape

    mutating func document() throws(Failure) -> TraceJSONReader.Document {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
        var seen: UInt16 = 0
        var kind: String?, startContent: String?, endContent: String?
        var transactions: [TraceJSONReader.Transaction]?
        let end = try forEachMember(of: "the top-level object", fields: Field.ofDocument, seen: &seen) { cursor, field throws(Failure) in
            switch field {
            case .kind: kind = try cursor.optional { cursor throws(Failure) in try cursor.string() }
            case .startContent: startContent = try cursor.optional { cursor throws(Failure) in try cursor.string() }
            case .endContent: endContent = try cursor.string()
            case .txns: transactions = try cursor.transactions()
            default: try cursor.skipValue()
            }
        }
        guard let endContent else { throw failure("missing key \"endContent\" in the top-level object", at: end) }
        guard let transactions else { throw failure("missing key \"txns\" in the top-level object", at: end) }
        skipWhitespace()
        guard offset == bytes.count else { throw failure("expected the end of the input after the top-level object, found \(found())") }
        return TraceJSONReader.Document(
            kind: kind, startContent: startContent, endContent: endContent, transactions: transactions)
    }

    mutating func transactions() throws(Failure) -> [TraceJSONReader.Transaction] {
        var transactions: [TraceJSONReader.Transaction] = []
        try forEachElement(of: "txns (an array of transactions)") { cursor throws(Failure) in
            transactions.append(try cursor.transaction())
        }
        return transactions
    }

    mutating func transaction() throws(Failure) -> TraceJSONReader.Transaction {
        var seen: UInt16 = 0
        var parents: [Int]?, agent: Int?, patches: [EditingTrace.Patch]?
        let end = try forEachMember(of: "a transaction", fields: Field.ofTransaction, seen: &seen) { cursor, field throws(Failure) in
            switch field {
            case .parents: parents = try cursor.optional { cursor throws(Failure) in try cursor.parents() }
            case .agent: agent = try cursor.optional { cursor throws(Failure) in try cursor.count("an agent (an integer ≥ 0)") }
            case .patches: patches = try cursor.patches()
            default: try cursor.skipValue()
            }
        }
        guard let patches else { throw failure("missing key \"patches\" in a transaction", at: end) }
        return TraceJSONReader.Transaction(parents: parents, agent: agent, patches: patches)
    }

    mutating func parents() throws(Failure) -> [Int] {
        var parents: [Int] = []
        try forEachElement(of: "parents (an array of transaction indexes)") { cursor throws(Failure) in
            parents.append(try cursor.count("a parent (an integer ≥ 0)"))
        }
        return parents
    }

    mutating func patches() throws(Failure) -> [EditingTrace.Patch] {
        var patches: [EditingTrace.Patch] = []
        try forEachElement(of: "patches (an array of [position, deleteCount, text])") { cursor throws(Failure) in
            patches.append(try cursor.patch())
        }
        return patches
    }

    mutating func patch() throws(Failure) -> EditingTrace.Patch {
        let patchStart = offset
        try expect(Byte.openBracket, "'[' starting a patch [position, deleteCount, text]")
        skipWhitespace()
        let position = try count("a patch's position (an integer ≥ 0)")
        try expect(Byte.comma, "',' after a patch's position")
        skipWhitespace()
        let deleteCount = try count("a patch's delete count (an integer ≥ 0)")
        // Replay computes position + deleteCount; it must not overflow.
        guard !position.addingReportingOverflow(deleteCount).overflow else {
            throw failure("a patch's position plus delete count is too large for an integer", at: patchStart)
        }
        try expect(Byte.comma, "',' after a patch's delete count")
        skipWhitespace()
        let text = try string("a patch's inserted text (a string)")
        try expect(Byte.closeBracket, "']' after a patch's three elements [position, deleteCount, text]")
        return EditingTrace.Patch(position: position, deleteCount: deleteCount, text: text)
    }

    // MARK: Containers

    /// Reads `[ element, … ]`, calling `element` at the start of each (whitespace
    /// skipped) with its index on the path.
    mutating func forEachElement(
        of what: @autoclosure () -> String, _ element: (inout Cursor) throws(Failure) -> Void
    ) throws(Failure) {
        try expect(Byte.openBracket, "'[' starting \(what())")
        skipWhitespace()
        if peek() == Byte.closeBracket {
            offset += 1
            return
        }
        path.append(.index(0))
        var index = 0
        while true {
            path[path.count - 1] = .index(index)
            try element(&self)
            skipWhitespace()
            switch peek() {
            case Byte.comma:
                offset += 1
                skipWhitespace()
                index += 1
            case Byte.closeBracket:
                offset += 1
                path.removeLast()
                return
            default:
                throw failure("expected ',' or ']' after an element of \(what()), found \(found())")
            }
        }
    }

    /// Reads `{ "key": value, … }`, calling `member` at the start of each value
    /// (whitespace skipped) with the key's field and the key on the path. A known key
    /// that comes twice is an error.
    ///
    /// - Returns: The offset of the closing `}`, for errors about missing keys.
    mutating func forEachMember(
        of what: @autoclosure () -> String, fields: [(name: StaticString, field: Field)], seen: inout UInt16,
        _ member: (inout Cursor, Field) throws(Failure) -> Void
    ) throws(Failure) -> Int {
        try expect(Byte.openBrace, "'{' starting \(what())")
        skipWhitespace()
        if peek() == Byte.closeBrace {
            offset += 1
            return offset - 1
        }
        while true {
            let keyStart = offset
            let key = try scanString("a key (a string) in \(what())")
            let field = self.field(named: key.content, escaped: key.escaped, among: fields)
            if field != .unknown {
                let bit: UInt16 = 1 << field.rawValue
                guard seen & bit == 0 else {
                    throw failure("duplicate key \"\(String(decoding: bytes[key.content], as: UTF8.self))\" in \(what())", at: keyStart)
                }
                seen |= bit
            }
            try expect(Byte.colon, "':' after a key")
            skipWhitespace()
            path.append(.key(key.content))
            try member(&self, field)
            path.removeLast()
            skipWhitespace()
            switch peek() {
            case Byte.comma:
                offset += 1
                skipWhitespace()
            case Byte.closeBrace:
                offset += 1
                return offset - 1
            default:
                throw failure("expected ',' or '}' after a member of \(what()), found \(found())")
            }
        }
    }

    /// The field a key names, comparing unescaped bytes.
    func field(named content: Range<Int>, escaped: Bool, among fields: [(name: StaticString, field: Field)]) -> Field {
        escaped ? Self.field(named: Array(unescaped(content).utf8), among: fields) : Self.field(named: bytes[content], among: fields)
    }

    static func field(named key: some Collection<UInt8>, among fields: [(name: StaticString, field: Field)]) -> Field {
        for (name, field) in fields where name.withUTF8Buffer({ $0.elementsEqual(key) }) {
            return field
        }
        return .unknown
    }

    /// `nil` for `null`, otherwise `read`'s value.
    mutating func optional<T>(_ read: (inout Cursor) throws(Failure) -> T) throws(Failure) -> T? {
        if bytes[offset...].starts(with: "null".utf8) {
            offset += 4
            return nil
        }
        return try read(&self)
    }

    /// Skips one well-formed JSON value of any type, without recursion.
    mutating func skipValue() throws(Failure) {
        skipping.removeAll(keepingCapacity: true)
        while true {
            // At the start of a value.
            skipWhitespace()
            switch peek() {
            case Byte.openBrace:
                offset += 1
                skipWhitespace()
                if peek() == Byte.closeBrace {
                    offset += 1
                } else {
                    skipping.append(Byte.closeBrace)
                    try skipKey()
                    continue
                }
            case Byte.openBracket:
                offset += 1
                skipWhitespace()
                if peek() == Byte.closeBracket {
                    offset += 1
                } else {
                    skipping.append(Byte.closeBracket)
                    continue
                }
            case Byte.quote:
                _ = try scanString("a value")
            case .some(Byte.minus), .some(Byte.zero...Byte.nine):
                try skipNumber()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default:
                throw failure("expected a JSON value, found \(found())")
            }
            // After a value: close what ends here, or go on to the next member or element.
            while let closer = skipping.last {
                skipWhitespace()
                let next = peek()
                if next == closer {
                    offset += 1
                    skipping.removeLast()
                } else if next == Byte.comma {
                    offset += 1
                    if closer == Byte.closeBrace { try skipKey() }
                    break
                } else {
                    throw failure("expected ',' or '\(Character(Unicode.Scalar(closer)))', found \(found())")
                }
            }
            if skipping.isEmpty { return }
        }
    }

    /// Skips `"key":` inside a skipped object.
    mutating func skipKey() throws(Failure) {
        skipWhitespace()
        _ = try scanString("a key (a string)")
        try expect(Byte.colon, "':' after a key")
    }

    mutating func literal(_ word: StaticString) throws(Failure) {
        let matches = word.withUTF8Buffer { bytes[offset...].starts(with: $0) }
        guard matches else { throw failure("expected a JSON value, found \(found())") }
        offset += word.utf8CodeUnitCount
    }

    // MARK: Numbers

    /// A non-negative integer that fits in `Int`, with no fraction or exponent.
    mutating func count(_ what: @autoclosure () -> String) throws(Failure) -> Int {
        guard let first = peek(), Byte.isDigit(first) else {
            if peek() == Byte.minus { throw failure("expected \(what()), found a negative number") }
            throw failure("expected \(what()), found \(found())")
        }
        let start = offset
        var value = 0
        if first == Byte.zero {
            offset += 1
            if let next = peek(), Byte.isDigit(next) { throw failure("expected \(what()), found a number with a leading zero", at: start) }
        } else {
            while let digit = peek(), Byte.isDigit(digit) {
                let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int(digit - Byte.zero))
                guard !overflow1, !overflow2 else { throw failure("expected \(what()), found a number too large for an integer", at: start) }
                value = sum
                offset += 1
            }
        }
        if let next = peek(), next == Byte.dot || next == Byte.lowerE || next == Byte.upperE {
            throw failure("expected \(what()), found a number with a fraction or exponent", at: start)
        }
        return value
    }

    /// Skips a JSON number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func skipNumber() throws(Failure) {
        if peek() == Byte.minus { offset += 1 }
        guard let first = peek(), Byte.isDigit(first) else { throw failure("expected a digit in a number, found \(found())") }
        offset += 1
        if first != Byte.zero { skipDigits() }
        if peek() == Byte.dot {
            offset += 1
            try requireDigits()
        }
        if let next = peek(), next == Byte.lowerE || next == Byte.upperE {
            offset += 1
            if let sign = peek(), sign == Byte.plus || sign == Byte.minus { offset += 1 }
            try requireDigits()
        }
    }

    mutating func requireDigits() throws(Failure) {
        guard let digit = peek(), Byte.isDigit(digit) else { throw failure("expected a digit in a number, found \(found())") }
        skipDigits()
    }

    mutating func skipDigits() {
        while let digit = peek(), Byte.isDigit(digit) { offset += 1 }
    }

    // MARK: Strings

    /// A string value.
    mutating func string(_ what: @autoclosure () -> String = "a string") throws(Failure) -> String {
        let scanned = try scanString(what())
        return scanned.escaped ? unescaped(scanned.content) : String(decoding: bytes[scanned.content], as: UTF8.self)
    }

    /// Checks the string at the cursor (escapes, UTF-8, no raw control characters) and
    /// steps past it.
    ///
    /// - Returns: The bytes between the quotes, and whether they hold escapes.
    mutating func scanString(_ what: @autoclosure () -> String) throws(Failure) -> (content: Range<Int>, escaped: Bool) {
        guard peek() == Byte.quote else { throw failure("expected \(what()), found \(found())") }
        offset += 1
        let start = offset
        var escaped = false
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == Byte.quote {
                offset += 1
                return (start..<offset - 1, escaped)
            } else if byte == Byte.backslash {
                escaped = true
                try scanEscape()
            } else if byte < 0x20 {
                throw failure("a control character (byte 0x\(hex(byte))) must be escaped in a string")
            } else if byte < 0x80 {
                offset += 1
            } else {
                offset += try utf8SequenceLength()
            }
        }
        throw failure("the input ends inside a string that starts at byte \(start - 1)")
    }

    /// Checks the escape at the cursor (a backslash) and steps past it; a `\u` high
    /// surrogate must be followed by a `\u` low surrogate.
    mutating func scanEscape() throws(Failure) {
        let start = offset
        guard offset + 1 < bytes.count else { throw failure("the input ends inside an escape") }
        switch bytes[offset + 1] {
        case Byte.quote, Byte.backslash, Byte.slash, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
            UInt8(ascii: "r"), UInt8(ascii: "t"):
            offset += 2
        case Byte.lowerU:
            let unit = try hexEscape(at: offset)
            offset += 6
            if (0xDC00...0xDFFF).contains(unit) {
                throw failure("unpaired surrogate \\u\(hex(unit)) (a low surrogate with no high one before it)", at: start)
            }
            if (0xD800...0xDBFF).contains(unit) {
                guard offset + 1 < bytes.count, bytes[offset] == Byte.backslash, bytes[offset + 1] == Byte.lowerU,
                    (0xDC00...0xDFFF).contains(try hexEscape(at: offset))
                else {
                    throw failure("unpaired surrogate \\u\(hex(unit)) (a high surrogate not followed by a \\u low surrogate)", at: start)
                }
                offset += 6
            }
        default:
            throw failure("invalid escape '\\\(printable(bytes[offset + 1]))' in a string (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
        }
    }

    /// The code unit of the `\uXXXX` at `start`.
    func hexEscape(at start: Int) throws(Failure) -> UInt16 {
        var unit: UInt16 = 0
        for index in start + 2..<start + 6 {
            guard index < bytes.count else { throw failure("the input ends inside a \\u escape", at: index) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case Byte.zero...Byte.nine: digit = byte - Byte.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("expected four hex digits after \\u, found \(found(at: index))", at: index)
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// The length of the well-formed UTF-8 sequence at the cursor, whose first byte is
    /// not ASCII (Unicode table 3-7: no overlong forms, no surrogates, nothing past
    /// U+10FFFF).
    func utf8SequenceLength() throws(Failure) -> Int {
        let lead = bytes[offset]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw failure("invalid UTF-8 (byte 0x\(hex(lead)) cannot start a character) in a string")
        }
        for index in offset + 1..<offset + length {
            guard index < bytes.count else { throw failure("the input ends inside a UTF-8 character", at: index) }
            let valid = index == offset + 1 ? secondRange : 0x80...0xBF
            guard valid.contains(bytes[index]) else {
                throw failure("invalid UTF-8 (byte 0x\(hex(bytes[index])) in a character that starts at byte \(offset)) in a string", at: index)
            }
        }
        return length
    }

    /// The text of string content already checked by ``scanString(_:)``, escapes
    /// replaced.
    func unescaped(_ content: Range<Int>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(content.count)  // Unescaping only shortens.
        var index = content.lowerBound
        while index < content.upperBound {
            let byte = bytes[index]
            guard byte == Byte.backslash else {
                output.append(byte)
                index += 1
                continue
            }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case Byte.lowerU:
                // Checked already: four hex digits, and a high surrogate has its low one.
                var scalar = UInt32((try? hexEscape(at: index - 2)) ?? 0xFFFD)
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = UInt32((try? hexEscape(at: index)) ?? 0xDC00)
                    scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
                    index += 6
                }
                UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { output.append($0) }
            default: output.append(escape)  // " \ /
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: Bytes

    func peek() -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    mutating func skipWhitespace() {
        while offset < bytes.count, Byte.isWhitespace(bytes[offset]) { offset += 1 }
    }

    /// Steps past `byte`, after any whitespace.
    mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws(Failure) {
        skipWhitespace()
        guard peek() == byte else { throw failure("expected \(what()), found \(found())") }
        offset += 1
    }

    // MARK: Errors

    /// What is at `index`, for a message.
    func found(at index: Int? = nil) -> String {
        let index = index ?? offset
        guard index < bytes.count else { return "the end of the input" }
        let byte = bytes[index]
        return byte >= 0x20 && byte < 0x7F ? "'\(printable(byte))'" : "byte 0x\(hex(byte))"
    }

    func failure(_ problem: String, at index: Int? = nil) -> Failure {
        let place = pathDescription()
        return Failure(description: "\(name) is not an editing trace: \(problem) at byte \(index ?? offset)"
            + (place.isEmpty ? "" : " in \(place)"))
    }

    /// The path as `txns[17].patches[3]`.
    func pathDescription() -> String {
        var text = ""
        for component in path {
            switch component {
            case .key(let range):
                if !text.isEmpty { text += "." }
                text += String(decoding: bytes[range], as: UTF8.self)
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    func printable(_ byte: UInt8) -> String { String(Character(Unicode.Scalar(byte))) }

    func hex<T: BinaryInteger>(_ value: T) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        let width = MemoryLayout<T>.size * 2
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
