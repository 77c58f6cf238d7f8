import Foundation
import LMDB
import Quire

/// Measures the limits of the hierarchy through the public ``Store`` API (issue 14 item 5):
/// how many inserts at one spot of a folder, drags of a folder's last child to the second
/// place and appends to one folder succeed before the first error (or a cap), how long the
/// position keys grow meanwhile, and how many bytes a node of a large tree costs on disk.
///
/// It reports what it sees with whichever position-key algorithm the store has; nothing
/// here knows how keys are made. Every store runs without syncing (``Environment/Durability/noSync``):
/// the figures are counts and sizes, and syncing would only make them slower to get.
struct TreeLimitsBenchmark: Sendable {
    /// The most inserts at index 1 of a folder holding one child.
    var oneSpotLimit = 100_000
    /// The most moves of a 3-child folder's last child to index 1.
    var dragLimit = 100_000
    /// The most appends to the end of one folder.
    var appendLimit = 1_000_000
    /// Leaf records of the size run.
    var storeNodes = 1_000_000
    /// Folders (under one root folder) over which the size run spreads its leaves.
    var storeFolders = 1_000
    /// Where the stores are created (a fresh subdirectory each, removed afterwards).
    var directory: String

    /// Steps per write transaction of the limit runs: the counts are about key growth, not
    /// commit cost.
    static let batch = 1_000
    /// Inserts per write transaction of the size run.
    static let storeBatch = 1_000
    static let durability = Environment.Durability.noSync

    /// The figures. A count below its limit comes with the error that stopped it; the
    /// error fields are `null` when the run reached its limit.
    struct Result: Encodable {
        var limits_durability: String
        var one_spot_limit: Int
        var one_spot_inserts: Int
        var one_spot_error: String?
        var max_key_bytes_one_spot: Int
        var one_spot_ms: Double
        var drags_limit: Int
        var drags_to_top: Int
        var drags_error: String?
        var max_key_bytes_drags: Int
        var drags_ms: Double
        var appends_limit: Int
        var appends_one_folder: Int
        var appends_error: String?
        var max_key_bytes_appends: Int
        var appends_ms: Double
        var store_leaves: Int
        var store_folders: Int
        /// Every record created: the root folder, the folders and the leaves.
        var store_nodes_created: Int
        var store_data_bytes: Int
        var store_tree_bytes: Int
        var store_file_bytes_per_node: Double
        var store_bytes_per_node: Double
        /// `store_bytes_per_node` by database: `tree.log`, `tree.nodes`, `tree.children`.
        var store_bytes_per_node_by_database: [String: Double]
        var store_build_ms: Double

        private enum CodingKeys: String, CodingKey {
            case limits_durability, one_spot_limit, one_spot_inserts, one_spot_error, max_key_bytes_one_spot, one_spot_ms
            case drags_limit, drags_to_top, drags_error, max_key_bytes_drags, drags_ms
            case appends_limit, appends_one_folder, appends_error, max_key_bytes_appends, appends_ms
            case store_leaves, store_folders, store_nodes_created, store_data_bytes, store_tree_bytes
            case store_file_bytes_per_node, store_bytes_per_node, store_bytes_per_node_by_database, store_build_ms
        }

        /// Like the synthesized encoding, except that an absent error is written as `null`
        /// rather than left out, so every field is always there.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(limits_durability, forKey: .limits_durability)
            try container.encode(one_spot_limit, forKey: .one_spot_limit)
            try container.encode(one_spot_inserts, forKey: .one_spot_inserts)
            try container.encode(one_spot_error, forKey: .one_spot_error)
            try container.encode(max_key_bytes_one_spot, forKey: .max_key_bytes_one_spot)
            try container.encode(one_spot_ms, forKey: .one_spot_ms)
            try container.encode(drags_limit, forKey: .drags_limit)
            try container.encode(drags_to_top, forKey: .drags_to_top)
            try container.encode(drags_error, forKey: .drags_error)
            try container.encode(max_key_bytes_drags, forKey: .max_key_bytes_drags)
            try container.encode(drags_ms, forKey: .drags_ms)
            try container.encode(appends_limit, forKey: .appends_limit)
            try container.encode(appends_one_folder, forKey: .appends_one_folder)
            try container.encode(appends_error, forKey: .appends_error)
            try container.encode(max_key_bytes_appends, forKey: .max_key_bytes_appends)
            try container.encode(appends_ms, forKey: .appends_ms)
            try container.encode(store_leaves, forKey: .store_leaves)
            try container.encode(store_folders, forKey: .store_folders)
            try container.encode(store_nodes_created, forKey: .store_nodes_created)
            try container.encode(store_data_bytes, forKey: .store_data_bytes)
            try container.encode(store_tree_bytes, forKey: .store_tree_bytes)
            try container.encode(store_file_bytes_per_node, forKey: .store_file_bytes_per_node)
            try container.encode(store_bytes_per_node, forKey: .store_bytes_per_node)
            try container.encode(store_bytes_per_node_by_database, forKey: .store_bytes_per_node_by_database)
            try container.encode(store_build_ms, forKey: .store_build_ms)
        }
    }

    /// A folder of the benchmark's stores.
    struct Folder: Record {
        static let typeName = "bench.folder"
        var name: String
    }

    /// A leaf of the benchmark's stores (a flash card's clue, a file): one small field, so
    /// the sizes are mostly the hierarchy's.
    struct Item: Record {
        static let typeName = "bench.item"
        var number: Int
    }

    /// How one limit run ended.
    private struct Run {
        var count: Int
        var error: String?
        var maximumKeyBytes: Int
        var milliseconds: Double
    }

    /// Runs the four measurements one after another.
    ///
    /// - Parameter progress: Told what the benchmark does next (for a progress line).
    func run(progress: (_ stage: String) -> Void = { _ in }) throws -> Result {
        progress("\(oneSpotLimit) inserts at one spot")
        let oneSpot = try measureOneSpotInserts()
        progress("\(dragLimit) drags to the top")
        let drags = try measureDrags()
        progress("\(appendLimit) appends to one folder")
        let appends = try measureAppends()
        progress("a store of \(storeNodes) leaves in \(storeFolders) folders")
        let size = try measureStoreSize()
        let created = 1 + storeFolders + storeNodes
        return Result(
            limits_durability: "\(Self.durability)",
            one_spot_limit: oneSpotLimit, one_spot_inserts: oneSpot.count, one_spot_error: oneSpot.error,
            max_key_bytes_one_spot: oneSpot.maximumKeyBytes, one_spot_ms: oneSpot.milliseconds,
            drags_limit: dragLimit, drags_to_top: drags.count, drags_error: drags.error,
            max_key_bytes_drags: drags.maximumKeyBytes, drags_ms: drags.milliseconds,
            appends_limit: appendLimit, appends_one_folder: appends.count, appends_error: appends.error,
            max_key_bytes_appends: appends.maximumKeyBytes, appends_ms: appends.milliseconds,
            store_leaves: storeNodes, store_folders: storeFolders, store_nodes_created: created,
            store_data_bytes: size.dataBytes, store_tree_bytes: size.treeBytes.values.reduce(0, +),
            store_file_bytes_per_node: Double(size.dataBytes) / Double(created),
            store_bytes_per_node: Double(size.treeBytes.values.reduce(0, +)) / Double(created),
            store_bytes_per_node_by_database: size.treeBytes.filter { $0.key != "tree.meta" }.mapValues { Double($0) / Double(created) },
            store_build_ms: size.milliseconds)
    }

    // MARK: Limit runs

    /// A folder holding one child; new children go in at index 1 (right after the first)
    /// again and again.
    private func measureOneSpotInserts() throws -> Run {
        try withStore("one-spot") { store in
            let folder = try store.write { tx in
                let folder = try tx.insert(Folder(name: "one spot"))
                try tx.insert(Item(number: 0), under: folder)
                return folder
            }
            return try Self.measure(store, folder: folder, limit: oneSpotLimit) { tx, step in
                try tx.insert(Item(number: step + 1), under: folder, at: 1)
            }
        }
    }

    /// A flash-card note with 3 clues; its last clue is dragged to the second place again
    /// and again, so the keys between the first two clues are split ever finer.
    private func measureDrags() throws -> Run {
        try withStore("drags") { store in
            let note = try store.write { tx in
                let note = try tx.insert(Folder(name: "note"))
                for clue in 0..<3 { try tx.insert(Item(number: clue), under: note) }
                return note
            }
            return try Self.measure(store, folder: note, limit: dragLimit) { tx, _ in
                guard let last = tx.children(of: note).last else { throw BenchmarkFailure("the note lost its clues") }
                try tx.move(last, to: note, at: 1)
            }
        }
    }

    /// Children appended at the end of one folder.
    private func measureAppends() throws -> Run {
        try withStore("appends") { store in
            let folder = try store.write { tx in try tx.insert(Folder(name: "appends")) }
            return try Self.measure(store, folder: folder, limit: appendLimit) { tx, step in
                try tx.insert(Item(number: step), under: folder)
            }
        }
    }

    /// Runs `step` up to `limit` times, ``batch`` per write transaction, until it first
    /// throws; then reads the longest position key among `folder`'s children.
    ///
    /// An error inside a transaction ends the run after the steps before it, which are
    /// committed. When a commit fails instead, none of its batch was written: the run goes
    /// on one step per transaction, so the count is still exact.
    private static func measure(
        _ store: Store, folder: RecordID, limit: Int, _ step: (borrowing StoreWriter, Int) throws -> Void
    ) throws -> Run {
        var done = 0
        var error: String?
        var size = batch
        let milliseconds = Timing.milliseconds {
            while done < limit {
                let planned = min(size, limit - done)
                var failure: (any Error)?
                do {
                    let made = try store.write { tx in
                        var made = 0
                        while made < planned {
                            do { try step(tx, done + made) } catch let thrown {
                                failure = thrown
                                break
                            }
                            made += 1
                        }
                        return made
                    }
                    done += made
                } catch let thrown {
                    if planned == 1 {
                        error = "\(thrown)"
                        return
                    }
                    size = 1
                    continue
                }
                if let failure {
                    error = "\(failure)"
                    return
                }
            }
        }
        let longest = try store.positionKeyLengths(ofChildrenOf: folder).max() ?? 0
        return Run(count: done, error: error, maximumKeyBytes: longest, milliseconds: milliseconds)
    }

    // MARK: Size run

    /// A root folder holding ``storeFolders`` folders, and ``storeNodes`` leaves appended to
    /// them round-robin, ``storeBatch`` per write transaction. The `tree.*` databases are
    /// measured before the store is closed, the data file after (closing writes a checkpoint).
    private func measureStoreSize() throws -> (dataBytes: Int, treeBytes: [String: Int], milliseconds: Double) {
        let path = try makeDirectory("size")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try Store(directory: path, options: Self.options)
        var treeBytes: [String: Int] = [:]
        var milliseconds = 0.0
        do {
            milliseconds = try Timing.milliseconds {
                let folders = try store.write { tx in
                    let root = try tx.insert(Folder(name: "root"))
                    return try (0..<storeFolders).map { try tx.insert(Folder(name: "folder \($0)"), under: root) }
                }
                var next = 0
                while next < storeNodes {
                    let range = next..<min(next + Self.storeBatch, storeNodes)
                    try store.write { tx in
                        for leaf in range { try tx.insert(Item(number: leaf), under: folders[leaf % folders.count]) }
                    }
                    next = range.upperBound
                }
            }
            for database in try store.usage().databases where database.name.hasPrefix("tree.") {
                treeBytes[database.name] = database.bytes
            }
            try store.close()
        } catch {
            try? store.close()
            throw error
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")
        let dataBytes = (attributes[.size] as? NSNumber)?.intValue ?? 0
        return (dataBytes, treeBytes, milliseconds)
    }

    // MARK: Stores

    private static var options: Store.Options {
        var options = Store.Options()
        options.durability = durability
        return options
    }

    /// Runs `body` on a fresh store in a new subdirectory, then closes and removes it.
    private func withStore<R>(_ name: String, _ body: (Store) throws -> R) throws -> R {
        let path = try makeDirectory(name)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try Store.withStore(at: path, options: Self.options, body)
    }

    private func makeDirectory(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: directory).appendingPathComponent("tree-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
