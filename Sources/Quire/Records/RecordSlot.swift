#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The memory a point read decodes its value into (see ``StoreReading/get(_:_:)``): in
/// code generic over the record type, a local optional of it costs two metadata lookups
/// per read, a slot one small allocation.
enum RecordSlot<Value> {
    /// Uninitialized memory for one `Value`. From `malloc`, whose memory suits any
    /// alignment up to 16, when `Value`'s alignment is that small: the standard library's
    /// allocation hands every alignment to the runtime's aligned allocation
    /// (`posix_memalign`), at about twice the cost.
    static func allocate() -> UnsafeMutablePointer<Value> {
        guard MemoryLayout<Value>.alignment <= 16 else { return .allocate(capacity: 1) }
        // Out of memory traps, as the standard library's allocation does.
        return malloc(max(1, MemoryLayout<Value>.size))!.bindMemory(to: Value.self, capacity: 1)
    }

    /// Frees a slot from ``allocate()`` whose value was moved out or never made.
    static func deallocate(_ slot: UnsafeMutablePointer<Value>) {
        if MemoryLayout<Value>.alignment <= 16 { free(slot) } else { slot.deallocate() }
    }
}
