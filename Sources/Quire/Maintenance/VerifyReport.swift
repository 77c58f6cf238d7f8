/// What ``Store/verify()`` found: every problem with the database and key it concerns,
/// what is wrong and what to do, plus how much was checked.
///
/// ```swift
/// let report = try store.verify()
/// if !report.isHealthy {
///     for problem in report.problems { print(problem) }
/// }
/// ```
public struct VerifyReport: Hashable, Sendable, CustomStringConvertible {
    /// One inconsistency in the stored data.
    public struct Problem: Hashable, Sendable, CustomStringConvertible {
        /// The family of checks that found it.
        public var check: Check
        /// The LMDB database holding the entry, such as `"changes"` or `"tree.nodes"`.
        public var database: String
        /// The entry's key, spelled for people: `"store"`, `"00000000000000a2@17"`,
        /// `"slot 3"`.
        public var key: String
        /// What is wrong with it.
        public var problem: String
        /// What to do about it.
        public var remedy: String

        /// `database [key]: problem — remedy`.
        public var description: String { "\(database) [\(key)]: \(problem) — \(remedy)" }
    }

    /// The families of checks, in the order ``Store/verify()`` runs them.
    public enum Check: String, Hashable, Sendable, CaseIterable {
        /// The store file itself: it holds every page its meta pages name (a truncated
        /// `data.mdb` is reported here, and nothing else can be checked).
        case file
        /// The meta record: it decodes, and its clocks and version agree with the log.
        case meta
        /// The change log: every entry decodes, counters are contiguous per replica.
        case changeLog = "change-log"
        /// Pending changes decode and still wait for something.
        case pending
        /// Records, text slots, texts and name tables agree with each other and the tree.
        case indexes
        /// The hierarchy: parents exist, no cycles, the children index matches the nodes.
        case tree
    }

    /// Everything found; empty for a healthy store.
    public var problems: [Problem] = []
    /// Change-log entries checked.
    public var changeCount = 0
    /// Pending changes checked.
    public var pendingCount = 0
    /// Records checked.
    public var recordCount = 0
    /// Tree nodes checked (the root and the trash not counted).
    public var nodeCount = 0
    /// Tree log entries checked.
    public var treeLogCount = 0
    /// Texts (snapshots) checked.
    public var textCount = 0

    /// Whether no problem was found.
    public var isHealthy: Bool { problems.isEmpty }

    /// The problems found by one family of checks.
    public func problems(of check: Check) -> [Problem] { problems.filter { $0.check == check } }

    /// A summary line, then one line per problem.
    public var description: String {
        let checked = "\(changeCount) changes, \(pendingCount) pending, \(recordCount) records, \(nodeCount) nodes, "
            + "\(treeLogCount) tree log entries, \(textCount) texts"
        guard !isHealthy else { return "healthy: checked \(checked)" }
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        let summary = problems(of: .file).isEmpty
            ? "\(count) in \(checked)" : "\(count) in the store file; nothing else could be checked"
        return ([summary] + problems.map(\.description)).joined(separator: "\n")
    }
}
