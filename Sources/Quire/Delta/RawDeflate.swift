import CZlib
import QuireCore

/// Raw DEFLATE streams (RFC 1951, no zlib or gzip wrapper) through the system zlib: how a
/// delta file compresses its payload. Every zlib call of the store is in this file.
///
/// Inflating is for untrusted input: the container states how many bytes the stream must
/// inflate to, and ``decompress(_:count:)`` writes at most one byte more than that, then
/// refuses a stream that inflates to more or fewer bytes, stops short of its final block,
/// is followed by other bytes, or could not possibly produce `count` bytes.
///
/// ```swift
/// let packed = RawDeflate.compress(payload) ?? payload
/// let unpacked = try RawDeflate.decompress(packed, count: payload.count)
/// ```
package enum RawDeflate {
    /// The most bytes a DEFLATE stream can produce per input byte (a 258-byte match coded
    /// in two bits), plus slack for a final partial byte: a stream of `n` bytes never
    /// inflates to more than `n × maximumRatio` bytes.
    package static let maximumRatio = 1032

    /// The compression level written: zlib's default. Level 9 saves under 0.5 % on delta
    /// payloads for about twice the time (docs/format.md).
    package static let level: Int32 = 6

    /// `bytes` as one raw DEFLATE stream, or `nil` when zlib cannot compress them (it is
    /// out of memory, or the input is larger than one zlib call takes): then store them
    /// as they are.
    ///
    /// - Parameters:
    ///   - bytes: What to compress.
    ///   - level: zlib's compression level, 1 (fastest) to 9 (smallest).
    /// - Complexity: O(n).
    package static func compress(_ bytes: [UInt8], level: Int32 = level) -> [UInt8]? {
        guard bytes.count < Int(UInt32.max) / 2 else { return nil }
        var stream = z_stream()
        // −15 window bits: a raw stream over a 32 KiB window; memory level 8 is zlib's default.
        guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        var status: Int32 = Z_OK
        let output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, initialized in
            bytes.withUnsafeBufferPointer { source in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                // The output holds deflateBound bytes: one call finishes the stream.
                status = deflate(&stream, Z_FINISH)
            }
            initialized = status == Z_STREAM_END ? Int(stream.total_out) : 0
        }
        return status == Z_STREAM_END ? output : nil
    }

    /// Inflates a raw DEFLATE stream that must produce exactly `count` bytes.
    ///
    /// - Parameters:
    ///   - stream: The compressed bytes; the stream must end exactly at their end.
    ///   - count: The inflated size the container declares. It is allocated up front
    ///     (after the ratio check): check it against your own limits first.
    /// - Returns: The `count` inflated bytes.
    /// - Throws: ``DecodingError`` naming the stream offset and the problem: a `count` no
    ///   stream of this length can produce (a size bomb), a stream that inflates to more
    ///   or fewer bytes, one that ends before its final block (`endsEarly`: cut short),
    ///   bytes after the final block, or data zlib cannot decode.
    /// - Complexity: O(`stream.count` + `count`).
    package static func decompress(_ stream: some Collection<UInt8>, count: Int) throws(DecodingError) -> [UInt8] {
        let input = Array(stream)
        guard count >= 0, count <= input.count.multipliedReportingOverflow(by: maximumRatio).partialValue else {
            throw DecodingError(offset: 0, problem: "a deflate stream of \(input.count) bytes cannot inflate to \(count) bytes",
                                endsEarly: count > 0)
        }
        guard count < Int(UInt32.max) - 1, input.count < Int(UInt32.max) else {
            throw DecodingError.malformed("a deflate stream of \(input.count) bytes inflating to \(count) is too large", at: 0)
        }
        var z = z_stream()
        guard inflateInit2_(&z, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw DecodingError.malformed("zlib could not start inflating (out of memory)", at: 0)
        }
        defer { inflateEnd(&z) }
        var status: Int32 = Z_OK
        // One byte of room beyond `count`: a stream that fills it inflates to too much.
        let output = [UInt8](unsafeUninitializedCapacity: count + 1) { buffer, initialized in
            input.withUnsafeBufferPointer { source in
                z.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                z.avail_in = uInt(source.count)
                z.next_out = buffer.baseAddress
                z.avail_out = uInt(count + 1)
                status = inflate(&z, Z_FINISH)
            }
            initialized = Int(z.total_out)
        }
        let consumed = Int(z.total_in)
        switch status {
        case Z_STREAM_END:
            guard output.count == count else {
                throw DecodingError.malformed("deflate stream inflates to \(output.count) bytes, not \(count)", at: consumed)
            }
            guard consumed == input.count else {
                throw DecodingError.malformed("\(input.count - consumed) bytes after the end of the deflate stream", at: consumed)
            }
            return output
        case Z_OK, Z_BUF_ERROR:
            if output.count > count {
                throw DecodingError.malformed("deflate stream inflates to more than \(count) bytes", at: consumed)
            }
            // All input read, room left, no final block: the stream was cut short.
            throw DecodingError.truncated("deflate stream", at: consumed)
        case Z_MEM_ERROR:
            throw DecodingError.malformed("zlib ran out of memory inflating \(count) bytes", at: consumed)
        default:
            let message = z.msg.map { String(cString: $0) } ?? "zlib status \(status)"
            throw DecodingError.malformed("deflate stream: \(message)", at: consumed)
        }
    }
}
