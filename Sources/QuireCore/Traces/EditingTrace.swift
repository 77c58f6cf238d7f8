/// An editing history in Joseph Gentle's trace format: transactions of patches
/// `(position, deleted count, inserted text)`, either one linear history or a DAG of
/// concurrent transactions by several agents.
///
/// Decoding the JSON is the tool's job; this is the parsed form, and ``replay()`` runs it
/// through ``ReplicatedText``.
public struct EditingTrace: Sendable {
    /// One edit: delete `deleteCount` scalars at `position`, then insert `text` there.
    public struct Patch: Sendable, Hashable {
        /// The position, in Unicode scalars.
        public var position: Int
        /// The number of scalars deleted.
        public var deleteCount: Int
        /// The text inserted.
        public var text: String

        /// Creates a patch.
        public init(position: Int, deleteCount: Int, text: String) {
            self.position = position
            self.deleteCount = deleteCount
            self.text = text
        }
    }

    /// A group of patches made together by one agent on one version of the document.
    public struct Transaction: Sendable {
        /// Indexes of earlier transactions whose merged result this one edits; empty for
        /// the empty document. For sequential traces, the previous transaction.
        public var parents: [Int]
        /// The agent (0-based) that made it; agent `k` edits as replica `k + 1`.
        public var agent: Int
        /// The patches, applied in order.
        public var patches: [Patch]

        /// Creates a transaction.
        public init(parents: [Int], agent: Int, patches: [Patch]) {
            self.parents = parents
            self.agent = agent
            self.patches = patches
        }
    }

    /// The document before the first transaction (sequential traces only).
    public var startContent: String
    /// The expected final document.
    public var endContent: String
    /// Whether transactions form a DAG of concurrent edits.
    public var isConcurrent: Bool
    /// The transactions, each after its parents.
    public var transactions: [Transaction]

    /// Creates a trace.
    public init(startContent: String = "", endContent: String, isConcurrent: Bool, transactions: [Transaction]) {
        self.startContent = startContent
        self.endContent = endContent
        self.isConcurrent = isConcurrent
        self.transactions = transactions
    }

    /// The number of patches.
    public var patchCount: Int { transactions.reduce(0) { $0 + $1.patches.count } }

    /// The replica that agent `agent` edits as.
    public static func replica(ofAgent agent: Int) -> ReplicaID { ReplicaID(UInt64(agent) + 1) }

    /// Replays the trace and returns a replica holding the final document (all
    /// transactions merged).
    ///
    /// Sequential traces are applied as local edits of replica 1. Concurrent traces are
    /// replayed on one document that moves between versions (``ConcurrentTraceReplay``,
    /// after Eg-walker): each transaction's patches apply at exactly the version its
    /// parents name, with the IDs, origins and targets a replica of its agent at that
    /// version would give them, and the resulting operations are applied once, in trace
    /// order, to the returned replica. Time and memory grow with the history, not with
    /// agents × document.
    ///
    /// - Throws: ``TraceError`` when a patch does not fit the document it applies to or
    ///   the DAG is inconsistent.
    ///
    /// - Parameter progress: Called now and then with the transactions replayed so far
    ///   and their total (for a progress bar); `nil` for none.
    public func replay(progress: ((_ done: Int, _ total: Int) -> Void)? = nil) throws -> ReplicatedText {
        isConcurrent ? try replayConcurrent(progress) : try replaySequential(progress)
    }

    /// How many transactions pass between progress calls.
    private static let progressStride = 4_096

    private func replaySequential(_ progress: ((Int, Int) -> Void)?) throws -> ReplicatedText {
        let text = ReplicatedText(replica: Self.replica(ofAgent: 0))
        if !startContent.isEmpty { try text.insert(startContent, at: 0) }
        for (index, transaction) in transactions.enumerated() {
            try apply(transaction.patches, to: text, transaction: index)
            if let progress, index % Self.progressStride == 0 { progress(index, transactions.count) }
        }
        progress?(transactions.count, transactions.count)
        return text
    }

    private func replayConcurrent(_ progress: ((Int, Int) -> Void)?) throws -> ReplicatedText {
        var replay = ConcurrentTraceReplay(trace: self)
        return try replay.run(progress: progress, progressStride: Self.progressStride)
    }

    private func apply(_ patches: [Patch], to text: ReplicatedText, transaction: Int) throws {
        for patch in patches {
            guard patch.deleteCount >= 0, patch.position >= 0,
                patch.position + patch.deleteCount <= text.count
            else {
                throw TraceError.patchOutOfRange(transaction: transaction, patch: patch, length: text.count)
            }
            if patch.deleteCount > 0 { try text.delete(patch.position..<patch.position + patch.deleteCount) }
            if !patch.text.isEmpty { try text.insert(patch.text, at: patch.position) }
        }
    }
}

/// A trace that cannot be replayed.
public enum TraceError: Error, CustomStringConvertible {
    /// A patch reaches past the end of the document it applies to.
    case patchOutOfRange(transaction: Int, patch: EditingTrace.Patch, length: Int)
    /// A transaction names a parent that is not an earlier transaction.
    case badParent(transaction: Int, parent: Int)
    /// The merged parents did not give the expected version.
    case inconsistentHistory(transaction: Int, expected: VersionVector, found: VersionVector)

    /// A sentence naming the transaction and the problem.
    public var description: String {
        switch self {
        case .patchOutOfRange(let transaction, let patch, let length):
            "transaction \(transaction): patch at \(patch.position) deleting \(patch.deleteCount) does not fit a document of \(length) characters"
        case .badParent(let transaction, let parent):
            "transaction \(transaction): parent \(parent) is not an earlier transaction"
        case .inconsistentHistory(let transaction, let expected, let found):
            "transaction \(transaction): its parents give version \(expected), but the agent's replica is at \(found)"
        }
    }
}
