import QuireCore

extension Store {
    /// The length in bytes of each child's position key under `parent`, in sibling order.
    ///
    /// Position keys are internal to the hierarchy; this exists for `quire bench tree`,
    /// which reports how long keys grow (`max_key_bytes_*` in `docs/benchmarks.md`).
    ///
    /// ```swift
    /// let longest = try store.positionKeyLengths(ofChildrenOf: folder).max() ?? 0
    /// ```
    ///
    /// - Parameter parent: The parent record; `nil` for the top level.
    /// - Returns: One byte count per child; empty for a record without children or an
    ///   unknown one.
    /// - Complexity: O(*k*) for *k* children.
    /// - Throws: ``StoreError/closed``, or what catching up with other processes throws.
    package func positionKeyLengths(ofChildrenOf parent: RecordID?) throws -> [Int] {
        try withCurrentState(call: "store.positionKeyLengths") { state in
            state.tree.children(of: parent?.node ?? .root).map { state.tree.position(of: $0)?.bytes.count ?? 0 }
        }
    }
}
