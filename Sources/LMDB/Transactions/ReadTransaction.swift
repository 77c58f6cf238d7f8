/// A read-only transaction: a consistent snapshot of the environment.
///
/// Lent to the body of ``Environment/read(_:)``, or owned when begun with
/// ``Environment/beginRead()``; either way it cannot be copied, and it ends (LMDB aborts
/// it, which is how a read transaction ends) when its owner lets it go. All its methods
/// come from ``ReadableTransaction``.
public struct ReadTransaction: ~Copyable, ReadableTransaction {
    /// The underlying transaction; an implementation detail of the layer.
    public let _core: TransactionCore
    /// The gate the transaction entered; it leaves it when it ends.
    private let gate: TransactionGate

    init(handle: OpaquePointer, calls: LMDBCalls, environment: EnvironmentIdentity, gate: TransactionGate) {
        _core = TransactionCore(handle: handle, calls: calls, writeState: nil, environment: environment)
        self.gate = gate
    }

    deinit {
        _core.calls.txnAbort(_core.handle)
        gate.leave(writing: false)
    }
}
