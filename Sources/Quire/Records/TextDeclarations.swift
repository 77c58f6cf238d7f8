import Synchronization

/// Record type name → the texts its Swift types declare (``Record/texts``), learned from
/// the types used in this process; type names some type declared `nil` for accept any
/// text. Not stored: it describes the code, not the data.
///
/// One per open store, shared by the writer's state and every read snapshot, which learn
/// from the types their transactions use on any thread (hence the lock).
final class TextDeclarations: Sendable {
    private struct Table {
        var declared: [String: Set<String>] = [:]
        var anyText: Set<String> = []
        /// The Swift types learned already: a type's declaration never changes, so each
        /// is learned once (reads learn the type they decode, every time).
        var learned: Set<ObjectIdentifier> = []
    }

    private let table = Mutex(Table())
    /// The Swift type learned last (its `ObjectIdentifier`'s bits): reads of one type
    /// after another skip the lock and the set.
    private let lastLearned = Atomic<UInt>(0)

    /// Notes `type`'s declared texts.
    func learn(_ type: any Record.Type) {
        let swiftType = ObjectIdentifier(type)
        let bits = UInt(bitPattern: swiftType)
        if lastLearned.load(ordering: .acquiring) == bits { return }
        defer { lastLearned.store(bits, ordering: .releasing) }
        guard !table.withLock({ $0.learned.contains(swiftType) }) else { return }
        let name = type.typeName, texts = type.texts
        table.withLock { table in
            table.learned.insert(swiftType)
            guard !table.anyText.contains(name) else { return }
            guard let texts else {
                table.anyText.insert(name)
                table.declared[name] = nil
                return
            }
            if let known = table.declared[name], known.isSuperset(of: texts) { return }
            table.declared[name, default: []].formUnion(texts)
        }
    }

    /// The texts records of `type` may have, or `nil` when any text goes (or the type
    /// was not used in this process yet).
    func declared(forType type: String) -> Set<String>? {
        table.withLock { $0.declared[type] }
    }
}
