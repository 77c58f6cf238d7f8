import CZlib

/// Inflates gzip (or zlib) data, and deflates data, with the system zlib.
enum Gzip {
    /// A gzip stream that does not inflate.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `bytes` compressed as one zlib stream at the default level.
    static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = output.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                compress2(target.baseAddress, &length, source.baseAddress, uLong(source.count), Z_DEFAULT_COMPRESSION)
            }
        }
        return status == Z_OK ? Array(output[..<Int(length)]) : bytes
    }

    /// Whether `bytes` start with the gzip magic number.
    static func isCompressed(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// The inflated bytes of a whole gzip stream.
    ///
    /// - Throws: ``Failure`` for corrupt or truncated input.
    static func decompress(_ input: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        // 15 window bits + 32: detect gzip or zlib headers automatically.
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var status: Int32 = Z_OK
        try input.withUnsafeBufferPointer { source in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = uInt(source.count)
            repeat {
                try chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    guard status == Z_OK || status == Z_STREAM_END else {
                        throw Failure(description: "the gzip data is corrupt (zlib status \(status))")
                    }
                }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
                if status == Z_OK && stream.avail_in == 0 && stream.avail_out != 0 {
                    throw Failure(description: "the gzip data is truncated")
                }
            } while status != Z_STREAM_END
        }
        return output
    }
}
