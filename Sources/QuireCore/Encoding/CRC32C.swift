/// CRC-32C (Castagnoli), the checksum of delta files: the polynomial iSCSI, ext4 and
/// Btrfs use, which catches every burst error up to 32 bits.
///
/// ```swift
/// CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283
/// ```
public enum CRC32C {
    /// Eight tables of 256 entries, one after another: eight bytes per step ("slicing by
    /// 8"). One flat array, read through a pointer: nested arrays cost a bounds check and
    /// an indirection per lookup, eight lookups a step.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[index] = crc
        }
        for index in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    ///
    /// - Complexity: O(n), about a byte per cycle.
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        Self.tables.withUnsafeBufferPointer { tables in
            let table = tables.baseAddress.unsafelyUnwrapped
            @inline(__always) func lookup(_ slice: Int, _ byte: UInt32) -> UInt32 { table[slice << 8 | Int(byte & 0xFF)] }
            let done: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
                guard let base = buffer.baseAddress else { return true }
                var offset = 0
                while offset + 8 <= buffer.count {
                    let word = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self).littleEndian
                    let low = crc ^ UInt32(truncatingIfNeeded: word)
                    let high = UInt32(truncatingIfNeeded: word >> 32)
                    crc = lookup(7, low) ^ lookup(6, low >> 8) ^ lookup(5, low >> 16) ^ lookup(4, low >> 24)
                        ^ lookup(3, high) ^ lookup(2, high >> 8) ^ lookup(1, high >> 16) ^ lookup(0, high >> 24)
                    offset += 8
                }
                while offset < buffer.count {
                    crc = (crc >> 8) ^ lookup(0, crc ^ UInt32(base[offset]))
                    offset += 1
                }
                return true
            }
            if done == nil {
                for byte in bytes { crc = (crc >> 8) ^ lookup(0, crc ^ UInt32(byte)) }
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
