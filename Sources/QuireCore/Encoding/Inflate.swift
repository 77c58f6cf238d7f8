/// Raw DEFLATE (RFC 1951) decompression in pure Swift, for untrusted input.
///
/// The caller states how many bytes the stream must inflate to; ``inflate(_:count:)``
/// writes into a buffer of exactly that size, refuses a stream that would write past it or
/// stop short of it, and throws ``DecodingError`` — never traps — on any malformed,
/// truncated or over-long stream. Check `count` against your own limits (and against
/// ``maximumRatio``) before calling: it is allocated up front.
///
/// ```swift
/// let text = try Inflate.inflate(compressed, count: declaredLength)
/// ```
public enum Inflate {
    /// The most bytes a DEFLATE stream can produce per input byte (a 258-byte match coded
    /// in two bits), plus slack for a final partial byte: a stream of `n` bytes never
    /// inflates to more than `n × maximumRatio` bytes.
    public static let maximumRatio = 1032

    /// Inflates a raw DEFLATE stream that must produce exactly `count` bytes.
    ///
    /// - Parameters:
    ///   - input: The compressed bytes; the stream must end within them (trailing bytes
    ///     after the final block are refused).
    ///   - count: The exact inflated size.
    /// - Returns: The `count` inflated bytes.
    /// - Throws: ``DecodingError`` naming the input offset and the problem.
    /// - Complexity: O(`input.count` + `count`).
    public static func inflate(_ input: some Collection<UInt8>, count: Int) throws(DecodingError) -> [UInt8] {
        let bytes = Array(input)
        guard count >= 0, count <= bytes.count.multipliedReportingOverflow(by: maximumRatio).partialValue else {
            throw DecodingError(offset: 0, problem: "a deflate stream of \(bytes.count) bytes cannot inflate to \(count) bytes",
                                endsEarly: count > 0)
        }
        var failure: DecodingError?
        let output = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            bytes.withUnsafeBufferPointer { source in
                var state = InflateState(input: source, output: buffer)
                do throws(DecodingError) {
                    try state.run()
                    initialized = state.written
                } catch {
                    // Bits of the zero padding decode as some code or other; whatever
                    // they made wrong, the stream ended first.
                    failure = state.consumedPadding ? DecodingError.truncated("deflate stream", at: bytes.count) : error
                }
            }
            if failure != nil {
                // The bytes are plain UInt8: nothing to deinitialise, report none written.
                initialized = 0
            }
        }
        if let failure { throw failure }
        guard output.count == count else {
            throw DecodingError.malformed("deflate stream inflates to \(output.count) bytes, not \(count)", at: bytes.count)
        }
        return output
    }
}

/// A canonical Huffman code for decoding: a direct table over the first
/// ``HuffmanDecoder/tableBits`` bits, and the counts and sorted symbols for the rare longer
/// codes.
struct HuffmanDecoder {
    static let tableBits = 10
    /// Indexed by the next `tableBits` input bits: symbol << 4 | code length, or 0 when the
    /// code is longer than `tableBits` (or the bits are no code at all).
    var table: [UInt16]
    /// Codes of each length, 0...15.
    var counts: [Int16]
    /// Symbols in canonical order.
    var symbols: [UInt16]

    /// Builds the decoder for `lengths` (0 = symbol unused). Over-subscribed codes are
    /// refused; incomplete ones are accepted only when `allowIncomplete` (a code with a
    /// single symbol, or none, as encoders write for the distances).
    init(lengths: UnsafeBufferPointer<UInt8>, allowIncomplete: Bool, at offset: Int) throws(DecodingError) {
        var counts = [Int16](repeating: 0, count: 16)
        for length in lengths { counts[Int(length)] += 1 }
        counts[0] = 0
        var left = 1
        for length in 1...15 {
            left = left << 1 - Int(counts[length])
            guard left >= 0 else { throw DecodingError.malformed("over-subscribed Huffman code", at: offset) }
        }
        let used = counts.reduce(0) { $0 + Int($1) }
        guard left == 0 || (allowIncomplete && used <= 1) else {
            throw DecodingError.malformed("incomplete Huffman code", at: offset)
        }
        var offsets = [Int](repeating: 0, count: 16)
        for length in 1..<15 { offsets[length + 1] = offsets[length] + Int(counts[length]) }
        var symbols = [UInt16](repeating: 0, count: max(used, 1))
        for (symbol, length) in lengths.enumerated() where length != 0 {
            symbols[offsets[Int(length)]] = UInt16(symbol)
            offsets[Int(length)] += 1
        }
        // Canonical codes in symbol order per length; the table is indexed by bit-reversed
        // codes (DEFLATE sends Huffman codes most significant bit first).
        let size = 1 << Self.tableBits
        var table = [UInt16](repeating: 0, count: size)
        var code = 0
        var index = 0
        for length in 1...15 {
            for _ in 0..<Int(counts[length]) {
                if length <= Self.tableBits {
                    var reversed = 0
                    var value = code
                    for _ in 0..<length {
                        reversed = reversed << 1 | value & 1
                        value >>= 1
                    }
                    let entry = UInt16(symbols[index]) << 4 | UInt16(length)
                    var slot = reversed
                    while slot < size {
                        table[slot] = entry
                        slot += 1 << length
                    }
                }
                code += 1
                index += 1
            }
            code <<= 1
        }
        self.table = table
        self.counts = counts
        self.symbols = symbols
    }
}

/// The decoding loop, over raw buffers that live only for one ``Inflate/inflate(_:count:)``.
private struct InflateState {
    let input: UnsafeBufferPointer<UInt8>
    let output: UnsafeMutableBufferPointer<UInt8>
    var position = 0
    var bitBuffer: UInt64 = 0
    var bitCount = 0
    /// Zero bytes added past the end of the input to keep refills simple; consuming any of
    /// their bits means the stream was truncated.
    var padding = 0
    var written = 0

    init(input: UnsafeBufferPointer<UInt8>, output: UnsafeMutableBufferPointer<UInt8>) {
        self.input = input
        self.output = output
    }

    /// The byte offset of the next unread bit, for error messages.
    var offset: Int { max(0, position - padding - bitCount / 8) }

    /// Fills the bit buffer to at least 56 bits, padding with zeros past the end.
    @inline(__always)
    mutating func refill() throws(DecodingError) {
        if position + 8 <= input.count {
            // Fast path: take whole bytes of an unaligned 8-byte load.
            let word = UnsafeRawPointer(input.baseAddress! + position).loadUnaligned(as: UInt64.self)
            bitBuffer |= UInt64(littleEndian: word) << UInt64(bitCount)
            let taken = (63 - bitCount) >> 3
            position += taken
            bitCount += taken << 3
            return
        }
        while bitCount <= 56 {
            if position < input.count {
                bitBuffer |= UInt64(input[position]) << UInt64(bitCount)
            } else {
                padding += 1
                guard padding <= 16 else { throw DecodingError.truncated("deflate stream", at: input.count) }
            }
            position += 1
            bitCount += 8
        }
    }

    @inline(__always)
    mutating func bits(_ count: Int) throws(DecodingError) -> Int {
        if bitCount < count { try refill() }
        let value = Int(truncatingIfNeeded: bitBuffer & ((1 << UInt64(count)) &- 1))
        bitBuffer >>= UInt64(count)
        bitCount -= count
        return value
    }

    /// Whether bits of the zero padding have been consumed: the stream is cut short.
    var consumedPadding: Bool { padding * 8 > bitCount }

    /// Throws when bits of the zero padding have been consumed.
    mutating func checkNotTruncated() throws(DecodingError) {
        guard padding * 8 <= bitCount else { throw DecodingError.truncated("deflate stream", at: input.count) }
    }

    @inline(__always)
    mutating func decode(_ code: borrowing HuffmanDecoder) throws(DecodingError) -> Int {
        if bitCount < 15 { try refill() }
        let entry = code.table.withUnsafeBufferPointer { $0[Int(truncatingIfNeeded: bitBuffer) & (1 << HuffmanDecoder.tableBits - 1)] }
        if entry != 0 {
            let length = Int(entry & 15)
            bitBuffer >>= UInt64(length)
            bitCount -= length
            return Int(entry >> 4)
        }
        return try decodeLong(code)
    }

    /// Canonical decoding one bit at a time, for codes longer than the table.
    mutating func decodeLong(_ code: borrowing HuffmanDecoder) throws(DecodingError) -> Int {
        var value = 0
        var first = 0
        var index = 0
        for length in 1...15 {
            value |= Int(bitBuffer & 1)
            bitBuffer >>= 1
            bitCount -= 1
            let count = Int(code.counts[length])
            if value - first < count { return Int(code.symbols[index + value - first]) }
            index += count
            first = (first + count) << 1
            value <<= 1
        }
        throw DecodingError.malformed("no Huffman code matches the input", at: offset)
    }

    mutating func run() throws(DecodingError) {
        var isFinal = false
        while !isFinal {
            isFinal = try bits(1) == 1
            switch try bits(2) {
            case 0: try storedBlock()
            case 1: try codedBlock(Self.fixedLiterals, Self.fixedDistances)
            case 2:
                let (literals, distances) = try dynamicCodes()
                try codedBlock(literals, distances)
            default: throw DecodingError.malformed("deflate block type 3 is reserved", at: offset)
            }
            try checkNotTruncated()
        }
        // Whole bytes still buffered were read ahead, not consumed: they must be padding.
        guard position - bitCount / 8 == input.count else {
            throw DecodingError.malformed("\(input.count - (position - bitCount / 8)) bytes follow the deflate stream", at: offset)
        }
    }

    mutating func storedBlock() throws(DecodingError) {
        // Drop to a byte boundary, then give back the whole buffered bytes.
        _ = try bits(bitCount & 7)
        try checkNotTruncated()
        position -= bitCount / 8
        bitBuffer = 0
        bitCount = 0
        guard padding == 0, position + 4 <= input.count else { throw DecodingError.truncated("stored block header", at: input.count) }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        guard length == ~complement & 0xFFFF else {
            throw DecodingError.malformed("stored block length does not match its complement", at: position)
        }
        position += 4
        guard length <= input.count - position else { throw DecodingError.truncated("stored block", at: position) }
        guard length <= output.count - written else {
            throw DecodingError.malformed("deflate stream inflates past the declared length", at: position)
        }
        for index in 0..<length { output[written + index] = input[position + index] }
        written += length
        position += length
    }

    mutating func dynamicCodes() throws(DecodingError) -> (HuffmanDecoder, HuffmanDecoder) {
        let start = offset
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeLengthCount = try bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else {
            throw DecodingError.malformed("dynamic block declares too many codes", at: start)
        }
        var codeLengthLengths = [UInt8](repeating: 0, count: 19)
        for index in 0..<codeLengthCount { codeLengthLengths[DeflateTables.codeLengthOrder[index]] = UInt8(try bits(3)) }
        let codeLengths = try codeLengthLengths.withUnsafeBufferPointer { lengths throws(DecodingError) in
            try HuffmanDecoder(lengths: lengths, allowIncomplete: false, at: start)
        }
        var lengths = [UInt8](repeating: 0, count: literalCount + distanceCount)
        var index = 0
        while index < lengths.count {
            let symbol = try decode(codeLengths)
            if symbol < 16 {
                lengths[index] = UInt8(symbol)
                index += 1
                continue
            }
            let (value, repeats): (UInt8, Int)
            switch symbol {
            case 16:
                guard index > 0 else { throw DecodingError.malformed("code length repeat with nothing before it", at: offset) }
                (value, repeats) = (lengths[index - 1], 3 + (try bits(2)))
            case 17: (value, repeats) = (0, 3 + (try bits(3)))
            default: (value, repeats) = (0, 11 + (try bits(7)))
            }
            guard repeats <= lengths.count - index else {
                throw DecodingError.malformed("code lengths run past the declared codes", at: offset)
            }
            for _ in 0..<repeats {
                lengths[index] = value
                index += 1
            }
        }
        try checkNotTruncated()
        guard lengths[256] != 0 else { throw DecodingError.malformed("dynamic block has no end-of-block code", at: start) }
        return try lengths.withUnsafeBufferPointer { all throws(DecodingError) in
            let literals = try HuffmanDecoder(
                lengths: UnsafeBufferPointer(rebasing: all[..<literalCount]), allowIncomplete: true, at: start)
            let distances = try HuffmanDecoder(
                lengths: UnsafeBufferPointer(rebasing: all[literalCount...]), allowIncomplete: true, at: start)
            return (literals, distances)
        }
    }

    mutating func codedBlock(_ literals: borrowing HuffmanDecoder, _ distances: borrowing HuffmanDecoder) throws(DecodingError) {
        let capacity = output.count
        let out = output.baseAddress
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                guard written < capacity else {
                    throw DecodingError.malformed("deflate stream inflates past the declared length", at: offset)
                }
                out![written] = UInt8(truncatingIfNeeded: symbol)
                written += 1
                continue
            }
            if symbol == 256 { return }
            let lengthSymbol = symbol - 257
            guard lengthSymbol < 29 else { throw DecodingError.malformed("invalid length symbol \(symbol)", at: offset) }
            let length = Int(DeflateTables.lengthBase[lengthSymbol]) + (try bits(Int(DeflateTables.lengthExtra[lengthSymbol])))
            let distanceSymbol = try decode(distances)
            guard distanceSymbol < 30 else { throw DecodingError.malformed("invalid distance symbol \(distanceSymbol)", at: offset) }
            let distance = Int(DeflateTables.distanceBase[distanceSymbol]) + (try bits(Int(DeflateTables.distanceExtra[distanceSymbol])))
            guard distance <= written else {
                throw DecodingError.malformed("match distance \(distance) reaches before the start", at: offset)
            }
            guard length <= capacity - written else {
                throw DecodingError.malformed("deflate stream inflates past the declared length", at: offset)
            }
            // Byte by byte: the source may overlap what is being written.
            var from = written - distance
            for _ in 0..<length {
                out![written] = out![from]
                written += 1
                from += 1
            }
        }
    }

    static let fixedLiterals: HuffmanDecoder = {
        var lengths = [UInt8](repeating: 8, count: 288)
        for index in 144..<256 { lengths[index] = 9 }
        for index in 256..<280 { lengths[index] = 7 }
        return try! lengths.withUnsafeBufferPointer { try HuffmanDecoder(lengths: $0, allowIncomplete: false, at: 0) }
    }()

    static let fixedDistances: HuffmanDecoder = {
        // All 32 five-bit codes; symbols 30 and 31 are refused when they occur.
        let lengths = [UInt8](repeating: 5, count: 32)
        return try! lengths.withUnsafeBufferPointer { try HuffmanDecoder(lengths: $0, allowIncomplete: true, at: 0) }
    }()
}
