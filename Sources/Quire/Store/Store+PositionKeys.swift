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
    /// - Throws: ``StoreError/closed``, or an error reading LMDB.
    package func positionKeyLengths(ofChildrenOf parent: RecordID?) throws -> [Int] {
        let layout = layout
        return try withSnapshot("store.positionKeyLengths") { snapshot in
            try snapshot.withLogTransaction { tx in
                try layout.tree.childEntries(of: parent?.node ?? .root, in: tx).map(\.position.bytes.count)
            }
        }
    }
}
