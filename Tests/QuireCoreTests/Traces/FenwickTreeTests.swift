import Testing
@testable import QuireCore

@Suite("Trace replay: the Fenwick tree of chunk counts")
struct FenwickTreeTests {
    @Test("prefix sums and the slot where a running sum passes a value agree with a plain array under random updates")
    func agreesWithAnArray() {
        var random = SplitMix64(seed: 21)
        for count in [1, 2, 3, 7, 64, 100] {
            var values = (0..<count).map { _ in Int(random.next() % 5) }
            var tree = FenwickTree(values)
            for _ in 0..<500 {
                let slot = Int(random.next() % UInt64(count))
                let delta = values[slot] > 0 && random.next() % 2 == 0 ? -1 : Int(random.next() % 3)
                values[slot] += delta
                tree.add(delta, at: slot)
                for probe in 0...count { #expect(tree.prefixSum(probe) == values.prefix(probe).reduce(0, +)) }
                let total = values.reduce(0, +)
                guard total > 0 else { continue }
                let value = Int(random.next() % UInt64(total))
                var running = 0, expected = 0
                while running + values[expected] <= value { running += values[expected]; expected += 1 }
                let found = tree.lastPrefix(atMost: value)
                #expect(found.slot == expected && found.before == running, "value \(value) in \(values)")
            }
        }
    }
}
