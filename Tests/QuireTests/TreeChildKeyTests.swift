import Foundation
import LMDB
@testable import Quire
import QuireCore
import Testing

/// A snapshot lists a folder by reading each children-index key in place; it must name
/// the child `decodeChildKey` names, and refuse what `decodeChildKey` refuses.
@Suite("Tree storage: children keys read in place")
struct TreeChildKeyTests {
    /// Keys of random children: replicas equal to the last move's or not, counters and
    /// clocks of every width, position keys with zero bytes.
    static func randomKeys(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let widths: [UInt64] = [0, 1, 0xFF, 0x100, 0xFFFF_FFFF, .max]
            func number() -> UInt64 { random.next() % 3 == 0 ? widths[Int(random.next() % 6)] : random.next() >> (random.next() % 64) }
            let moveReplica = ReplicaID(number() | 1)
            let child = NodeID(replica: random.next() % 2 == 0 ? moveReplica : ReplicaID(number() | 1), counter: number())
            let position = PositionKey((0..<Int(random.next() % 6)).map { _ in UInt8(random.next() % 3 == 0 ? 0 : random.next() % 256) })
            let record = TreeNodeRecord(
                parent: NodeID(replica: ReplicaID(number()), counter: number()), position: position, metadata: [],
                lastMove: Timestamp(lamport: number(), replica: moveReplica))
            return TreeStorageLayout.childKey(child, record).bytes
        }
    }

    @Test("the child read in place is the child decodeChildKey reads")
    func agrees() throws {
        for key in Self.randomKeys(count: 2_000, seed: 7) {
            let full = try TreeStorageLayout.decodeChildKey(key).child
            let inPlace = try key.withUnsafeBytes { try TreeStorageLayout.child(fromChildKey: $0) }
            #expect(inPlace == full)
        }
    }

    @Test("every truncation and a wrong marker are refused, never read past the end")
    func refusals() throws {
        for key in Self.randomKeys(count: 200, seed: 8) {
            for length in 0..<key.count {
                let cut = Array(key[..<length])
                #expect(throws: KeyReader.DecodingError.self) {
                    try cut.withUnsafeBytes { try TreeStorageLayout.child(fromChildKey: $0) }
                }
            }
            #expect(throws: KeyReader.DecodingError.self) {
                try (key + [0]).withUnsafeBytes { try TreeStorageLayout.child(fromChildKey: $0) }
            }
        }
    }
}
