/// A read-only transaction: a consistent snapshot of the environment.
///
/// Lent to the body of ``Environment/read(_:)``, or owned when begun with
/// ``Environment/beginRead()``; either way it cannot be copied, and it ends when its
/// owner lets it go (its handle is reset and kept for a later read to renew, see
/// ``Environment/beginRead()``). All its methods come from ``ReadableTransaction``.
public struct ReadTransaction: ~Copyable, ReadableTransaction {
    /// The underlying transaction; an implementation detail of the layer.
    public let _core: TransactionCore
    /// The gate the transaction entered; it leaves it when it ends.
    private let gate: TransactionGate
    /// Where the handle goes when the transaction ends, to be renewed by a later read.
    private let idleReaders: IdleReaders

    init(
        handle: OpaquePointer, calls: LMDBCalls, environment: EnvironmentIdentity, gate: TransactionGate,
        idleReaders: IdleReaders
    ) {
        _core = TransactionCore(handle: handle, calls: calls, writeState: nil, environment: environment)
        self.gate = gate
        self.idleReaders = idleReaders
    }

    deinit {
        // Ended (reset or aborted) before the gate hears of it: once the gate counts no
        // transaction, none is running, which closing and map growth rely on.
        idleReaders.end(_core.handle, calls: _core.calls)
        gate.leave(writing: false)
    }
}
