// libFuzzer target: several ReplicatedTree replicas against a naive model.
//
// The input drives 2–4 replicas making creates, moves, reorders, renames, deletes,
// restores, bursts of inserts at one spot and drags to the top, and deliveries of each other's operations: any subset, in any order, with
// duplicates (the tree does not need causal delivery). After every delivery the receiver
// must equal the naive model — every operation it knows, sorted by timestamp and applied
// from scratch to a plain parent map, a move that would make a cycle skipped (Kleppmann
// et al., 2021) — and keep its structural invariants. At the end everyone receives
// everything, and all replicas must be identical, every node reachable from the root or
// the deleted-root.

/// The naive model: every operation, sorted by timestamp, replayed on a dictionary.
private struct NaiveTree {
    struct Node: Equatable {
        var parent: NodeID
        var position: PositionKey
        var metadata: [UInt8]
        var lastMove: Timestamp
    }
    var nodes: [NodeID: Node] = [:]

    init(_ operations: some Collection<TreeOperation>) {
        for operation in operations.sorted(by: { $0.timestamp < $1.timestamp }) {
            guard !operation.node.isFixed, operation.position.bytes.count <= PositionKey.maximumLength else { continue }
            var ancestor: NodeID? = operation.parent
            var cycle = false
            while let current = ancestor {
                if current == operation.node { cycle = true; break }
                ancestor = nodes[current]?.parent
            }
            if cycle { continue }
            nodes[operation.node] = Node(
                parent: operation.parent, position: operation.position, metadata: operation.metadata,
                lastMove: operation.timestamp)
        }
    }

    /// Every difference between the model and `tree`.
    func differences(from tree: ReplicatedTree) -> [String] {
        var problems: [String] = []
        if nodes.count != tree.nodeCount { problems.append("model has \(nodes.count) nodes, tree \(tree.nodeCount)") }
        var byParent: [NodeID: [(NodeID, Node)]] = [:]
        for (id, node) in nodes {
            byParent[node.parent, default: []].append((id, node))
            if tree.parent(of: id) != node.parent {
                problems.append("\(id): model parent \(node.parent), tree \(String(describing: tree.parent(of: id)))")
            }
            if tree.metadata(of: id) != node.metadata { problems.append("\(id): metadata differs") }
            if tree.lastMove(of: id) != node.lastMove { problems.append("\(id): last move differs") }
        }
        for (parent, children) in byParent {
            let expected = children.sorted { a, b in
                let order = PositionKey.compare(a.1.position.bytes, b.1.position.bytes)
                return order != 0 ? order < 0 : a.1.lastMove < b.1.lastMove
            }.map(\.0)
            let actual = tree.children(of: parent)
            if expected != actual { problems.append("children of \(parent): model \(expected), tree \(actual)") }
        }
        return problems
    }
}

/// Structural invariants: each node listed once under its parent, siblings in order,
/// no cycle, and (unless some creations have not arrived) every node reachable from the
/// root or the deleted-root.
private func invariantViolations(_ tree: ReplicatedTree, complete: Bool) -> [String] {
    var problems: [String] = []
    let all = tree.nodeIDs
    var listed: [NodeID: Int] = [:]
    for parent in Set(all + [.root, .deletedRoot] + all.compactMap { tree.parent(of: $0) }) {
        let children = tree.children(of: parent)
        for child in children {
            listed[child, default: 0] += 1
            if tree.parent(of: child) != parent { problems.append("\(child) listed under \(parent), parent \(String(describing: tree.parent(of: child)))") }
        }
        for (a, b) in zip(children, children.dropFirst()) {
            guard let pa = tree.position(of: a), let pb = tree.position(of: b), let ta = tree.lastMove(of: a), let tb = tree.lastMove(of: b) else {
                problems.append("child of \(parent) without position")
                continue
            }
            let order = PositionKey.compare(pa.bytes, pb.bytes)
            if !(order < 0 || (order == 0 && ta < tb)) { problems.append("children of \(parent) out of order at \(a), \(b)") }
        }
    }
    for node in all {
        if listed[node] != 1 { problems.append("\(node) listed \(listed[node] ?? 0) times") }
        var current = node
        var steps = 0
        while let parent = tree.parent(of: current) {
            current = parent
            steps += 1
            if current == node || steps > all.count + 2 { problems.append("cycle through \(node)"); break }
        }
        if current != .root && current != .deletedRoot && (complete || tree.contains(current)) {
            problems.append("\(node) is not reachable from the root or the deleted-root (stops at \(current))")
        }
    }
    return problems
}

private struct TreeModelRun {
    var input: FuzzInput
    var replicas: [ReplicatedTree]
    /// Per replica, every operation it has made or received.
    var known: [[Timestamp: TreeOperation]]
    var all: [Timestamp: TreeOperation] = [:]

    init(input: FuzzInput) {
        self.input = input
        let count = 2 + self.input.int(3)
        replicas = (1...count).map { try! ReplicatedTree(replica: ReplicaID(UInt64($0)), seed: UInt64($0)) }
        known = Array(repeating: [:], count: count)
    }

    mutating func metadata() -> [UInt8] { [input.byte()] }

    mutating func localStep(_ r: Int) {
        var tree = replicas[r]
        let nodes = tree.nodeIDs.sorted()
        let live = nodes.filter { !tree.isDeleted($0) }
        var operation: TreeOperation?
        var burst: [TreeOperation] = []
        do {
            switch input.int(9) {
            case 0, 1:
                let parent = input.pick(live + [.root])!
                operation = try tree.create(under: parent, at: input.int(tree.childCount(of: parent) + 1), metadata: metadata())
            case 2:
                guard let node = input.pick(nodes) else { break }
                let parent = input.pick(live + [.root, .deletedRoot])!
                if tree.wouldCreateCycle(moving: node, under: parent) {
                    do {
                        _ = try tree.move(node, to: parent)
                        fuzzFailure("a move of \(node) into its own subtree was accepted")
                    } catch {}
                    break
                }
                let siblings = tree.childCount(of: parent) - (tree.parent(of: node) == parent ? 1 : 0)
                operation = try tree.move(node, to: parent, at: input.int(siblings + 1), metadata: input.bool() ? metadata() : nil)
            case 3:
                guard let node = input.pick(live) else { break }
                operation = try tree.delete(node)
            case 4:
                guard let node = input.pick(tree.children(of: .deletedRoot)) else { break }
                let parent = input.pick(live.filter { !tree.wouldCreateCycle(moving: node, under: $0) } + [.root])!
                operation = try tree.restore(node, to: parent, at: input.int(tree.childCount(of: parent) + 1))
            case 5:
                guard let node = input.pick(nodes) else { break }
                operation = try tree.rename(node, metadata: metadata())
            case 6:
                guard let parent = input.pick(live + [.root]), tree.childCount(of: parent) > 1 else { break }
                let node = input.pick(tree.children(of: parent))!
                operation = try tree.move(node, to: parent, at: input.int(tree.childCount(of: parent)))
            case 7:
                // A burst at one spot: up to 100 creates at index 1 (or 0) of one folder.
                let parent = input.pick(live + [.root])!
                let index = min(1, tree.childCount(of: parent))
                for _ in 0..<1 + input.int(100) { burst.append(try tree.create(under: parent, at: index, metadata: [7])) }
            default:
                // Drags to the top: the last child to index 1, up to 100 times.
                guard let parent = input.pick(live + [.root]), tree.childCount(of: parent) > 2 else { break }
                for _ in 0..<1 + input.int(100) {
                    burst.append(try tree.move(tree.children(of: parent).last!, to: parent, at: 1))
                }
            }
        } catch .positionKeyTooLong {
            // Only next to a peer's overlong key; nothing changed.
        } catch {
            fuzzFailure("replica \(r): a valid local operation was refused: \(error)")
        }
        replicas[r] = tree
        for operation in burst + (operation.map { [$0] } ?? []) {
            known[r][operation.timestamp] = operation
            all[operation.timestamp] = operation
        }
        if operation != nil || !burst.isEmpty { check(r, burst.isEmpty ? "a local operation" : "a burst of \(burst.count) at one spot") }
        for operation in burst where operation.position.bytes.count > 64 {
            fuzzFailure("replica \(r): a burst at one spot made a \(operation.position.bytes.count)-byte key")
        }
    }

    mutating func deliveryStep(_ r: Int) {
        let missing = all.keys.filter { known[r][$0] == nil }.sorted()
        var batch = missing.filter { _ in input.int(3) != 0 }.map { all[$0]! }
        // Duplicates of what it already has.
        for _ in 0..<input.int(3) {
            if let duplicate = input.pick(known[r].keys.sorted()) { batch.append(all[duplicate]!) }
        }
        // Some order: reversed, rotated or as is.
        switch input.int(3) {
        case 0: batch.reverse()
        case 1 where !batch.isEmpty: batch = Array(batch[(batch.count / 2)...] + batch[..<(batch.count / 2)])
        default: break
        }
        // In one batch or several.
        let pieces = 1 + input.int(3)
        let size = max(1, (batch.count + pieces - 1) / pieces)
        var start = 0
        while start < batch.count {
            let piece = batch[start..<min(start + size, batch.count)]
            replicas[r].apply(piece)
            for operation in piece { known[r][operation.timestamp] = operation }
            start += size
        }
        check(r, "a delivery")
    }

    func check(_ r: Int, _ step: String) {
        let complete = known[r].count == all.count
        let model = NaiveTree(known[r].values)
        let differences = model.differences(from: replicas[r])
        fuzzCheck(differences.isEmpty, "replica \(r) after \(step) differs from the model: \(differences)")
        let problems = invariantViolations(replicas[r], complete: complete)
        fuzzCheck(problems.isEmpty, "replica \(r) after \(step): invariants \(problems)")
    }

    mutating func run() {
        var steps = 0
        while !input.isAtEnd && steps < 150 {
            steps += 1
            let r = input.int(replicas.count)
            if input.int(3) == 0 { deliveryStep(r) } else { localStep(r) }
        }
        // Everyone receives everything, in timestamp order and in reverse.
        let everything = all.values.sorted { $0.timestamp < $1.timestamp }
        for r in replicas.indices {
            replicas[r].apply(r % 2 == 0 ? everything : everything.reversed())
            for operation in everything { known[r][operation.timestamp] = operation }
            check(r, "receiving everything")
        }
        let reference = replicas[0]
        for (r, tree) in replicas.enumerated().dropFirst() {
            for node in Set(reference.nodeIDs + tree.nodeIDs) + [.root, .deletedRoot] {
                fuzzCheck(
                    reference.parent(of: node) == tree.parent(of: node) && reference.children(of: node) == tree.children(of: node)
                        && reference.metadata(of: node) == tree.metadata(of: node),
                    "divergence: replica \(r) differs from replica 0 at \(node)")
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func treeModelFuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var run = TreeModelRun(input: FuzzInput(start, count))
    run.run()
    return 0
}
