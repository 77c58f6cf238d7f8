/// The causal graph of a concurrent trace's transactions, for moving a replay between
/// versions.
///
/// A version is a set of transactions closed under parents, named by its frontier (the
/// transactions no other in the set descends from). Transaction indexes are a
/// topological order (every parent comes before its children), which
/// ``difference(from:to:)`` uses to walk back from two frontiers at once.
///
/// Internal to ``EditingTrace/replay(progress:)``; no I/O.
struct TransactionGraph {
    /// Transaction → its parents (all smaller indexes, checked by the caller).
    var parents: [[Int]]

    /// The transactions in version `from` but not in `to` (newest first: the order to
    /// retreat them) and those in `to` but not in `from` (oldest first: the order to
    /// advance them), for versions named by their frontiers.
    ///
    /// Walks back from both frontiers in decreasing index order, marking each transaction
    /// with the sides that reach it, and stops as soon as everything still to visit is
    /// reached from both: the cost is the transactions between the frontiers and their
    /// common history, not the whole history.
    func difference(from: [Int], to: [Int]) -> (retreat: [Int], advance: [Int]) {
        if from == to { return ([], []) }
        let fromSide: UInt8 = 1
        let toSide: UInt8 = 2
        let both: UInt8 = 3
        var sides: [Int: UInt8] = [:]
        var heap = MaxHeap()
        // Transactions waiting in the heap that only one side reaches.
        var oneSided = 0
        func reach(_ transaction: Int, _ side: UInt8) {
            if let old = sides[transaction] {
                let new = old | side
                if new != old {
                    sides[transaction] = new
                    if new == both { oneSided -= 1 }
                }
            } else {
                sides[transaction] = side
                heap.push(transaction)
                if side != both { oneSided += 1 }
            }
        }
        for transaction in from { reach(transaction, fromSide) }
        for transaction in to { reach(transaction, toSide) }
        var retreat: [Int] = []
        var advance: [Int] = []
        while oneSided > 0, let transaction = heap.pop() {
            let side = sides.removeValue(forKey: transaction) ?? both
            if side == fromSide { retreat.append(transaction) }
            if side == toSide { advance.append(transaction) }
            if side != both { oneSided -= 1 }
            for parent in parents[transaction] { reach(parent, side) }
        }
        advance.reverse()
        return (retreat, advance)
    }
}

/// A binary max-heap of integers.
private struct MaxHeap {
    private var elements: [Int] = []

    mutating func push(_ value: Int) {
        elements.append(value)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[parent] < elements[child] else { break }
            elements.swapAt(parent, child)
            child = parent
        }
    }

    mutating func pop() -> Int? {
        guard let top = elements.first else { return nil }
        let last = elements.removeLast()
        if !elements.isEmpty {
            elements[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var largest = parent
                if left < elements.count, elements[left] > elements[largest] { largest = left }
                if right < elements.count, elements[right] > elements[largest] { largest = right }
                if largest == parent { break }
                elements.swapAt(parent, largest)
                parent = largest
            }
        }
        return top
    }
}
