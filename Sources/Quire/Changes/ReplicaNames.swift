import QuireCore

/// The names (record types, field names) one replica's changes have used, in order of
/// first use: delta files refer to a name this replica used before by its index here,
/// so a keystroke names its text in one byte instead of spelling "content".
///
/// The table is a function of the replica's changes alone — scanned in counter order,
/// each operation's names in a fixed order (type, then field names sorted; a text's
/// field) — so every store that has applied the same changes has the same table.
struct ReplicaNames: Hashable, Sendable {
    private(set) var names: [String] = []
    /// The first counter of the change that first used each name.
    private(set) var firstUse: [UInt64] = []
    private var index: [String: Int] = [:]

    var count: Int { names.count }

    subscript(position: Int) -> String { names[position] }

    func position(of name: String) -> Int? { index[name] }
    func firstUse(at position: Int) -> UInt64 { firstUse[position] }

    /// Appends `name`, first used by the change at `counter`, unless known.
    ///
    /// - Returns: The position of a name that was new.
    @discardableResult
    mutating func note(_ name: String, firstUsedAt counter: UInt64) -> Int? {
        guard index[name] == nil else { return nil }
        index[name] = names.count
        names.append(name)
        firstUse.append(counter)
        return names.count - 1
    }

    /// Whether the table knows every name `unit` uses: the usual case (a keystroke names
    /// its text's field again), which then needs no copy of the table and no new arrays.
    func knowsEveryName(in unit: ChangeUnit) -> Bool {
        switch unit {
        case .run(let run): index[run.text.field] != nil
        case .change(let change): Self.forEachName(in: change) { index[$0] != nil }
        }
    }

    /// The names `change` uses, in the table's order.
    static func names(in change: Change) -> [String] {
        var result: [String] = []
        forEachName(in: change) { name in
            result.append(name)
            return true
        }
        return result
    }

    /// Calls `body` with each name `change` uses, in the table's order — a field write's
    /// record type, then its field names sorted; a text's field — while it returns `true`.
    ///
    /// - Returns: Whether `body` returned `true` for every name.
    @discardableResult
    private static func forEachName(in change: Change, _ body: (String) -> Bool) -> Bool {
        for operation in change.operations {
            switch operation {
            case .fields(_, let type, let values):
                guard body(type) else { return false }
                for name in values.keys.sorted() where !body(name) { return false }
            case .text(let text, _):
                guard body(text.field) else { return false }
            case .tree:
                break
            }
        }
        return true
    }

    /// Notes the names `change` (of this table's replica) uses.
    ///
    /// - Returns: The positions that were new.
    mutating func learn(from change: Change) -> [Int] {
        Self.names(in: change).compactMap { note($0, firstUsedAt: change.id.counter) }
    }

    /// Notes the names `unit` (of this table's replica) uses: a run's, its text's field.
    ///
    /// - Returns: The positions that were new.
    mutating func learn(from unit: ChangeUnit) -> [Int] {
        switch unit {
        case .change(let change): learn(from: change)
        case .run(let run): note(run.text.field, firstUsedAt: run.id.counter).map { [$0] } ?? []
        }
    }
}
