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
/// good.
///
/// `@unchecked Sendable`: its only state is the key; each thread's object is reached only
/// by that thread.
package final class ThreadLocal<Object: AnyObject>: @unchecked Sendable {
    @usableFromInline let key: pthread_key_t

    package init() {
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
    package func value(orMake make: () -> Object) -> Object {
        if let stored = pthread_getspecific(key) { return Unmanaged<Object>.fromOpaque(stored).takeUnretainedValue() }
        let made = make()
        pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
        return made
    }
}
