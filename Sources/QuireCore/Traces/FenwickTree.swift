/// Prefix sums over a fixed number of slots that change one at a time: a Fenwick (binary
/// indexed) tree. Adding to a slot, a prefix sum, and finding where a prefix sum passes a
/// value are each O(log *n*).
struct FenwickTree {
    /// 1-based partial sums.
    private var sums: [Int]

    /// `count` slots holding zero.
    init(count: Int) { sums = Array(repeating: 0, count: count + 1) }

    /// Slots holding `values`, built in O(*n*).
    init(_ values: [Int]) {
        sums = [0] + values
        for index in 1..<sums.count {
            let parent = index + (index & -index)
            if parent < sums.count { sums[parent] += sums[index] }
        }
    }

    /// Adds `delta` to slot `slot` (0-based).
    mutating func add(_ delta: Int, at slot: Int) {
        var index = slot + 1
        while index < sums.count {
            sums[index] += delta
            index += index & -index
        }
    }

    /// The sum of the slots before `slot` (0-based).
    func prefixSum(_ slot: Int) -> Int {
        var index = slot
        var total = 0
        while index > 0 {
            total += sums[index]
            index -= index & -index
        }
        return total
    }

    /// The first slot at which the running sum passes `value` (slots hold non-negative
    /// values), with the sum of the slots before it; `value` must be below the total.
    func lastPrefix(atMost value: Int) -> (slot: Int, before: Int) {
        var index = 0
        var total = 0
        var step = 1
        while step * 2 < sums.count { step *= 2 }
        while step > 0 {
            let next = index + step
            if next < sums.count, total + sums[next] <= value {
                index = next
                total += sums[next]
            }
            step /= 2
        }
        return (index, total)
    }
}
