/// Raw DEFLATE (RFC 1951) compression in pure Swift: LZ77 over a 32 KiB window with hash
/// chains and one step of lazy matching, then one dynamic-Huffman block per 64 Ki symbols
/// (or a fixed or stored block where that is smaller). Any inflater reads the output —
/// zlib's `inflateInit2` with −15 window bits, or ``Inflate``.
///
/// ```swift
/// let packed = Deflate.deflate(Array(text.utf8))
/// let unpacked = try Inflate.inflate(packed, count: text.utf8.count)
/// ```
public enum Deflate {
    /// Compresses `bytes` into one raw DEFLATE stream.
    ///
    /// - Complexity: O(n) with a bounded search per position.
    public static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var writer = BitWriter()
        let tokens = bytes.withUnsafeBufferPointer { LZ77.tokens(of: $0) }
        var start = 0
        var sourceStart = 0
        repeat {
            let end = min(start + blockTokens, tokens.count)
            var sourceEnd = sourceStart
            for token in tokens[start..<end] { sourceEnd += token.isMatch ? token.length : 1 }
            writeBlock(tokens[start..<end], source: bytes[sourceStart..<sourceEnd], isFinal: end == tokens.count, to: &writer)
            start = end
            sourceStart = sourceEnd
        } while start < tokens.count
        return writer.finish()
    }

    /// Symbols per block: each block gets its own Huffman codes.
    static let blockTokens = 1 << 16

    private static func writeBlock(
        _ tokens: ArraySlice<LZ77.Token>, source: ArraySlice<UInt8>, isFinal: Bool, to writer: inout BitWriter
    ) {
        var literalFrequencies = [Int](repeating: 0, count: 286)
        var distanceFrequencies = [Int](repeating: 0, count: 30)
        for token in tokens {
            if token.isMatch {
                literalFrequencies[257 + Int(DeflateTables.lengthSymbol[token.length])] += 1
                distanceFrequencies[DeflateTables.distanceSymbol(token.distance)] += 1
            } else {
                literalFrequencies[Int(token.literal)] += 1
            }
        }
        literalFrequencies[256] = 1
        let literalLengths = HuffmanEncoder.lengths(for: literalFrequencies, limit: 15)
        var distanceLengths = HuffmanEncoder.lengths(for: distanceFrequencies, limit: 15)
        if distanceLengths.allSatisfy({ $0 == 0 }) { distanceLengths[0] = 1 }  // inflaters want one code
        let header = DynamicHeader(literalLengths: literalLengths, distanceLengths: distanceLengths)

        func cost(_ literal: [UInt8], _ distance: [UInt8]) -> Int {
            var bits = 0
            for symbol in 0..<286 { bits += literalFrequencies[symbol] * Int(literal[symbol]) }
            for symbol in 0..<30 { bits += distanceFrequencies[symbol] * Int(distance[symbol]) }
            for symbol in 257..<286 { bits += literalFrequencies[symbol] * Int(DeflateTables.lengthExtra[symbol - 257]) }
            for symbol in 0..<30 { bits += distanceFrequencies[symbol] * Int(DeflateTables.distanceExtra[symbol]) }
            return bits
        }
        let dynamicBits = 3 + header.bitCount + cost(literalLengths, distanceLengths)
        let fixedBits = 3 + cost(DeflateTables.fixedLiteralLengths, DeflateTables.fixedDistanceLengths)
        let storedBits = 3 + 7 + (source.count / 0xFFFF + 1) * 32 + source.count * 8

        if storedBits <= min(dynamicBits, fixedBits) {
            writeStored(source, isFinal: isFinal, to: &writer)
        } else if fixedBits <= dynamicBits {
            writer.write(isFinal ? 1 : 0, bits: 1)
            writer.write(1, bits: 2)
            writeTokens(tokens, literal: HuffmanEncoder(lengths: DeflateTables.fixedLiteralLengths),
                        distance: HuffmanEncoder(lengths: DeflateTables.fixedDistanceLengths), to: &writer)
        } else {
            writer.write(isFinal ? 1 : 0, bits: 1)
            writer.write(2, bits: 2)
            header.write(to: &writer)
            writeTokens(tokens, literal: HuffmanEncoder(lengths: literalLengths),
                        distance: HuffmanEncoder(lengths: distanceLengths), to: &writer)
        }
    }

    private static func writeStored(_ source: ArraySlice<UInt8>, isFinal: Bool, to writer: inout BitWriter) {
        var start = source.startIndex
        repeat {
            let end = min(start + 0xFFFF, source.endIndex)
            writer.write(isFinal && end == source.endIndex ? 1 : 0, bits: 1)
            writer.write(0, bits: 2)
            writer.alignToByte()
            let length = end - start
            writer.write(length, bits: 16)
            writer.write(~length & 0xFFFF, bits: 16)
            for byte in source[start..<end] { writer.write(Int(byte), bits: 8) }
            start = end
        } while start < source.endIndex
    }

    private static func writeTokens(
        _ tokens: ArraySlice<LZ77.Token>, literal: HuffmanEncoder, distance: HuffmanEncoder, to writer: inout BitWriter
    ) {
        for token in tokens {
            if token.isMatch {
                let lengthSymbol = Int(DeflateTables.lengthSymbol[token.length])
                literal.write(257 + lengthSymbol, to: &writer)
                writer.write(token.length - Int(DeflateTables.lengthBase[lengthSymbol]), bits: Int(DeflateTables.lengthExtra[lengthSymbol]))
                let distanceSymbol = DeflateTables.distanceSymbol(token.distance)
                distance.write(distanceSymbol, to: &writer)
                writer.write(token.distance - Int(DeflateTables.distanceBase[distanceSymbol]),
                             bits: Int(DeflateTables.distanceExtra[distanceSymbol]))
            } else {
                literal.write(Int(token.literal), to: &writer)
            }
        }
        literal.write(256, to: &writer)
    }
}

/// The code lengths of a dynamic block, run-length encoded with the code-length code.
private struct DynamicHeader {
    var literalCount: Int
    var distanceCount: Int
    var codeLengthLengths: [UInt8]
    var codeLengthCount: Int
    /// Code-length symbols with their extra-bit values.
    var symbols: [(symbol: Int, extra: Int)]

    init(literalLengths: [UInt8], distanceLengths: [UInt8]) {
        var literalCount = 286
        while literalCount > 257, literalLengths[literalCount - 1] == 0 { literalCount -= 1 }
        var distanceCount = 30
        while distanceCount > 1, distanceLengths[distanceCount - 1] == 0 { distanceCount -= 1 }
        let all = Array(literalLengths[..<literalCount]) + Array(distanceLengths[..<distanceCount])
        var symbols: [(symbol: Int, extra: Int)] = []
        var index = 0
        while index < all.count {
            let value = all[index]
            var run = 1
            while index + run < all.count, all[index + run] == value { run += 1 }
            index += run
            if value == 0 {
                while run >= 11 {
                    let take = min(run, 138)
                    symbols.append((18, take - 11))
                    run -= take
                }
                if run >= 3 {
                    symbols.append((17, run - 3))
                    run = 0
                }
            } else {
                symbols.append((Int(value), 0))
                run -= 1
                while run >= 3 {
                    let take = min(run, 6)
                    symbols.append((16, take - 3))
                    run -= take
                }
            }
            for _ in 0..<run { symbols.append((Int(value), 0)) }
        }
        var frequencies = [Int](repeating: 0, count: 19)
        for entry in symbols { frequencies[entry.symbol] += 1 }
        let codeLengthLengths = HuffmanEncoder.lengths(for: frequencies, limit: 7)
        var codeLengthCount = 19
        while codeLengthCount > 4, codeLengthLengths[DeflateTables.codeLengthOrder[codeLengthCount - 1]] == 0 { codeLengthCount -= 1 }
        self.literalCount = literalCount
        self.distanceCount = distanceCount
        self.codeLengthLengths = codeLengthLengths
        self.codeLengthCount = codeLengthCount
        self.symbols = symbols
    }

    var bitCount: Int {
        var bits = 14 + 3 * codeLengthCount
        for entry in symbols {
            bits += Int(codeLengthLengths[entry.symbol]) + Self.extraBits(entry.symbol)
        }
        return bits
    }

    static func extraBits(_ symbol: Int) -> Int {
        switch symbol {
        case 16: 2
        case 17: 3
        case 18: 7
        default: 0
        }
    }

    func write(to writer: inout BitWriter) {
        writer.write(literalCount - 257, bits: 5)
        writer.write(distanceCount - 1, bits: 5)
        writer.write(codeLengthCount - 4, bits: 4)
        for index in 0..<codeLengthCount { writer.write(Int(codeLengthLengths[DeflateTables.codeLengthOrder[index]]), bits: 3) }
        let code = HuffmanEncoder(lengths: codeLengthLengths)
        for entry in symbols {
            code.write(entry.symbol, to: &writer)
            writer.write(entry.extra, bits: Self.extraBits(entry.symbol))
        }
    }
}

/// A canonical Huffman code for writing: each symbol's bit-reversed code and its length.
struct HuffmanEncoder {
    var codes: [UInt16]
    var lengths: [UInt8]

    init(lengths: [UInt8]) {
        var counts = [Int](repeating: 0, count: 16)
        for length in lengths where length > 0 { counts[Int(length)] += 1 }
        // The first code of each length (RFC 1951, 3.2.2).
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for length in 1...15 {
            next[length] = code
            code = (code + counts[length]) << 1
        }
        var codes = [UInt16](repeating: 0, count: lengths.count)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            var value = next[Int(length)]
            next[Int(length)] += 1
            var reversed = 0
            for _ in 0..<length {
                reversed = reversed << 1 | value & 1
                value >>= 1
            }
            codes[symbol] = UInt16(reversed)
        }
        self.codes = codes
        self.lengths = lengths
    }

    @inline(__always)
    func write(_ symbol: Int, to writer: inout BitWriter) {
        writer.write(Int(codes[symbol]), bits: Int(lengths[symbol]))
    }

    /// Huffman code lengths for `frequencies`, none longer than `limit`: an optimal code,
    /// rebuilt from flattened frequencies until it fits. Unused symbols get 0; a lone used
    /// symbol gets length 1.
    static func lengths(for frequencies: [Int], limit: Int) -> [UInt8] {
        var weights = frequencies
        while true {
            let used = weights.indices.filter { weights[$0] > 0 }
            var lengths = [UInt8](repeating: 0, count: weights.count)
            if used.count == 1 { lengths[used[0]] = 1 }
            guard used.count > 1 else { return lengths }
            // Two-queue Huffman construction over leaves sorted by weight.
            let leaves = used.sorted { (weights[$0], $0) < (weights[$1], $1) }
            var nodeWeight = leaves.map { weights[$0] }
            var parent = [Int](repeating: -1, count: 2 * leaves.count - 1)
            var leafNext = 0
            var innerNext = leaves.count
            func takeSmallest() -> Int {
                if leafNext < leaves.count, innerNext >= nodeWeight.count || nodeWeight[leafNext] <= nodeWeight[innerNext] {
                    leafNext += 1
                    return leafNext - 1
                }
                innerNext += 1
                return innerNext - 1
            }
            for _ in 0..<(leaves.count - 1) {
                let first = takeSmallest()
                let second = takeSmallest()
                parent[first] = nodeWeight.count
                parent[second] = nodeWeight.count
                nodeWeight.append(nodeWeight[first] + nodeWeight[second])
            }
            // Depths from the root down: parents always come after their children.
            var depth = [Int](repeating: 0, count: nodeWeight.count)
            for node in stride(from: nodeWeight.count - 2, through: 0, by: -1) { depth[node] = depth[parent[node]] + 1 }
            var longest = 0
            for (position, symbol) in leaves.enumerated() {
                lengths[symbol] = UInt8(min(depth[position], 255))
                longest = max(longest, depth[position])
            }
            if longest <= limit { return lengths }
            weights = weights.map { $0 == 0 ? 0 : ($0 + 1) / 2 }
        }
    }
}

/// Bits packed least significant first, as DEFLATE wants them.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var buffer: UInt64 = 0
    private var count = 0

    @inline(__always)
    mutating func write(_ value: Int, bits: Int) {
        buffer |= UInt64(truncatingIfNeeded: value) << UInt64(count)
        count += bits
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: buffer))
            buffer >>= 8
            count -= 8
        }
    }

    mutating func alignToByte() {
        if count > 0 { write(0, bits: 8 - count) }
    }

    mutating func finish() -> [UInt8] {
        alignToByte()
        return bytes
    }
}

/// The tables both directions share: length and distance symbols, bases and extra bits.
enum DeflateTables {
    static let lengthBase: [UInt16] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [UInt8] = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase: [UInt16] = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
        4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra: [UInt8] = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// The order code-length code lengths are sent in.
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// Length 0...258 → length symbol − 257 (entries below 3 unused).
    static let lengthSymbol: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 259)
        for symbol in 0..<29 {
            let upper = symbol == 28 ? 258 : Int(lengthBase[symbol + 1]) - 1
            for length in Int(lengthBase[symbol])...upper { table[length] = UInt8(symbol) }
        }
        table[258] = 28  // 258 has its own symbol (285), not symbol 27's top
        return table
    }()

    @inline(__always)
    static func distanceSymbol(_ distance: Int) -> Int {
        var symbol = 0
        while symbol < 29, Int(distanceBase[symbol + 1]) <= distance { symbol += 1 }
        return symbol
    }

    static let fixedLiteralLengths: [UInt8] = (0..<288).map { $0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8 }
    static let fixedDistanceLengths = [UInt8](repeating: 5, count: 30)
}

/// LZ77 matching over a 32 KiB window.
enum LZ77 {
    /// A literal byte, or a match of `length` bytes `distance` back.
    struct Token {
        var raw: UInt32

        static func literal(_ byte: UInt8) -> Token { Token(raw: UInt32(byte)) }
        static func match(length: Int, distance: Int) -> Token {
            Token(raw: 1 << 31 | UInt32(length) << 16 | UInt32(distance - 1))
        }

        var isMatch: Bool { raw & (1 << 31) != 0 }
        var literal: UInt8 { UInt8(truncatingIfNeeded: raw) }
        var length: Int { Int(raw >> 16 & 0x1FF) }
        var distance: Int { Int(raw & 0xFFFF) + 1 }
    }

    static let window = 1 << 15
    static let hashBits = 15
    static let minimumMatch = 3
    static let maximumMatch = 258
    /// How many earlier positions one search tries.
    static let chainLimit = 48
    /// A match this long is taken without looking for a better one at the next byte.
    static let goodEnough = 32

    static func tokens(of input: UnsafeBufferPointer<UInt8>) -> [Token] {
        let count = input.count
        var tokens: [Token] = []
        tokens.reserveCapacity(count / 3 + 16)
        guard count >= minimumMatch + 1 else {
            for byte in input { tokens.append(.literal(byte)) }
            return tokens
        }
        var head = [Int32](repeating: -1, count: 1 << hashBits)
        var previous = [Int32](repeating: -1, count: count)
        head.withUnsafeMutableBufferPointer { head in
            previous.withUnsafeMutableBufferPointer { previous in
                @inline(__always) func hash(_ at: Int) -> Int {
                    let value = UInt32(input[at]) | UInt32(input[at + 1]) << 8 | UInt32(input[at + 2]) << 16
                    return Int((value &* 2_654_435_761) >> UInt32(32 - hashBits))
                }
                var inserted = 0  // positions below this are in the chains
                @inline(__always) func insert(upTo end: Int) {
                    while inserted < end, inserted + minimumMatch <= count {
                        let key = hash(inserted)
                        previous[inserted] = head[key]
                        head[key] = Int32(inserted)
                        inserted += 1
                    }
                }
                func longestMatch(at position: Int, better than: Int) -> (length: Int, distance: Int) {
                    var best = than
                    var bestDistance = 0
                    let limit = min(maximumMatch, count - position)
                    guard limit >= minimumMatch, limit > best else { return (0, 0) }
                    var candidate = Int(head[hash(position)])
                    var tries = chainLimit
                    while candidate >= 0, position - candidate <= window, tries > 0 {
                        tries -= 1
                        if input[candidate + best] == input[position + best] || best == 0 {
                            var length = 0
                            while length < limit, input[candidate + length] == input[position + length] { length += 1 }
                            if length > best {
                                best = length
                                bestDistance = position - candidate
                                if length == limit { break }
                            }
                        }
                        candidate = Int(previous[candidate])
                    }
                    return best >= minimumMatch && bestDistance > 0 ? (best, bestDistance) : (0, 0)
                }
                var position = 0
                while position < count {
                    insert(upTo: position)
                    var match = longestMatch(at: position, better: minimumMatch - 1)
                    if match.length == 0 {
                        tokens.append(.literal(input[position]))
                        position += 1
                        continue
                    }
                    // Lazy matching: prefer a longer match starting one byte later.
                    while match.length < goodEnough, position + 1 < count {
                        insert(upTo: position + 1)
                        let next = longestMatch(at: position + 1, better: match.length)
                        guard next.length > match.length else { break }
                        tokens.append(.literal(input[position]))
                        position += 1
                        match = next
                    }
                    tokens.append(.match(length: match.length, distance: match.distance))
                    position += match.length
                }
            }
        }
        return tokens
    }
}
