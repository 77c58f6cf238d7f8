/// A read-only transaction: a consistent snapshot of the environment.
///
/// Lent to the body of ``Environment/read(_:)``; it cannot be copied or kept. All its
/// methods come from ``ReadableTransaction``.
public struct ReadTransaction: ~Copyable, ReadableTransaction {
    /// The underlying transaction; an implementation detail of the layer.
    public let _core: TransactionCore

    init(handle: OpaquePointer, calls: LMDBCalls, environment: EnvironmentIdentity) {
        _core = TransactionCore(handle: handle, calls: calls, writeState: nil, environment: environment)
    }
}
