#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One object per thread, made on the thread's first use and released when the thread
/// exits: bookkeeping that only its own thread touches, so reaching it takes no lock.
/// The gate's record of what a thread holds (``ThreadTransactions``) lives in one, and
/// layers above use it for their own per-thread bookkeeping.
///
/// Meant for a `static let`: each instance takes one of the process's `pthread` keys for
/// good. SPI rather than `package`, so that its two lines inline into the store's read
/// path (Swift inlines `package` code across modules only in libraries built for
/// evolution).
///
/// `@unchecked Sendable`: its only state is the key; each thread's object is reached only
/// by that thread.
@_spi(LMDBInternals) public final class ThreadLocal<Object: AnyObject>: @unchecked Sendable {
    @usableFromInline let key: pthread_key_t

    public init() {
        var key = pthread_key_t()
        // The destructor is a C function and cannot know `Object`; a class reference is
        // the same pointer as `AnyObject`.
        let created = pthread_key_create(&key) { stored in
            #if canImport(Darwin)
            Unmanaged<AnyObject>.fromOpaque(stored).release()
            #else
            if let stored { Unmanaged<AnyObject>.fromOpaque(stored).release() }
            #endif
        }
        precondition(created == 0, "pthread_key_create failed (\(created)): the process ran out of thread-local keys")
        self.key = key
    }

    /// The calling thread's object, made by `make` on the thread's first call.
    @inlinable
    public func value(orMake make: () -> Object) -> Object {
        if let stored = pthread_getspecific(key) { return Unmanaged<Object>.fromOpaque(stored).takeUnretainedValue() }
        let made = make()
        pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
        return made
    }

    /// `body`'s answer for the calling thread's object (made by `make` on the thread's
    /// first call), lent without a retain: the thread's storage holds it while the thread
    /// runs.
    @inlinable
    public func withValue<R>(orMake make: () -> Object, _ body: (Object) throws -> R) rethrows -> R {
        guard let stored = pthread_getspecific(key) else { return try body(value(orMake: make)) }
        return try Unmanaged<Object>.fromOpaque(stored)._withUnsafeGuaranteedRef(body)
    }
}
