import LMDB
import QuireCore

/// The writer's hierarchy: in memory once a merge has read it whole (``loadedTree``),
/// else on LMDB — read one node or one folder at a time in the body's read transaction,
/// with the open session's local moves over it (``StoredTreeEdits``).
///
/// A local move needs only the node, its new parent's ancestors and siblings, so
/// opening, typing, field writes, creating, moving and deleting records never read the
/// whole tree; merging another replica's moves does (it may undo and redo any of them).
/// A read that fails answers as absent and keeps the error for the transaction to throw,
/// as a record read does.
extension StoreState: StoredHierarchy {
    // MARK: Reads (StoreView)

    func parent(of node: NodeID) -> NodeID? {
        if let loadedTree { return loadedTree.parent(of: node) }
        return readingHierarchy(nil) { try storedNode(node)?.parent }
    }

    func children(of node: NodeID, limit: Int?) -> [NodeID] {
        if let loadedTree { return Self.children(of: node, limit: limit, in: loadedTree) }
        return readingHierarchy([]) { try storedChildren(of: node, limit: limit) }
    }

    /// The first `limit` children of `node` in `tree` (all for `nil`).
    static func children(of node: NodeID, limit: Int?, in tree: ReplicatedTree) -> [NodeID] {
        let all = tree.children(of: node)
        guard let limit, limit < all.count else { return all }
        return Array(all.prefix(max(0, limit)))
    }

    func contains(_ node: NodeID) -> Bool {
        if let loadedTree { return loadedTree.contains(node) }
        return node.isFixed || readingHierarchy(false) { try storedNode(node) != nil }
    }

    func isDeleted(_ node: NodeID) -> Bool {
        if let loadedTree { return loadedTree.isDeleted(node) }
        return readingHierarchy(false) { try storedIsDeleted(node) }
    }

    func placeBeforeDeletion(of node: NodeID) -> (parent: NodeID, index: Int, position: PositionKey)? {
        if let loadedTree { return loadedTree.placeBeforeDeletion(of: node) }
        return readingHierarchy(nil) { try storedPlaceBeforeDeletion(of: node) }
    }

    /// The position key and last move of `node`; `nil` when it is not in the tree.
    func placement(of node: NodeID) -> (position: PositionKey, lastMove: Timestamp)? {
        if let loadedTree {
            guard let position = loadedTree.position(of: node), let lastMove = loadedTree.lastMove(of: node) else { return nil }
            return (position, lastMove)
        }
        return readingHierarchy(nil) { try storedNode(node).map { ($0.position, $0.lastMove) } }
    }

    /// Whether moving `node` under `parent` would put it inside its own subtree.
    func wouldCreateCycle(moving node: NodeID, under parent: NodeID) -> Bool {
        if let loadedTree { return loadedTree.wouldCreateCycle(moving: node, under: parent) }
        return readingHierarchy(false) { try storedIsAncestor(node, of: parent) }
    }

    /// `body`'s answer; `fallback` after noting what it threw for the transaction to throw.
    private func readingHierarchy<R>(_ fallback: R, _ body: () throws -> R) -> R {
        do { return try body() } catch {
            records.note(error)
            return fallback
        }
    }

    // MARK: The stored form (StoredHierarchy), with the session's moves over it

    func storedNode(_ node: NodeID) throws -> TreeNodeRecord? {
        if let moved = session?.treeEdits?.movedNode(node) { return moved }
        let layout = layout.tree
        return try records.withReadTransaction { tx in try layout.nodeRecord(node, in: tx) }
    }

    func storedChildren(of node: NodeID, limit: Int?) throws -> [NodeID] {
        if let edits = session?.treeEdits, edits.knowsChildren(of: node) {
            return try storedChildEntries(of: node).prefix(limit.map { max(0, $0) } ?? .max).map(\.child)
        }
        let layout = layout.tree
        return try records.withReadTransaction { tx in try layout.children(of: node, limit: limit, in: tx) }
    }

    func storedChildEntries(of node: NodeID) throws -> [StoredChild] {
        let layout = layout.tree
        let stored = { try self.records.withReadTransaction { tx in try layout.childEntries(of: node, in: tx) } }
        guard let edits = session?.treeEdits else { return try stored() }
        return try edits.children(of: node, stored: stored)
    }

    func storedLogEntry(at timestamp: Timestamp) throws -> TreeLogRecord? {
        if let entry = session?.treeEdits?.logEntry(at: timestamp) { return entry }
        let layout = layout.tree
        return try records.withReadTransaction { tx in try layout.logEntry(at: timestamp, in: tx) }
    }

    /// Decodes only the siblings the placement looks at (see
    /// ``TreeStorageLayout/placementSiblings(under:leaving:nodeKey:at:in:)``), unless the
    /// session has listed or changed the parent's children.
    func storedPlacementSiblings(under parent: NodeID, leaving node: NodeID?, at index: Int?) throws -> PlacementSiblings {
        if let edits = session?.treeEdits, edits.knowsChildren(of: parent) {
            return PlacementSiblings(among: try storedChildEntries(of: parent), leaving: node, at: index)
        }
        let ownKey = try node.flatMap { node in
            try storedNode(node).flatMap { $0.parent == parent ? TreeStorageLayout.childKey(node, $0) : nil }
        }
        let layout = layout.tree
        let window = try records.withReadTransaction { tx in
            try layout.placementSiblings(under: parent, nodeKey: ownKey, at: index, in: tx)
        }
        guard window.suffices(for: index) else {
            return PlacementSiblings(among: try storedChildEntries(of: parent), leaving: node, at: index)
        }
        return window
    }

    var nodesDatabaseName: String { layout.tree.nodes.name }

    // MARK: Changing it

    /// A local change of the hierarchy, as ``StoreWriter`` asks for it.
    enum LocalMove {
        /// A new node under `parent`, at `index` among its children (`nil`: last).
        case create(under: NodeID, at: Int?)
        /// `node` under `parent` at `index` among its new siblings (`nil`: last).
        case move(NodeID, to: NodeID, at: Int?)
        /// `node` under `parent` with the position key `position` (a restore).
        case place(NodeID, under: NodeID, position: PositionKey)

        /// The node moved; `nil` for a creation.
        var node: NodeID? {
            switch self {
            case .create: nil
            case .move(let node, _, _), .place(let node, _, _): node
            }
        }
    }

    /// Makes a local move in the open session: in the tree in memory when a merge has read
    /// it, else on LMDB through the session's ``StoredTreeEdits``. Either way the commit
    /// writes the same records, and the move is checked and placed alike.
    ///
    /// - Returns: The operation.
    /// - Throws: ``StoreError/hierarchy(_:)`` for an invalid move, or an error reading LMDB.
    func moveLocally(_ move: LocalMove) throws -> TreeOperation {
        guard let session else { preconditionFailure("a local move outside a write session") }
        if loadedTree != nil {
            try willChangeTree()
            do throws(TreeError) {
                switch move {
                case .create(let parent, let index): return try tree.create(under: parent, at: index)
                case .move(let node, let parent, let index): return try tree.move(node, to: parent, at: index)
                case .place(let node, let parent, let position): return try tree.move(node, to: parent, position: position)
                }
            } catch {
                throw StoreError.hierarchy(error)
            }
        }
        let edits: StoredTreeEdits
        if let open = session.treeEdits {
            edits = open
        } else {
            let layout = layout.tree
            let state = try records.withReadTransaction { tx in try layout.state(in: tx) }
            edits = StoredTreeEdits(state: state, childLists: childListsKept)
            childListsKept = [:]  // the session's now; kept again when it commits
            session.treeEdits = edits
        }
        let (parent, placement): (NodeID, StoredTreeEdits.Placement)
        switch move {
        case .create(let under, let index): (parent, placement) = (under, .index(index))
        case .move(_, let to, let index): (parent, placement) = (to, .index(index))
        case .place(_, let under, let position): (parent, placement) = (under, .position(position))
        }
        return try edits.move(
            move.node, to: parent, placement: placement, replica: replica, hierarchy: self,
            lastPlacement: &lastPlacement, random: &placementRandom)
    }

    /// The whole hierarchy, for a merge about to change it: read from LMDB the first time,
    /// in the body's read transaction — under the writer's lock, that is the commit the
    /// rest of the state reflects.
    ///
    /// - Complexity: O(*n* log *n*) for *n* nodes the first time; O(1) after.
    func hierarchyToChange() throws -> ReplicatedTree {
        if let loadedTree { return loadedTree }
        precondition(session?.treeEdits == nil, "the tree is read whole before a session's local moves, never after")
        childListsKept = [:]  // local moves go to the tree in memory from now on
        let (layout, replica) = (layout, replica)
        let loaded = try records.withReadTransaction { tx in
            guard let tree = try layout.tree.load(in: tx, replica: replica, seed: nil) else {
                throw StoreError.corrupt(database: layout.tree.meta.name, problem: "the hierarchy's state record is missing")
            }
            return tree
        }
        loadedTree = loaded
        return loaded
    }

    /// The hierarchy in memory, for a transaction changing it there; ``willChangeTree()``
    /// has read it.
    var tree: ReplicatedTree {
        get {
            guard let loadedTree else { preconditionFailure("the hierarchy is changed only after willChangeTree() read it") }
            return loadedTree
        }
        _modify {
            precondition(loadedTree != nil, "the hierarchy is changed only after willChangeTree() read it")
            yield &loadedTree!
        }
    }
}
