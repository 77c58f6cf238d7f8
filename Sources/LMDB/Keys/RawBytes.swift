/// A value that can lend its bytes as one contiguous buffer: what LMDB keys and values
/// are made of.
///
/// `[UInt8]`, `ArraySlice<UInt8>`, `ContiguousArray<UInt8>`, `UnsafeRawBufferPointer` and
/// ``Key`` conform. To pass Foundation's `Data`, add `extension Data: RawBytes {}` — its
/// `withUnsafeBytes(_:)` already matches.
public protocol RawBytes {
    /// Calls `body` with the bytes, valid only for the duration of the call.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: RawBytes where Element == UInt8 {}
extension ArraySlice: RawBytes where Element == UInt8 {}
extension ContiguousArray: RawBytes where Element == UInt8 {}

extension UnsafeRawBufferPointer: RawBytes {
    /// Calls `body` with `self`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(self)
    }
}

/// Compares two byte strings the way LMDB's default key order does: bytewise, and a
/// proper prefix sorts first.
func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let common = min(a.count, b.count)
    if common > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        let order = memcmp(pa, pb, common)
        if order != 0 { return Int(order) }
    }
    return a.count - b.count
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
