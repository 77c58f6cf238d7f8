/// A read-only transaction: a consistent snapshot of the environment.
///
/// Lent to the body of ``Environment/read(_:)``, or owned when begun with
/// ``Environment/beginRead()``; either way it cannot be copied, and it ends when its
/// owner lets it go (its handle is kept for a later read, see ``Environment/beginRead()``). All its methods come from ``ReadableTransaction``.
public struct ReadTransaction: ~Copyable, ReadableTransaction {
    /// The underlying transaction; an implementation detail of the layer.
    public let _core: TransactionCore
    /// The environment it reads, kept alive while the transaction is: an environment let
    /// go while an owned read is open would otherwise close LMDB under it. Its gate is
    /// left, and its idle readers get the handle, when the transaction ends.
    private let environment: Environment

    @usableFromInline
    init(handle: OpaquePointer, environment: Environment) {
        _core = TransactionCore(
            handle: handle, calls: environment.calls, writeState: nil, environment: environment.identity)
        self.environment = environment
    }

    deinit {
        // Ended (kept or aborted) before the gate hears of it: once the gate counts no
        // transaction, none is running, which closing and map growth rely on (they reset
        // or abort the kept ones, which nothing uses then).
        environment.endRead(_core.handle)
        environment.gate.leave(writing: false)
    }
}
