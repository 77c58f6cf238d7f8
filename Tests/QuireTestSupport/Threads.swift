import Foundation
import Synchronization

/// A value shared between threads behind a lock.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    /// Creates the box.
    public init(_ value: Value) { mutex = Mutex(value) }

    /// The current value.
    public func get() -> Value { mutex.withLock { $0 } }

    /// Replaces the value.
    public func set(_ value: Value) { mutex.withLock { $0 = value } }

    /// Mutates the value in place.
    public func update<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// A thread of its own (not one of Swift concurrency's pool), for tests that block.
/// ``join()`` waits for it and rethrows what it threw.
public final class TestThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let failure = Locked<String?>(nil)

    /// Starts `body` on a new thread.
    public init(_ body: @escaping @Sendable () throws -> Void) {
        Thread.detachNewThread { [finished, failure] in
            do { try body() } catch { failure.set(String(describing: error)) }
            finished.signal()
        }
    }

    /// Waits for the thread to finish; throws if its body threw.
    public func join() throws {
        finished.wait()
        if let message = failure.get() { throw ThreadFailure(message: message) }
    }

    /// Waits at most `seconds`; returns whether the thread finished in that time.
    public func join(within seconds: Double) -> Bool {
        guard finished.wait(timeout: .now() + seconds) == .success else { return false }
        finished.signal()  // so that a later join() returns too
        return true
    }
}

/// An error thrown on a ``TestThread``.
public struct ThreadFailure: Error, CustomStringConvertible {
    /// The thrown error, described.
    public var message: String

    /// Creates a failure with a message.
    public init(message: String) { self.message = message }

    public var description: String { "thread failed: \(message)" }
}
