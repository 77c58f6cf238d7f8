// libFuzzer target: Store.importDelta on untrusted bytes.
//
// The store under test has content of its own and of another replica. Each input is one
// mode byte and a file: bit 0 of the mode puts this store's lineage into a file that
// carries a store ID, bit 1 recomputes the checksum — so mutations of real files get past
// the first checks and reach the parser and the merge. An import may succeed or throw,
// but must never crash, hang or allocate beyond the limits CI runs with
// (-malloc_limit_mb, -rss_limit_mb, -timeout); when it throws, the store must read
// exactly as before (StoreDigest, pending changes, the change log). After a successful
// import the store is put back from a copy.
//
// The seeds are real files, written by this target itself:
//   QUIRE_FUZZ_WRITE_SEEDS=Fuzz/delta-import/seeds Fuzz/build/delta-import -runs=0
// They apply to the store under test because both are built by `writeBase`, which is
// deterministic except for the store ID (patched by mode bit 0), position keys and change
// times (the seeds' from a set clock; an import compares copies of a change without them).

import Foundation
import QuireCore
import Synchronization

private let scratch = (FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory())
    + "quire-fuzz-delta-import-\(getpid())"

private func options(_ replica: UInt64) -> Store.Options {
    var options = Store.Options()
    options.replica = ReplicaID(replica)
    options.durability = .noSync
    options.initialMapSize = 1 << 20
    return options
}

/// The shared history: replica 1 creates a few records with texts and a hierarchy.
private func writeBase(_ store: Store) throws -> [RecordID] {
    try store.write { tx in
        let a = try tx.insert(ScheduleItem(title: "alpha", count: 1, tag: nil))
        let b = try tx.insert(ScheduleItem(title: "beta", count: 2, tag: "t"), under: a)
        let c = try tx.insert(ScheduleItem(title: "gamma", count: 3, tag: nil))
        try tx.insert("Hello wörld 😀", at: 0, in: a.text("body"))
        try tx.insert("e\u{301}", at: 0, in: b.text("body"))
        return [a, b, c]
    }
}

/// The store under test: replica 9, joined to replica 1's lineage, with edits of its own.
private func makeTarget(at directory: String) throws -> Store {
    let source = try Store(directory: directory + "-source", options: options(1))
    defer {
        try? source.close()
        try? FileManager.default.removeItem(atPath: directory + "-source")
    }
    let items = try writeBase(source)
    let target = try Store(directory: directory, options: options(9))
    try target.importDelta(source.exportDelta()!)
    try target.write { tx in
        try tx.insert("!", at: 5, in: items[0].text("body"))
        try tx.update(items[2], as: ScheduleItem.self) { $0.tag = "mine" }
        try tx.delete(items[1])
        _ = try tx.insert(ScheduleItem(title: "delta", count: 4, tag: nil), under: items[2])
    }
    return target
}

/// What must not change when an import throws.
private struct Snapshot: Equatable {
    var digest: StoreDigest
    var pending: Int
    /// The change log, as hashes: kept for the whole run, and plain integers keep the leak
    /// checker from mistaking spare-bit-packed enum payloads for leaks.
    var changes: [Int]

    init(_ store: Store) throws {
        digest = try StoreDigest.of(store)
        pending = try store.statistics().pendingCount  // from LMDB: the writer's state may not be read yet
        changes = try store.changes().map(\.hashValue)
    }
}

private final class Harness {
    let template = scratch + "/template"
    let live = scratch + "/live"
    var store: Store
    var snapshot: Snapshot

    init() throws {
        try? FileManager.default.removeItem(atPath: scratch)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        try makeTarget(at: template).close()
        try FileManager.default.copyItem(atPath: template, toPath: live)
        store = try Store(directory: live, options: options(9))
        snapshot = try Snapshot(store)
        atexit { try? FileManager.default.removeItem(atPath: scratch) }
    }

    /// Puts the store back as it was before an import changed it.
    func reset() throws {
        try store.close()
        try FileManager.default.removeItem(atPath: live)
        try FileManager.default.copyItem(atPath: template, toPath: live)
        store = try Store(directory: live, options: options(9))
    }

    func test(_ input: [UInt8]) throws {
        guard let mode = input.first else { return }
        var file = Array(input.dropFirst())
        // Bit 0: this store's lineage into a header that carries a store ID.
        if mode & 1 != 0, file.count >= 3 + StoreID.byteCount, file[0] == 0x51, file[1] == 0x44, file[2] & 2 != 0 {
            file.replaceSubrange(3..<(3 + StoreID.byteCount), with: store.storeID.bytes)
        }
        // Bit 1: a checksum that matches.
        if mode & 2 != 0, file.count >= 4 {
            let checksum = CRC32C.checksum(file[..<(file.count - 4)])
            file.replaceSubrange((file.count - 4)..., with: withUnsafeBytes(of: checksum.littleEndian, Array.init))
        }
        do {
            try store.importDelta(file)
            if ProcessInfo.processInfo.environment["QUIRE_FUZZ_TRACE"] != nil { fputs("accepted\n", stderr) }
        } catch {
            if ProcessInfo.processInfo.environment["QUIRE_FUZZ_TRACE"] != nil { fputs("refused: \(error)\n", stderr) }
            let after = try Snapshot(store)
            fuzzCheck(after == snapshot, "an import that threw (\(error)) changed the store:\n"
                + StoreDigest.divergences([snapshot.digest, after.digest]).joined(separator: "\n")
                + "\npending \(snapshot.pending) → \(after.pending), changes \(snapshot.changes.count) → \(after.changes.count)")
            return
        }
        // Accepted: every field value is JSON (a record decodes, or its reader gets a
        // clear type mismatch), and the hierarchy is sound.
        let layout = store.layout
        var values: [[UInt8]] = []
        var undecodable = 0
        try store.environment.read { tx in
            try tx.scan(layout.records) { _, value in
                if let record = try? RecordState.decode(Array(value)) {
                    values += record.fields.values.map(\.value)
                } else {
                    undecodable += 1
                }
                return .continue
            }
        }
        fuzzCheck(undecodable == 0, "an accepted import stored \(undecodable) records that do not decode")
        for value in values {
            fuzzCheck((try? JSONSerialization.jsonObject(with: Data(value), options: [.fragmentsAllowed])) != nil,
                      "an accepted import stored a field value that is not JSON: \(value)")
        }
        do {
            let digest = try StoreDigest.of(store)
            fuzzCheck(digest.problems.isEmpty, "after an import: \(digest.problems)")
        } catch StoreError.decodingFailed, StoreError.wrongType {
            // JSON of another shape than ScheduleItem's, or a record of another type: what
            // another app version may write, reported to the reader.
        }
        try reset()
    }
}

private nonisolated(unsafe) var harness: Harness?

/// Writes the seeds: real delta files of replica 1 and 2 continuing the base history,
/// each behind mode byte 3 (patch the lineage, fix the checksum).
private func writeSeeds(to folder: String) throws {
    let directory = scratch + "/seeds"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // A clock that moves 0, 1, 3, 0, 7 … seconds a change, so the seeds' time steps are
    // not all 0 and their runs carry run-length coded steps.
    let ticks = Mutex(0)
    func stepping(_ options: Store.Options) -> Store.Options {
        var options = options
        options.clock = {
            let tick = ticks.withLock { tick in
                tick += 1
                return tick
            }
            let steps = [0, 1, 3, 0, 7, 2]
            return Date(timeIntervalSince1970: 1_780_000_000 + Double((0..<tick).reduce(0) { $0 + steps[$1 % steps.count] }))
        }
        return options
    }
    let one = try Store(directory: directory + "/1", options: stepping(options(1)))
    let two = try Store(directory: directory + "/2", options: stepping(options(2)))
    defer { try? one.close(); try? two.close() }
    let items = try writeBase(one)
    let base = one.version
    try two.importDelta(one.exportDelta()!)
    var seeds: [String: [UInt8]] = [:]
    // A keystroke, compact (no store ID).
    try one.write { tx in try tx.insert("x", at: 3, in: items[0].text("body")) }
    seeds["keystroke"] = try one.exportDelta(since: base)
    // Keystrokes typed one after another: a run, with time steps.
    for offset in 4..<9 { try one.write { tx in try tx.insert("y", at: offset, in: items[0].text("body")) } }
    seeds["keystrokes"] = try one.exportDelta(since: base)
    // Fields, a move, a delete and a restore.
    try one.write { tx in
        try tx.update(items[2], as: ScheduleItem.self) { $0.title = "Γ"; $0.count = 30 }
        try tx.move(items[2], to: items[0], at: 0)
    }
    try one.write { tx in try tx.delete(items[0]) }
    try one.write { tx in try tx.restore(items[0], to: nil) }
    seeds["hierarchy"] = try one.exportDelta(since: base)
    // Replica 2's edits: a new record with a text, a delete of text.
    try two.write { tx in
        let new = try tx.insert(ScheduleItem(title: "from two", count: 0, tag: "2"), under: items[1])
        try tx.insert("👩‍👩‍👧 and é", at: 0, unit: .utf16, in: new.text("body"))
        try tx.delete(0..<2, in: items[0].text("body"))
    }
    seeds["other-replica"] = try two.exportDelta(since: base)
    // Only the last change: it waits for the ones before (pending).
    let last = try one.changes().last!.id
    seeds["pending"] = try one.exportDelta(change: last)
    // Enough text to be deflated.
    try one.write { tx in
        try tx.insert(String(repeating: "All work and no play. ", count: 40), at: 0, in: items[1].text("body"))
    }
    seeds["deflated"] = try one.exportDelta(since: base)
    // Both replicas' histories together, from replica 2 after a merge.
    try two.importDelta(one.exportDelta(since: two.version)!)
    seeds["merged"] = try two.exportDelta()
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for (name, file) in seeds {
        try Data([3] + file).write(to: URL(fileURLWithPath: folder + "/" + name))
    }
}

/// Builds the store under test (and writes the seeds when asked) before the first input:
/// what the harness keeps for the whole run is then not counted against an input by the
/// leak checker.
@_cdecl("LLVMFuzzerInitialize")
public func deltaImportFuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    do {
        if let folder = ProcessInfo.processInfo.environment["QUIRE_FUZZ_WRITE_SEEDS"] {
            try writeSeeds(to: folder)
            print("seeds written to \(folder)")
        }
        harness = try Harness()
    } catch {
        fuzzFailure("the harness failed: \(error)")
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func deltaImportFuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    do {
        try harness!.test(Array(UnsafeBufferPointer(start: start, count: count)))
    } catch {
        fuzzFailure("the harness failed: \(error)")
    }
    return 0
}
