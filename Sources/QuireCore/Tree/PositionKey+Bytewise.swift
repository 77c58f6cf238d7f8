extension PositionKey {
    /// A key strictly between two keys that are not both integer sequences: the bytes
    /// read as a base-256 fraction, a short key in the gap plus two random bytes. Keys
    /// stored before format 2 were all made this way; it is kept for their neighbours.
    ///
    /// - Returns: A key `k` with `lower < k < upper`, never ending in `0x00`; after
    ///   `upper` only when `upper` is `lower` followed by zero bytes (nothing lies between).
    static func bytewiseBetween(
        _ lower: PositionKey?, and upper: PositionKey?, using random: inout some RandomNumberGenerator
    ) -> PositionKey {
        let low = lower?.bytes ?? []
        var high = upper?.bytes
        if let bound = high, compare(low, bound) >= 0 { high = nil }
        var result: [UInt8] = []
        result.reserveCapacity(low.count + 3)
        var lowTight = true
        var highTight = high != nil
        var index = 0
        while true {
            let l = lowTight && index < low.count ? Int(low[index]) : 0
            var h = 256
            if highTight, let high {
                if index < high.count {
                    h = Int(high[index])
                } else {
                    // Only a key ending in 0x00 gets here: nothing lies strictly
                    // between, so the new key goes after `upper` instead.
                    highTight = false
                }
            }
            if h - l >= 2 {
                // Room for a digit strictly inside: one step from the end that is open,
                // else the midpoint.
                let digit: Int
                if high == nil {
                    digit = l + 1
                } else if lower == nil && highTight {
                    digit = h - 1
                } else {
                    digit = l + (h - l) / 2
                }
                result.append(UInt8(digit))
                break
            }
            result.append(UInt8(l))
            if l < h { highTight = false }
            if !(lowTight && index < low.count) { lowTight = false }
            index += 1
        }
        // Anything appended keeps the key inside the gap: the last digit is already
        // strictly between the bounds' digits there.
        result.append(UInt8.random(in: 0...255, using: &random))
        result.append(UInt8.random(in: 1...255, using: &random))
        return PositionKey(result)
    }
}
