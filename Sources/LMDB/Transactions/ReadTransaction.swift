/// A read-only transaction: a consistent snapshot of the environment.
///
/// Lent to the body of ``Environment/read(_:)``, or owned when begun with
/// ``Environment/beginRead()``; either way it cannot be copied, and it ends when its
/// owner lets it go (its handle is kept for a later read, see ``Environment/beginRead()``).
/// All its methods come from ``ReadableTransaction``.
public struct ReadTransaction: ~Copyable, ReadableTransaction {
    /// The underlying transaction; an implementation detail of the layer.
    public let _core: TransactionCore
    /// The environment it reads. Not retained: a lent read (``Environment/read(_:)``)
    /// ends inside a method of its environment, and an owned one holds ``owner``.
    /// (`Unmanaged`, lent to the call that ends it: Swift 6.3.1 retained an
    /// `unowned(unsafe)` reference around that call.)
    private let environment: Unmanaged<Environment>
    /// The environment again, kept alive while an owned read (``Environment/beginRead()``)
    /// is: an environment let go while it is open would otherwise close LMDB under it.
    /// `nil` for a lent read, which spares each read a retain and a release.
    private let owner: Environment?
    /// ``IdleReaders/invalidations`` before it began.
    private let invalidationsAtBegin: Int

    @usableFromInline
    init(handle: OpaquePointer, environment: Environment, owned: Bool, invalidationsAtBegin: Int) {
        _core = TransactionCore(
            handle: handle, calls: environment.calls, writeState: nil, environment: environment.identity)
        self.environment = Unmanaged.passUnretained(environment)
        owner = owned ? environment : nil
        self.invalidationsAtBegin = invalidationsAtBegin
    }

    deinit {
        environment._withUnsafeGuaranteedRef { $0.endRead(_core.handle, invalidationsAtBegin: invalidationsAtBegin) }
    }
}
