/// CRC-32C (Castagnoli), the checksum of delta files: the polynomial iSCSI, ext4 and
/// Btrfs use, which catches every burst error up to 32 bits.
///
/// ```swift
/// CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283
/// ```
public enum CRC32C {
    /// Eight tables of 256 entries: eight bytes per step ("slicing by 8").
    private static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[0][index] = crc
        }
        for index in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[slice - 1][index]
                tables[slice][index] = (previous >> 8) ^ tables[0][Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    ///
    /// - Complexity: O(n), about a byte per cycle.
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        let tables = Self.tables
        let done: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
            var offset = 0
            while offset + 8 <= buffer.count {
                let low = crc ^ (UInt32(buffer[offset]) | UInt32(buffer[offset + 1]) << 8
                    | UInt32(buffer[offset + 2]) << 16 | UInt32(buffer[offset + 3]) << 24)
                crc = tables[7][Int(low & 0xFF)] ^ tables[6][Int((low >> 8) & 0xFF)]
                    ^ tables[5][Int((low >> 16) & 0xFF)] ^ tables[4][Int(low >> 24)]
                    ^ tables[3][Int(buffer[offset + 4])] ^ tables[2][Int(buffer[offset + 5])]
                    ^ tables[1][Int(buffer[offset + 6])] ^ tables[0][Int(buffer[offset + 7])]
                offset += 8
            }
            while offset < buffer.count {
                crc = (crc >> 8) ^ tables[0][Int((crc ^ UInt32(buffer[offset])) & 0xFF)]
                offset += 1
            }
            return true
        }
        if done == nil {
            for byte in bytes { crc = (crc >> 8) ^ tables[0][Int((crc ^ UInt32(byte)) & 0xFF)] }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
