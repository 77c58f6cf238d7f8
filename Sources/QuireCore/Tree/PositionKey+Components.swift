/// Position keys as sequences of integers.
///
/// Each integer is one token whose bytes sort like the integer, and no token is a prefix
/// of another, so comparing two keys bytewise compares their integer sequences
/// lexicographically (a proper prefix first):
///
/// | integer | bytes |
/// |---|---|
/// | −64 … 63 | one byte, `0x80 + n` (`0x40` … `0xBF`) |
/// | 64 and up | `0xBF + k`, then `n − 64` in *k* big-endian bytes (*k* = 1 … 8, as few as hold it) |
/// | −65 and down | `0x40 − k`, then the complement of `−65 − n` in *k* big-endian bytes |
///
/// Keys whose bytes are not such tokens, or not in their shortest form, are valid keys
/// too (they sort by their bytes); ``PositionKey/between(_:and:owning:using:)`` falls
/// back to bytewise midpoints next to them.
extension PositionKey {
    /// The key of an integer sequence.
    init(encoding components: [Int64]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(components.count * 5)
        for value in components { Self.append(value, to: &bytes) }
        self.init(bytes)
    }

    /// The key's integers, or `nil` when its bytes are not a sequence of shortest-form
    /// tokens.
    public var components: [Int64]? { Self.components(of: bytes) }

    /// Appends the token of `value`.
    static func append(_ value: Int64, to bytes: inout [UInt8]) {
        if value >= -64 && value <= 63 {
            bytes.append(UInt8(0x80 + value))
            return
        }
        // The magnitude beyond the one-byte range; neither subtraction can overflow.
        let magnitude = value > 0 ? UInt64(value - 64) : UInt64(-(value + 65))
        let length = Swift.max(1, (64 - magnitude.leadingZeroBitCount + 7) / 8)
        let payload = value > 0 ? magnitude : ~magnitude
        bytes.append(value > 0 ? UInt8(0xBF + length) : UInt8(0x40 - length))
        for index in stride(from: length - 1, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: payload >> (8 * UInt64(index))))
        }
    }

    /// The integers of `bytes`, or `nil` when they are not shortest-form tokens.
    static func components(of bytes: [UInt8]) -> [Int64]? {
        var result: [Int64] = []
        var index = 0
        while index < bytes.count {
            let head = bytes[index]
            let positive: Bool
            let length: Int
            switch head {
            case 0x40...0xBF:
                result.append(Int64(head) - 0x80)
                index += 1
                continue
            case 0xC0...0xC7: positive = true; length = Int(head) - 0xBF
            case 0x38...0x3F: positive = false; length = 0x40 - Int(head)
            default: return nil
            }
            guard index + length < bytes.count else { return nil }
            var payload: UInt64 = 0
            for offset in 1...length { payload = payload << 8 | UInt64(bytes[index + offset]) }
            let mask: UInt64 = length == 8 ? .max : (1 << (8 * UInt64(length))) - 1
            let magnitude = positive ? payload : ~payload & mask
            // Shortest form only, and within Int64: otherwise bytes and integers would
            // not sort alike.
            guard length == 1 || magnitude >> (8 * UInt64(length - 1)) != 0,
                  magnitude <= UInt64(Int64.max) - 64 else { return nil }
            result.append(positive ? Int64(magnitude) + 64 : -65 - Int64(magnitude))
            index += 1 + length
        }
        return result
    }

    /// Random run starts are below this: far enough apart that two replicas' runs at one
    /// spot almost never meet, and four bytes as a token.
    static let runStartRange: UInt64 = 1 << 24
    /// A gap between two integers at least this wide gets a new integer inside it;
    /// a narrower one gets a new level below its lower end.
    static let splittableGap: UInt64 = 1 << 12

    /// A key that starts a run strictly between `lower` and `upper` (`nil`: no bound),
    /// or `nil` when no integer sequence lies between them (only for bounds at the very
    /// ends of the integers).
    static func newRun(
        after lower: [Int64]?, before upper: [Int64]?, using random: inout some RandomNumberGenerator
    ) -> [Int64]? {
        let lower = lower ?? []
        var prefix: [Int64] = []
        var depth = 0
        // Below the shared prefix, an ended `lower` means no lower bound at that depth;
        // `upper` cannot end first, since it sorts after `lower`.
        while depth < lower.count, let upper, depth < upper.count, lower[depth] == upper[depth] {
            prefix.append(lower[depth])
            depth += 1
        }
        let low = depth < lower.count ? lower[depth] : nil
        let high = upper.flatMap { depth < $0.count ? $0[depth] : nil }
        let start = Int64(random.next() % runStartRange)
        switch (low, high) {
        case (nil, nil):
            return prefix + [start]
        case (let low?, nil):
            if let value = low.adding(1, start) { return prefix + [value] }
            return prefix + [low] + Self.after(lower[(depth + 1)...], start)
        case (nil, let high?):
            if let value = high.adding(-1, -start) { return prefix + [value] }
            guard let below = Self.before(upper![(depth + 1)...], start) else { return nil }
            return prefix + [high] + below
        case (let low?, let high?):
            let gap = UInt64(bitPattern: high &- low)
            if gap >= splittableGap {
                let offset = gap / 4 + random.next() % (gap / 2)
                return prefix + [low &+ Int64(bitPattern: offset)]
            }
            return prefix + [low] + Self.after(lower[(depth + 1)...], start)
        }
    }

    /// A sequence after `tail` with no upper bound.
    private static func after(_ tail: ArraySlice<Int64>, _ start: Int64) -> [Int64] {
        guard let first = tail.first else { return [start] }
        if let value = first.adding(1, start) { return [value] }
        return [first] + after(tail.dropFirst(), start)
    }

    /// A sequence before `tail` with no lower bound, or `nil` when `tail` is empty or
    /// all minimums.
    private static func before(_ tail: ArraySlice<Int64>, _ start: Int64) -> [Int64]? {
        guard let first = tail.first else { return nil }
        if let value = first.adding(-1, -start) { return [value] }
        return before(tail.dropFirst(), start).map { [first] + $0 }
    }
}

extension Array where Element == Int64 {
    /// The sequence with `step` added to its last integer, or `nil` when it is empty or
    /// the sum overflows.
    func withLast(adding step: Int64) -> [Int64]? {
        guard let last, let value = last.adding(step, 0) else { return nil }
        var result = self
        result[count - 1] = value
        return result
    }
}

extension Int64 {
    /// `self + a + b`, or `nil` on overflow.
    fileprivate func adding(_ a: Int64, _ b: Int64) -> Int64? {
        let (first, overflowA) = addingReportingOverflow(a)
        let (sum, overflowB) = first.addingReportingOverflow(b)
        return overflowA || overflowB ? nil : sum
    }
}
