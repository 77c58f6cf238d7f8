import QuireCore

/// A change's wall-clock time (``Change/time``) as a delta file carries it: most often
/// the step from its replica's previous change, which the receiver has applied already
/// by the time it applies this one, so a keystroke's time costs one byte.
///
/// ```
/// time   varint: step << 1       after the replica's previous change (the receiver's
///                                ``StoreMeta/times``, or the previous unit in the file)
///        varint: seconds << 1 | 1  absolute, seconds since 1970
/// ```
///
/// A unit carries it when flagged (``DeltaUnitHeader/Flag/time``, delta format 3); a
/// unit without it, or a step from a change whose time the receiver does not know, has
/// an unknown time (0).
enum DeltaTime: Hashable, Sendable {
    case unknown
    case absolute(UInt64)
    case after(UInt64)

    /// How a change made at `time` is sent when its replica's previous change was made
    /// at `previous` (`nil` or 0: unknown to the sender).
    init(_ time: UInt64, previous: UInt64?) {
        if time == 0 {
            self = .unknown
        } else if let previous, previous > 0, time >= previous {
            self = .after(time - previous)
        } else {
            self = .absolute(time)
        }
    }

    /// The time, given the receiver's time of the replica's previous change.
    func resolved(previous: UInt64?) -> UInt64 {
        switch self {
        case .unknown: 0
        case .absolute(let time): time
        case .after(let step): previous.map { $0 > 0 ? $0 + step : 0 } ?? 0
        }
    }

    func encode(into writer: inout ByteWriter) {
        switch self {
        case .unknown: break
        case .absolute(let time): writer.write(varint: time << 1 | 1)
        case .after(let step): writer.write(varint: step << 1)
        }
    }

    static func decode(from reader: inout ByteReader) throws(DecodingError) -> DeltaTime {
        let at = reader.offset
        let value = try reader.readVarint("time")
        guard value >> 1 < Change.maximumTime, value != 1 else { throw .malformed("impossible time", at: at) }
        return value & 1 != 0 ? .absolute(value >> 1) : .after(value >> 1)
    }
}
