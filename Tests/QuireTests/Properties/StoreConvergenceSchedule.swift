// A multi-replica schedule over real stores, read from a string of bytes, and the
// convergence checker it ends with.
//
// Shared by the seeded property run in `swift test` (random bytes from a seed) and the
// `convergence` fuzz target (the fuzzer's bytes; Fuzz/build.sh compiles this file into
// the target's module, which is why `Quire` is imported only where it is a module).

import Foundation
import LMDB
import QuireCore
#if canImport(Quire)
import Quire
#endif

/// The record type the schedules write: three fields, a text `"body"`.
struct ScheduleItem: Record, Equatable {
    static let typeName = "schedule.item"
    var title: String
    var count: Int
    var tag: String?
}

/// Why a schedule failed: replicas that diverged, a broken invariant, or an error no
/// valid schedule should meet.
struct ConvergenceFailure: Error, CustomStringConvertible {
    var description: String
}

/// A string of bytes read as small decisions; past the end every read gives 0, so every
/// string is a complete schedule.
struct ScheduleBytes {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A number in `0..<bound`.
    mutating func int(_ bound: Int) -> Int { bound > 1 ? Int(byte()) % bound : 0 }

    mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[int(items.count)] }

    mutating func bool() -> Bool { byte() & 1 == 1 }
}

/// Everything a reader can observe of a store — version, every record reachable from the
/// top level or the trash with its parent, sibling order, fields and text — plus the
/// hierarchy's invariants (no node twice, so no cycle; every record reachable).
struct StoreDigest: Equatable, CustomStringConvertible {
    var version: VersionVector
    /// One line per record, depth first from the top level, then from the trash.
    var records: [String]
    /// Broken invariants; empty for a sound store.
    var problems: [String]

    var description: String { (["version \(version)"] + records + problems.map { "PROBLEM \($0)" }).joined(separator: "\n") }

    /// Reads the digest of `store`.
    static func of(_ store: Store) throws -> StoreDigest {
        try store.read { tx in
            var records: [String] = []
            var problems: [String] = []
            var seen = Set<RecordID>()
            // Depth first from the top level, then from the trash. (No nested function
            // here: capturing the noncopyable transaction crashes Swift 6.3.1's
            // move-only checker.)
            let top = tx.children(of: nil), trash = tx.trash
            var stack = trash.reversed().map { (id: $0, depth: 0, place: "trash") }
                + top.reversed().map { (id: $0, depth: 0, place: "top") }
            while let (id, depth, place) = stack.popLast() {
                guard seen.insert(id).inserted else {
                    problems.append("\(id) reached twice (a cycle or a node listed twice)")
                    continue
                }
                let children = tx.children(of: id)
                stack.append(contentsOf: children.reversed().map { (id: $0, depth: depth + 1, place: place) })
                let parent = tx.parent(of: id).map(String.init(describing:)) ?? place
                var line = String(repeating: "  ", count: depth) + "\(id) parent=\(parent) deleted=\(tx.isDeleted(id))"
                if let item = try tx.get(ScheduleItem.self, id) {
                    line += " title=\(item.title.debugDescription) count=\(item.count) tag=\(item.tag?.debugDescription ?? "nil")"
                } else {
                    problems.append("\(id) in the hierarchy has no record")
                }
                let body = try tx.string(of: id.text("body"))
                let units = [try tx.length(of: id.text("body"), unit: .utf16), try tx.length(of: id.text("body"), unit: .utf8)]
                if units != [body.utf16.count, body.utf8.count] {
                    problems.append("\(id): text lengths \(units) for \(body.debugDescription)")
                }
                line += " body=\(body.debugDescription)"
                records.append(line)
            }
            for item in try tx.all(ScheduleItem.self, includingDeleted: true) where !seen.contains(item.id) {
                problems.append("\(item.id) is in the hierarchy but not reachable from the top level or the trash")
            }
            return StoreDigest(version: tx.version, records: records, problems: problems)
        }
    }

    /// Every way the digests differ from the first, and every broken invariant; empty
    /// when the replicas have converged.
    static func divergences(_ digests: [StoreDigest]) -> [String] {
        var result: [String] = []
        for (index, digest) in digests.enumerated() {
            result += digest.problems.map { "replica \(index): \($0)" }
        }
        guard let first = digests.first else { return result }
        for (index, digest) in digests.enumerated().dropFirst() where digest != first {
            if digest.version != first.version { result.append("replica \(index): version \(digest.version), replica 0 \(first.version)") }
            let count = max(digest.records.count, first.records.count)
            for line in 0..<count {
                let mine = line < digest.records.count ? digest.records[line] : "(none)"
                let theirs = line < first.records.count ? first.records[line] : "(none)"
                if mine != theirs {
                    result.append("replica \(index) line \(line): \(mine)\n    replica 0 line \(line): \(theirs)")
                    break
                }
            }
        }
        return result
    }
}

/// 2–5 replicas (real stores, durability `.noSync`) making random edits — records and
/// their fields, texts at scalar and UTF-16 positions (ASCII, emoji, combining marks),
/// undo, hierarchy creates, moves, reorders, deletes and restores — and exchanging delta
/// files that are dropped, duplicated, reordered, delayed or cut to one change; now and
/// then a store is closed and reopened. At the end every replica exchanges with every
/// other until nothing changes, and all must be identical (``StoreDigest``); a store
/// reopened from disk must read the same.
final class StoreConvergenceSchedule {
    static let snippets: [String] = ["a", "xyz", "Hi ", "\n", "é", "中", "😀", "👩‍👩‍👧", "e\u{301}", "\u{301}", "🇫🇷"]

    private var input: ScheduleBytes
    private let directory: String
    private var stores: [Store] = []
    /// Delta files on their way: to whom, the bytes.
    private var inFlight: [(to: Int, delta: [UInt8])] = []
    /// `sent[a][b]`: the version `a` last exported to `b` from (a stale view of `b`).
    private var sent: [[VersionVector]] = []
    /// Operation count budget, so every input stays fast.
    private let maximumSteps: Int
    /// Receives the final digests, for reading a failing schedule.
    var trace: ((String) -> Void)?

    /// - Parameters:
    ///   - bytes: The schedule.
    ///   - directory: An empty directory for the stores; the caller removes it.
    init(bytes: [UInt8], directory: String, maximumSteps: Int = 60) {
        input = ScheduleBytes(bytes)
        self.directory = directory
        self.maximumSteps = maximumSteps
    }

    private func options(_ index: Int) -> Store.Options {
        var options = Store.Options()
        options.replica = ReplicaID(UInt64(index + 1))
        options.durability = .noSync
        options.initialMapSize = 1 << 20
        return options
    }

    private func path(_ index: Int) -> String { directory + "/replica-\(index)" }

    /// Runs the schedule and checks convergence; closes the stores.
    ///
    /// - Throws: ``ConvergenceFailure`` on divergence, a broken invariant or an
    ///   unexpected error.
    func run() throws {
        defer { for store in stores { try? store.close() } }
        let count = 2 + input.int(4)
        for index in 0..<count { stores.append(try Store(directory: path(index), options: options(index))) }
        sent = Array(repeating: Array(repeating: VersionVector(), count: count), count: count)
        // One lineage: replica 0 starts it, the others join with its first file.
        try stores[0].write { tx in _ = try tx.insert(ScheduleItem(title: "start", count: 0, tag: nil)) }
        let first = try stores[0].exportDelta()!
        for index in 1..<count { try expectImport(first, into: index) }

        var steps = 0
        while !input.isAtEnd && steps < maximumSteps {
            steps += 1
            let r = input.int(count)
            switch input.int(16) {
            case 0...7: try localWrite(r)
            case 8, 9: try send(from: r, to: (r + 1 + input.int(count - 1)) % count)
            case 10, 11, 12: try deliver()
            case 13: if !inFlight.isEmpty { inFlight.remove(at: input.int(inFlight.count)) }  // dropped
            case 14: try sendOneChange(from: r, to: (r + 1 + input.int(count - 1)) % count)
            default: try reopen(r)
            }
        }
        try exchangeUntilQuiet()
        let digests = try stores.map(StoreDigest.of)
        if let trace { for (index, digest) in digests.enumerated() { trace("replica \(index):\n\(digest)") } }
        let problems = StoreDigest.divergences(digests)
        guard problems.isEmpty else {
            throw ConvergenceFailure(description: "divergence after exchanging until quiet:\n" + problems.joined(separator: "\n"))
        }
        let reopened = input.int(count)
        try reopen(reopened)
        let again = try StoreDigest.of(stores[reopened])
        guard again == digests[reopened] else {
            throw ConvergenceFailure(description: "replica \(reopened) reads differently after reopening:\n"
                + StoreDigest.divergences([digests[reopened], again]).joined(separator: "\n"))
        }
    }

    // MARK: Steps

    private func reopen(_ r: Int) throws {
        try stores[r].close()
        stores[r] = try Store(directory: path(r), options: options(r))
    }

    private func send(from a: Int, to b: Int) throws {
        // Since what `b` has, since what `a` last sent it (maybe stale, so duplicates), or
        // everything.
        let since: VersionVector
        switch input.int(3) {
        case 0: since = stores[b].version
        case 1: since = sent[a][b]
        default: since = VersionVector()
        }
        sent[a][b] = stores[a].version
        guard let delta = try stores[a].exportDelta(since: since) else { return }
        inFlight.append((b, delta))
    }

    private func sendOneChange(from a: Int, to b: Int) throws {
        guard let change = input.pick(try stores[a].changes()) else { return }
        inFlight.append((b, try stores[a].exportDelta(change: change.id)))
    }

    private func deliver() throws {
        guard !inFlight.isEmpty else { return }
        // Any message, not the oldest: reordered and delayed. Sometimes kept: duplicated.
        let index = input.int(inFlight.count)
        let (to, delta) = inFlight[index]
        if input.int(4) != 0 { inFlight.remove(at: index) }
        do {
            try stores[to].importDelta(delta)
        } catch DeltaFileError.unknownSender {
            // A compact file (one change of its sender, not its first) reached a replica
            // that has heard nothing from that sender yet: refused, as documented.
        } catch {
            throw ConvergenceFailure(description: "replica \(to) refused a delta file: \(error)")
        }
    }

    private func expectImport(_ delta: [UInt8], into index: Int) throws {
        do {
            try stores[index].importDelta(delta)
        } catch {
            throw ConvergenceFailure(description: "replica \(index) refused a delta file: \(error)")
        }
    }

    private func exchangeUntilQuiet() throws {
        for _ in 0..<(stores.count * 2 + 2) {
            var changed = false
            for b in stores.indices {
                for a in stores.indices where a != b {
                    let before = stores[b].version
                    guard let delta = try stores[a].exportDelta(since: before) else { continue }
                    try expectImport(delta, into: b)
                    if stores[b].version != before { changed = true }
                }
            }
            if !changed {
                let versions = Set(stores.map { $0.version.description })
                guard versions.count == 1 else {
                    throw ConvergenceFailure(description: "quiet but versions differ: \(versions.sorted())")
                }
                return
            }
        }
        throw ConvergenceFailure(description: "the exchange never became quiet")
    }

    private struct Rollback: Error {}

    /// One write transaction of 1–3 edits; now and then one that throws after its edits,
    /// which must leave the store as it was.
    private func localWrite(_ r: Int) throws {
        let store = stores[r]
        let fails = input.int(12) == 0
        let before = fails ? try StoreDigest.of(store) : nil
        var decisions = input
        do {
            try store.write { tx in
                for _ in 0...decisions.int(3) { try Self.edit(tx, &decisions) }
                if fails { throw Rollback() }
            }
        } catch is Rollback {
            let after = try StoreDigest.of(store)
            guard after == before else {
                throw ConvergenceFailure(description: "replica \(r): a write that threw changed the store:\n"
                    + StoreDigest.divergences([before!, after]).joined(separator: "\n"))
            }
        } catch {
            throw ConvergenceFailure(description: "replica \(r): a valid edit was refused: \(error)")
        }
        input = decisions
    }

    /// One valid edit, chosen from the transaction's own view.
    private static func edit(_ tx: borrowing StoreWriter, _ input: inout ScheduleBytes) throws {
        let all = try tx.all(ScheduleItem.self, includingDeleted: true).map(\.id)
        let live = all.filter { !tx.isDeleted($0) }
        guard let item = input.pick(all) else { return }
        switch input.int(12) {
        case 0, 1:
            let parent = input.bool() ? input.pick(live + [item]) : nil
            let index = input.int(tx.children(of: parent).count + 1)
            _ = try tx.insert(ScheduleItem(title: "n\(input.byte())", count: 0, tag: nil), under: parent, at: index)
        case 2:
            try tx.update(item, as: ScheduleItem.self) { value in
                switch input.int(3) {
                case 0: value.title = input.pick(snippets)! + "\(input.byte())"
                case 1: value.count = Int(input.byte())
                default: value.tag = input.bool() ? nil : "t\(input.byte() % 4)"
                }
            }
        case 3, 4, 5:
            let body = try tx.string(of: item.text("body"))
            let boundary = input.int(body.unicodeScalars.count + 1)
            let string = (0...input.int(2)).map { _ in input.pick(snippets)! }.joined()
            if input.bool() {
                let utf16 = body.unicodeScalars.prefix(boundary).reduce(0) { $0 + UTF16.width($1) }
                try tx.insert(string, at: utf16, unit: .utf16, in: item.text("body"))
            } else {
                try tx.insert(string, at: boundary, in: item.text("body"))
            }
        case 6, 7:
            let length = try tx.length(of: item.text("body"))
            guard length > 0 else { return }
            let start = input.int(length)
            try tx.delete(start..<(start + 1 + input.int(min(length - start, 4))), in: item.text("body"))
        case 8:
            // A move (or a restore, for an item in the trash) under any parent not inside it.
            let parent = input.bool() ? input.pick(live) : nil
            if let parent, tx.path(of: parent).contains(item) { return }
            let siblings = tx.children(of: parent).filter { $0 != item }.count
            if tx.isDeleted(item), tx.trash.contains(item) {
                try tx.restore(item, to: parent, at: input.int(siblings + 1))
            } else {
                try tx.move(item, to: parent, at: input.int(siblings + 1))
            }
        case 9:
            let siblings: [RecordID]
            if let parent = tx.parent(of: item) {
                siblings = tx.children(of: parent)
            } else {
                siblings = tx.trash.contains(item) ? tx.trash : tx.children(of: nil)
            }
            try tx.reorder(item, to: input.int(siblings.count))
        case 10:
            guard !tx.isDeleted(item) else { return }
            try tx.delete(item)
        default:
            if input.bool() { _ = try tx.undo(in: item.text("body")) } else { _ = try tx.redo(in: item.text("body")) }
        }
    }
}
