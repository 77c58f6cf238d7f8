@testable import QuireCore

/// Helpers shared by the tree tests: replicas with small fixed IDs, exchange, and the
/// checkers (invariants, naive model, convergence), each itself tested to fail.

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A replica with ID `id` and a fixed position-key seed.
func treeReplica(_ id: UInt64) throws -> ReplicatedTree {
    try ReplicatedTree(replica: ReplicaID(id), seed: id &* 7_919)
}

/// What a reader can observe of a tree: every node's parent, metadata, and the order of
/// every node's children.
struct TreeSnapshot: Equatable, CustomStringConvertible {
    var parents: [NodeID: NodeID] = [:]
    var metadata: [NodeID: [UInt8]] = [:]
    var children: [NodeID: [NodeID]] = [:]

    init(_ tree: ReplicatedTree) {
        for node in tree.nodeIDs {
            parents[node] = tree.parent(of: node)
            metadata[node] = tree.metadata(of: node)
        }
        for node in tree.nodeIDs + [.root, .deletedRoot] where tree.childCount(of: node) > 0 {
            children[node] = tree.children(of: node)
        }
    }

    var description: String {
        parents.keys.sorted().map { "\($0)→\(parents[$0].map(String.init(describing:)) ?? "-")" }.joined(separator: " ")
    }
}

/// Every violation of the tree's structural invariants: one parent per node, listed
/// exactly once among that parent's children, siblings in (position, last move) order,
/// no cycle, and every node reachable from the root or the deleted-root (or, when
/// `allowingMissingAncestors`, from a node whose creation has not arrived yet).
func treeInvariantViolations(_ tree: ReplicatedTree, allowingMissingAncestors: Bool = false) -> [String] {
    var problems: [String] = []
    let all = tree.nodeIDs
    if all.count != tree.nodeCount { problems.append("nodeCount \(tree.nodeCount) but \(all.count) nodes") }
    var listed: [NodeID: Int] = [:]
    // Parents not yet in the tree (their creation has not arrived) hold children too.
    let parents = Set(all + [.root, .deletedRoot] + all.compactMap { tree.parent(of: $0) })
    for parent in parents {
        let children = tree.children(of: parent)
        for child in children {
            listed[child, default: 0] += 1
            if tree.parent(of: child) != parent { problems.append("\(child) listed under \(parent) but its parent is \(String(describing: tree.parent(of: child)))") }
        }
        for (a, b) in zip(children, children.dropFirst()) {
            guard let pa = tree.position(of: a), let pb = tree.position(of: b), let ta = tree.lastMove(of: a), let tb = tree.lastMove(of: b) else { continue }
            if !(pa < pb || (pa == pb && ta < tb)) { problems.append("children of \(parent) out of order at \(a), \(b)") }
        }
    }
    for node in all {
        if listed[node] != 1 { problems.append("\(node) listed \(listed[node] ?? 0) times among children") }
        var current = node
        var steps = 0
        while let parent = tree.parent(of: current) {
            current = parent
            steps += 1
            if current == node || steps > all.count + 2 { problems.append("cycle through \(node)"); break }
        }
        let reachable = current == .root || current == .deletedRoot
        if !reachable && !(allowingMissingAncestors && !tree.contains(current)) {
            problems.append("\(node) is not reachable from the root or the deleted-root (stops at \(current))")
        }
    }
    return problems
}

/// The naive model: replays every operation, sorted by timestamp, from scratch on a plain
/// parent map, skipping moves of fixed nodes and moves that would make a cycle.
struct NaiveTreeModel {
    struct Node: Equatable { var parent: NodeID; var position: PositionKey; var metadata: [UInt8]; var lastMove: Timestamp }
    var nodes: [NodeID: Node] = [:]

    init(_ operations: [TreeOperation]) {
        var seen = Set<Timestamp>()
        for operation in operations.sorted(by: { $0.timestamp < $1.timestamp }) where seen.insert(operation.timestamp).inserted {
            guard !operation.node.isFixed else { continue }
            var ancestor: NodeID? = operation.parent
            var cycle = false
            while let current = ancestor {
                if current == operation.node { cycle = true; break }
                ancestor = nodes[current]?.parent
            }
            if cycle { continue }
            nodes[operation.node] = Node(parent: operation.parent, position: operation.position, metadata: operation.metadata, lastMove: operation.timestamp)
        }
    }

    /// Children of `parent`, sorted by (position, last move).
    func children(of parent: NodeID) -> [NodeID] {
        nodes.filter { $0.value.parent == parent }
            .sorted { ($0.value.position, $0.value.lastMove) < ($1.value.position, $1.value.lastMove) }
            .map(\.key)
    }

    /// Every difference between the model and `tree`.
    func differences(from tree: ReplicatedTree) -> [String] {
        var problems: [String] = []
        if nodes.count != tree.nodeCount { problems.append("model has \(nodes.count) nodes, tree \(tree.nodeCount)") }
        for (id, node) in nodes {
            if tree.parent(of: id) != node.parent { problems.append("\(id): model parent \(node.parent), tree \(String(describing: tree.parent(of: id)))") }
            if tree.metadata(of: id) != node.metadata { problems.append("\(id): metadata differs") }
        }
        for parent in Set(nodes.values.map(\.parent)) where children(of: parent) != tree.children(of: parent) {
            problems.append("children of \(parent) differ: model \(children(of: parent)), tree \(tree.children(of: parent))")
        }
        return problems
    }
}

/// Every difference between the replicas' observable states.
func convergenceViolations(_ trees: [ReplicatedTree]) -> [String] {
    guard let first = trees.first else { return [] }
    let reference = TreeSnapshot(first)
    var problems: [String] = []
    for (index, tree) in trees.enumerated().dropFirst() {
        let snapshot = TreeSnapshot(tree)
        if snapshot.parents != reference.parents { problems.append("replica \(index): parents differ") }
        if snapshot.metadata != reference.metadata { problems.append("replica \(index): metadata differs") }
        if snapshot.children != reference.children { problems.append("replica \(index): sibling order differs") }
    }
    return problems
}
