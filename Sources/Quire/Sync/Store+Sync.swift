import Foundation
#if canImport(Glibc)
import Glibc
#endif
import QuireCore
import Synchronization

extension Store {
    /// Exchanges changes with the other replicas through a folder any file-sync engine
    /// carries (iCloud Drive, Dropbox, Syncthing, an rclone mount …).
    ///
    /// ```swift
    /// let report = try store.sync(folder: "/Users/me/Dropbox/Notes.sync")
    /// if !report.merged.changedRecords.isEmpty { reloadViews() }
    /// ```
    ///
    /// One sync, in this order (the layout is in `docs/format.md`, "The sync folder"):
    /// 1. writes this replica's changes not yet in the folder as one delta file
    ///    `FOLDER/<replica>/<first>-<last>.qdelta` (temporary file, then rename);
    /// 2. imports the other replicas' delta files it lacks, by replica and first counter,
    ///    each in its own transaction. A damaged, truncated, foreign or not yet usable
    ///    file is skipped with its reason in the report and leaves the store unchanged;
    ///    a later sync tries it again. Changes waiting for others stay pending;
    /// 3. writes its acknowledgement `FOLDER/<replica>/ack`: what it has;
    /// 4. compacts its own delta files every replica of this store known in the folder
    ///    (with an `ack` or delta files there) has acknowledged into one base file
    ///    `0-<last>.qdelta`, written before they are deleted — once at least one other
    ///    replica is known. A replica's files so always hold its history from counter 0,
    ///    and a replica joining later needs nothing but the folder.
    ///
    /// Conflict copies a file-sync engine made of this replica's own files are deleted;
    /// two files of one replica with different changes for the same counters (two devices
    /// writing as one replica) are refused.
    ///
    /// What was written is derived from the folder (this replica's files and its `ack`);
    /// what was imported from the store's version. Nothing else is kept, so a wiped
    /// folder is simply filled again. Syncing is idempotent and may run at any time.
    ///
    /// Thread-safety: syncs of one store run one at a time; reads and writes of the store
    /// go on meanwhile. Each import is atomic; a sync that fails part way has kept what it
    /// imported, and the next one continues.
    ///
    /// - Parameter folder: The sync folder, created when missing. Never the store's
    ///   directory or a folder inside or around it.
    /// - Returns: What was written, imported, skipped, ignored and deleted.
    /// - Throws: ``SyncError`` when this replica's side of the folder cannot be written
    ///   or listed; ``SyncError/notJoined(folder:problems:)`` when this store is empty and
    ///   could import nothing from a folder other replicas use (it wrote nothing);
    ///   ``SyncError/divergentHistories(replica:files:isThisReplica:)`` when two files of one
    ///   replica hold different changes for the same counters; ``StoreError`` when the
    ///   store fails (closed, damaged).
    @discardableResult
    public func sync(folder: String) throws -> SyncReport {
        try SyncGates.gate(for: directory).lock.withLock { _ in
            var run = try SyncRun(store: self, folder: folder)
            return try run.perform()
        }
    }
}

/// Serialises the syncs of each store directory in this process (one process opens a
/// store once, so this covers every writer of its subfolder).
enum SyncGates {
    final class Gate: Sendable {
        let lock = Mutex(())
    }

    private static let gates = Mutex<[String: Gate]>([:])

    static func gate(for directory: String) -> Gate {
        gates.withLock { gates in
            if let gate = gates[directory] { return gate }
            let gate = Gate()
            gates[directory] = gate
            return gate
        }
    }
}

/// One sync of one store with one folder.
struct SyncRun {
    let store: Store
    let folder: String
    let own: ReplicaID
    private let files = FileManager.default
    private var report = SyncReport()
    /// The acknowledgements read so far (`nil`: unreadable, reported once).
    private var acknowledgements: [ReplicaID: SyncAcknowledgement?] = [:]

    init(store: Store, folder: String) throws {
        self.store = store
        self.folder = URL(fileURLWithPath: folder).standardizedFileURL.path
        self.own = store.replica
        let resolvedFolder = URL(fileURLWithPath: self.folder).resolvingSymlinksInPath().path
        let resolvedStore = URL(fileURLWithPath: store.directory).standardizedFileURL.resolvingSymlinksInPath().path
        if resolvedFolder == resolvedStore || resolvedFolder.hasPrefix(resolvedStore + "/")
            || resolvedStore.hasPrefix(resolvedFolder + "/") {
            throw SyncError.overlapsStore(folder: self.folder, store: store.directory)
        }
    }

    /// What a replica's subfolder holds.
    private struct Subfolder {
        var deltas: [SyncFolderLayout.DeltaName] = []
        var hasAcknowledgement = false
        /// Conflict copies of delta files: name and the range of the original.
        var deltaCopies: [(name: String, original: SyncFolderLayout.DeltaName)] = []
        /// Conflict copies of the `ack`.
        var acknowledgementCopies: [String] = []

        var isKnown: Bool { hasAcknowledgement || !deltas.isEmpty }
    }

    mutating func perform() throws -> SyncReport {
        let ownFolder = path(own)
        do {
            try files.createDirectory(atPath: ownFolder, withIntermediateDirectories: true)
        } catch {
            throw SyncError.folderUnavailable(path: ownFolder, problem: SyncError.problem(error))
        }
        var others: [ReplicaID: Subfolder] = [:]
        for name in try list(folder) {
            let path = folder + "/" + name
            guard let replica = SyncFolderLayout.replica(folderName: name), isDirectory(path) else {
                report.ignored.append(.init(path: name, reason: name.hasPrefix(".") ? .temporaryFile : .unrecognizedName))
                continue
            }
            guard replica != own else { continue }
            do {
                others[replica] = try subfolder(replica)
            } catch {
                report.skipped.append(.init(path: name, reason: .unreadable(SyncError.problem(error))))
            }
        }

        var mine = try subfolder(own)
        // Another device writing as this replica: stop before adding to either history.
        try checkHistories(of: own, mine)
        try removeConflictCopies(&mine)
        var written = try writtenEnd(of: mine)
        let before = written
        written = try writeNewChanges(after: written)
        if written > before { mine.deltas.append(.init(first: before, last: written - 1)) }
        var divergent: SyncError?
        for replica in others.keys.sorted() {
            do {
                try checkHistories(of: replica, others[replica]!)
                try importFiles(of: replica, others[replica]!)
            } catch let error as SyncError {
                guard case .divergentHistories = error else { throw error }
                divergent = divergent ?? error
            }
        }
        // An empty store that imported nothing, while other replicas have changes here
        // (delta files, or an acknowledgement of some): it has not joined their store.
        let isPristine = try store.withCurrentState { $0.isPristine }
        if isPristine {
            for replica in others.keys.sorted() {
                let other = others[replica]!
                let hasChanges = !other.deltas.isEmpty
                    || other.hasAcknowledgement && acknowledgement(of: replica)?.version.counters.values.contains { $0 > 0 } == true
                if hasChanges { throw SyncError.notJoined(folder: folder, problems: report.skipped.map(\.description)) }
            }
        }
        try acknowledge(written: written)
        if !isPristine { try prune(mine.deltas, written: written, others: others) }
        if let divergent { throw divergent }
        return report
    }

    // MARK: Steps

    /// How far this replica's delta files in the folder go without a gap, from its
    /// acknowledgement's own line (files below it may be pruned) and its files.
    private mutating func writtenEnd(of mine: Subfolder) throws -> UInt64 {
        var end = mine.hasAcknowledgement ? acknowledgement(of: own)?.version[own] ?? 0 : 0
        for delta in mine.deltas.sorted() where delta.first <= end { end = max(end, delta.end) }
        return end
    }

    /// Writes the changes of this replica from counter `written` on as one delta file;
    /// returns where its files end now.
    private mutating func writeNewChanges(after written: UInt64) throws -> UInt64 {
        let own = own
        let export = try store.withCurrentState { state -> (bytes: [UInt8], name: SyncFolderLayout.DeltaName)? in
            let has = state.meta.version[own]
            guard has >= written else { throw SyncError.folderAhead(replica: own, inFolder: written, inStore: has) }
            guard has > written else { return nil }
            var since = state.meta.version
            since[own] = written
            let units = try state.storedUnits(since: since).filter { $0.id.replica == own }
            guard let first = units.map(\.id.counter).min(), let end = units.map(\.endCounter).max() else { return nil }
            return (state.deltaFile(of: units).encoded(), SyncFolderLayout.DeltaName(first: first, last: end - 1))
        }
        guard let export else { return written }
        let relative = SyncFolderLayout.folderName(own) + "/" + export.name.fileName
        try writeAtomically(export.bytes, to: relative)
        report.written.append(relative)
        return export.name.end
    }

    /// Imports the files of `replica` this store lacks, oldest first, and the conflict
    /// copies of its delta files that no delta file overlaps (their original is gone).
    ///
    /// - Throws: ``SyncError/divergentHistories(replica:files:isThisReplica:)`` when such a
    ///   copy contradicts this store.
    private mutating func importFiles(of replica: ReplicaID, _ subfolder: Subfolder) throws {
        let orphans = subfolder.deltaCopies.filter { copy in !subfolder.deltas.contains { $0.overlaps(copy.original) } }
        let candidates = subfolder.deltas.map { (name: $0.fileName, range: $0, isCopy: false) }
            + orphans.map { (name: $0.name, range: $0.original, isCopy: true) }
        for delta in candidates.sorted(by: { $0.range < $1.range }) {
            let relative = SyncFolderLayout.folderName(replica) + "/" + delta.name
            guard store.version[replica] < delta.range.end else {
                if delta.isCopy { try checkCopy(relative, of: replica, range: delta.range) }
                continue
            }
            let bytes: [UInt8]
            do {
                bytes = try read(relative)
            } catch {
                report.skipped.append(.init(path: relative, reason: .unreadable(SyncError.problem(error))))
                continue
            }
            let file: DeltaFile
            do {
                file = try DeltaFile.decode(bytes)
            } catch {
                report.skipped.append(.init(path: relative, reason: .rejected(error)))
                continue
            }
            if let problem = mismatch(file, replica: replica, name: delta.range) {
                report.skipped.append(.init(path: relative, reason: .misnamed(problem)))
                continue
            }
            if isWaiting(file) {
                report.skipped.append(.init(path: relative, reason: .waiting))
                continue
            }
            do {
                report.imported.append(.init(path: relative, report: try store.importDelta(decoded: file)))
            } catch let error as DeltaFileError {
                report.skipped.append(.init(path: relative, reason: .rejected(error)))
            } catch let error as StoreError {
                guard case .invalidChange = error else { throw error }
                if delta.isCopy { throw SyncError.divergentHistories(replica: replica, files: [relative], isThisReplica: false) }
                report.skipped.append(.init(path: relative, reason: .refused(error)))
            }
        }
    }

    /// Writes this replica's acknowledgement when it changed.
    private mutating func acknowledge(written: UInt64) throws {
        var version = store.version
        version[own] = written
        let acknowledgement = SyncAcknowledgement(storeID: store.storeID, version: version)
        report.acknowledged = version
        let relative = SyncFolderLayout.folderName(own) + "/" + SyncFolderLayout.acknowledgementName
        let encoded = acknowledgement.encoded()
        if (try? read(relative)) == encoded { return }
        try writeAtomically(encoded, to: relative)
    }

    /// Compacts this replica's delta files every other known replica of this store has
    /// acknowledged into one base delta file `0-<last>.qdelta` (written first), then
    /// deletes them. When the files no longer start at counter 0 (a folder pruned before
    /// base files existed), writes the base of what they lack even without new
    /// acknowledgements. So this replica's files always hold its whole history from 0,
    /// and a replica joining later needs nothing but the folder.
    private mutating func prune(_ deltas: [SyncFolderLayout.DeltaName], written: UInt64, others: [ReplicaID: Subfolder]) throws {
        var acknowledged = UInt64.max
        for replica in others.keys.sorted() where others[replica]!.isKnown {
            var version = VersionVector()
            if others[replica]!.hasAcknowledgement, let acknowledgement = acknowledgement(of: replica) {
                guard acknowledgement.storeID == store.storeID else {
                    let relative = SyncFolderLayout.folderName(replica) + "/" + SyncFolderLayout.acknowledgementName
                    report.skipped.append(.init(
                        path: relative, reason: .foreignAcknowledgement(store: acknowledgement.storeID, this: store.storeID)))
                    continue
                }
                version = acknowledgement.version
            }
            acknowledged = min(acknowledged, version[own])
        }
        if acknowledged == .max { acknowledged = 0 }  // no other replica known: nobody to compact for
        let sorted = deltas.sorted()
        let done = sorted.filter { $0.end <= acknowledged }
        var baseEnd = done.map(\.end).max() ?? 0
        let start = sorted.first?.first ?? written
        if start > 0 {
            baseEnd = max(baseEnd, start)  // the folder lacks counters 0..<start
        } else if done.count < 2 {
            return  // at most one acknowledged file, and it starts at 0: it is the base
        }
        guard baseEnd > 0, let bytes = try baseDelta(end: baseEnd) ?? baseDelta(joining: sorted, end: baseEnd) else { return }
        let base = SyncFolderLayout.DeltaName(first: 0, last: baseEnd - 1)
        let baseRelative = SyncFolderLayout.folderName(own) + "/" + base.fileName
        if !sorted.contains(base) || (try? read(baseRelative)) != bytes {
            try writeAtomically(bytes, to: baseRelative)
            report.base = baseRelative
        }
        for delta in sorted where delta.end <= baseEnd && delta != base {
            let relative = SyncFolderLayout.folderName(own) + "/" + delta.fileName
            try remove(relative)
            report.pruned.append(relative)
        }
    }

    /// This replica's changes `0..<end` as one delta file (with the store ID) from the
    /// store's change log, or `nil` when the log no longer has all of them (its history
    /// was pruned by `compact`).
    private func baseDelta(end: UInt64) throws -> [UInt8]? {
        let own = own
        return try store.withCurrentState { state -> [UInt8]? in
            guard state.meta.version[own] >= end else { return nil }
            var since = state.meta.version
            since[own] = 0
            let units: [ChangeUnit]
            do {
                // The log's runs cut at `end`; a single change reaching past it is left
                // out, so the count below falls short.
                units = try state.storedUnits(since: since).compactMap { unit in
                    guard unit.id.replica == own, let cut = unit.clamped(to: 0..<end), cut.endCounter <= end else { return nil }
                    return cut
                }
            } catch is PrunedHistoryError {
                return nil
            }
            let counted = units.reduce(UInt64(0)) { $0 + $1.count }
            guard units.map(\.id.counter).min() == 0, units.map(\.endCounter).max() == end, counted == end else { return nil }
            return state.deltaFile(of: units).encoded()
        }
    }

    /// This replica's changes `0..<end` as one delta file made of its files in the folder
    /// (for a store whose history `compact` pruned), or `nil` when they do not hold all
    /// of them or one cannot be read. The files' units are expanded into their changes
    /// (from counter 0, so with their true names and text counters) and written again by
    /// the exporter, which joins keystroke changes into runs across the files' bounds.
    private func baseDelta(joining deltas: [SyncFolderLayout.DeltaName], end: UInt64) throws -> [UInt8]? {
        var changes: [Change] = []
        var expander = DeltaUnitExpander()
        var next: UInt64 = 0
        for delta in deltas.sorted() where delta.end <= end && delta.end > next {
            let relative = SyncFolderLayout.folderName(own) + "/" + delta.fileName
            guard let bytes = try? read(relative), let file = try? DeltaFile.decode(bytes),
                mismatch(file, replica: own, name: delta) == nil
            else { return nil }
            for unit in file.changes.sorted(by: { $0.id.counter < $1.id.counter }) where unit.id.replica == own && unit.endCounter > next {
                var unit = unit
                if unit.id.counter < next, case .run(let run) = unit {
                    unit = .run(run.trimmed(toStartAt: next))  // the earlier file has its start
                }
                guard unit.id.counter == next, let expanded = try? expander.changes(of: unit) else { return nil }
                changes += expanded
                next = unit.endCounter
            }
        }
        guard next == end else { return nil }
        return try store.withCurrentState { state in state.deltaFile(of: changes.map(ChangeUnit.change)).encoded() }
    }

    /// Deletes the conflict copies a file-sync engine made of this replica's files: of its
    /// `ack` always (this replica writes a new one), of a delta file once its changes are
    /// known to be the ones this store has (``checkHistories(of:_:)`` compared it with
    /// the files it overlaps, ``checkCopy(_:of:range:)`` with the store).
    private mutating func removeConflictCopies(_ mine: inout Subfolder) throws {
        let name = SyncFolderLayout.folderName(own)
        for copy in mine.acknowledgementCopies {
            try remove(name + "/" + copy)
            report.removedConflictCopies.append(name + "/" + copy)
        }
        for copy in mine.deltaCopies {
            let relative = name + "/" + copy.name
            if !mine.deltas.contains(where: { $0.overlaps(copy.original) }) {
                guard try checkCopy(relative, of: own, range: copy.original) else { continue }
            }
            try remove(relative)
            report.removedConflictCopies.append(relative)
        }
        mine.acknowledgementCopies = []
        mine.deltaCopies = []
    }

    /// Checks a conflict copy whose changes this store has (or, for this replica, should
    /// have) against the store: importing it again changes nothing when it holds the same
    /// changes, and is refused when it holds others. Returns whether it could be checked.
    ///
    /// - Throws: ``SyncError/divergentHistories(replica:files:isThisReplica:)``.
    @discardableResult
    private func checkCopy(_ relative: String, of replica: ReplicaID, range: SyncFolderLayout.DeltaName) throws -> Bool {
        guard let bytes = try? read(relative), let file = try? DeltaFile.decode(bytes), mismatch(file, replica: replica, name: range) == nil
        else { return false }
        do {
            try store.importDelta(decoded: file)
        } catch let error as StoreError {
            guard case .invalidChange = error else { throw error }
            throw SyncError.divergentHistories(replica: replica, files: [relative], isThisReplica: replica == own)
        } catch is DeltaFileError {
            return false
        }
        return true
    }

    /// Refuses two files of `replica` (delta files, or conflict copies of them) whose
    /// counter ranges overlap with different changes there: two histories under one ID.
    ///
    /// - Throws: ``SyncError/divergentHistories(replica:files:isThisReplica:)``.
    private func checkHistories(of replica: ReplicaID, _ subfolder: Subfolder) throws {
        let candidates = (subfolder.deltas.map { (name: $0.fileName, range: $0) }
            + subfolder.deltaCopies.map { (name: $0.name, range: $0.original) }).sorted { $0.range < $1.range }
        guard candidates.count > 1 else { return }
        var loaded: [String: (bytes: [UInt8], units: [DeltaUnit])?] = [:]
        func load(_ name: String, _ range: SyncFolderLayout.DeltaName) -> (bytes: [UInt8], units: [DeltaUnit])? {
            if let cached = loaded[name] { return cached }
            let relative = SyncFolderLayout.folderName(replica) + "/" + name
            var result: (bytes: [UInt8], units: [DeltaUnit])?
            if let bytes = try? read(relative), let file = try? DeltaFile.decode(bytes), mismatch(file, replica: replica, name: range) == nil {
                result = (bytes, file.changes.filter { $0.id.replica == replica }.sorted { $0.id.counter < $1.id.counter })
            }
            loaded[name] = result
            return result
        }
        let names = (try? store.withCurrentState { $0.names[replica] }) ?? nil
        for (index, first) in candidates.enumerated() {
            for second in candidates[(index + 1)...] {
                guard second.range.first <= first.range.last else { break }
                guard let a = load(first.name, first.range), let b = load(second.name, second.range), a.bytes != b.bytes else { continue }
                let overlap = max(first.range.first, second.range.first)..<min(first.range.end, second.range.end)
                // Files cut runs at different counters (a base file joins what two files
                // held): their changes, one by one, are compared, not their units.
                guard let changesA = Self.changes(of: a.units, in: overlap, names: names),
                    let changesB = Self.changes(of: b.units, in: overlap, names: names),
                    changesA.count != changesB.count || !zip(changesA, changesB).allSatisfy({ $0.isSame(as: $1) })
                else { continue }  // times aside: a file's first change gives its time as a step from one before
                let folderName = SyncFolderLayout.folderName(replica)
                throw SyncError.divergentHistories(
                    replica: replica, files: [folderName + "/" + first.name, folderName + "/" + second.name], isThisReplica: replica == own)
            }
        }
    }

    /// The changes of one replica's `units` (in counter order) that touch `overlap`, one
    /// by one, for comparing two files: names resolved through the store's table of the
    /// replica (`names`) and the names the units spell, text counters shifted to start
    /// every text at the same far counter from the overlap's start on; `nil` when they
    /// cannot be expanded (a name the table lacks, operations that do not decode).
    private static func changes(of units: [DeltaUnit], in overlap: Range<UInt64>, names: ReplicaNames?) -> [Change]? {
        var expander = DeltaUnitExpander(names: names ?? ReplicaNames(), freshBase: 1 << 48)
        var result: [Change] = []
        var inOverlap = false
        for unit in units where unit.id.counter < overlap.upperBound {
            var unit = unit
            if !inOverlap, unit.endCounter > overlap.lowerBound {
                inOverlap = true
                expander.restartBases()
                if unit.id.counter < overlap.lowerBound, case .run(let run) = unit {
                    // Names first: the run's spelled field counts from its first change.
                    guard (try? expander.changes(of: .run(run))) != nil else { return nil }
                    expander.restartBases()
                    unit = .run(run.trimmed(toStartAt: overlap.lowerBound))
                }
            }
            guard let changes = try? expander.changes(of: unit) else { return nil }
            if inOverlap { result += changes.filter { $0.id.counter < overlap.upperBound } }
        }
        return result
    }

    // MARK: Checks

    /// Why the file's content does not match its place and name, or `nil` when it does.
    private func mismatch(_ file: DeltaFile, replica: ReplicaID, name: SyncFolderLayout.DeltaName) -> String? {
        guard file.sender == replica else { return "it was sent by replica \(file.sender), not \(replica)" }
        let own = file.changes.filter { $0.id.replica == replica }
        guard let first = own.map(\.id.counter).min(), let end = own.map(\.endCounter).max() else {
            return "it holds no change of replica \(replica)"
        }
        guard first == name.first, end - 1 == name.last else { return "it holds changes \(first)-\(end - 1)" }
        return nil
    }

    /// Whether every change of the file is known or waiting as pending, and one waits:
    /// importing it again would change nothing.
    private func isWaiting(_ file: DeltaFile) -> Bool {
        (try? store.withCurrentState { state in
            file.changes.contains { state.pending[$0.id] != nil }
                && file.changes.allSatisfy { state.pending[$0.id] != nil || state.meta.version[$0.id.replica] >= $0.endCounter }
        }) ?? false
    }

    // MARK: Files

    private func path(_ replica: ReplicaID) -> String { folder + "/" + SyncFolderLayout.folderName(replica) }

    private func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return files.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private func list(_ path: String) throws -> [String] {
        do {
            return try files.contentsOfDirectory(atPath: path).sorted()
        } catch {
            throw SyncError.folderUnavailable(path: path, problem: SyncError.problem(error))
        }
    }

    /// A replica's delta files and whether it has an acknowledgement; reports the rest.
    private mutating func subfolder(_ replica: ReplicaID) throws -> Subfolder {
        let name = SyncFolderLayout.folderName(replica)
        var subfolder = Subfolder()
        for entry in try list(path(replica)) {
            switch SyncFolderLayout.entry(entry) {
            case .delta(let delta): subfolder.deltas.append(delta)
            case .acknowledgement: subfolder.hasAcknowledgement = true
            case .conflictCopy(let original?):
                subfolder.deltaCopies.append((entry, original))
                if replica != own { report.ignored.append(.init(path: name + "/" + entry, reason: .conflictCopy(original: original.fileName))) }
            case .conflictCopy(nil):
                subfolder.acknowledgementCopies.append(entry)
                if replica != own {
                    report.ignored.append(.init(path: name + "/" + entry, reason: .conflictCopy(original: SyncFolderLayout.acknowledgementName)))
                }
            case .ignored(let reason): report.ignored.append(.init(path: name + "/" + entry, reason: reason))
            }
        }
        return subfolder
    }

    /// A replica's acknowledgement; `nil` (and a report entry) when it cannot be read.
    private mutating func acknowledgement(of replica: ReplicaID) -> SyncAcknowledgement? {
        if let known = acknowledgements[replica] { return known }
        let acknowledgement = readAcknowledgement(of: replica)
        acknowledgements[replica] = .some(acknowledgement)
        return acknowledgement
    }

    private mutating func readAcknowledgement(of replica: ReplicaID) -> SyncAcknowledgement? {
        let relative = SyncFolderLayout.folderName(replica) + "/" + SyncFolderLayout.acknowledgementName
        do {
            return try SyncAcknowledgement.decode(try read(relative, limit: SyncAcknowledgement.maximumSize))
        } catch {
            report.skipped.append(.init(path: relative, reason: .unreadable(SyncError.problem(error))))
            return nil
        }
    }

    /// Deletes a file of this replica; one already gone is fine.
    private func remove(_ relative: String) throws {
        do {
            try files.removeItem(atPath: folder + "/" + relative)
        } catch {
            guard files.fileExists(atPath: folder + "/" + relative) else { return }
            throw SyncError.deleteFailed(path: folder + "/" + relative, problem: SyncError.problem(error))
        }
    }

    /// Reads a file of the folder, refusing one larger than `limit`.
    ///
    /// Only regular files are read (a symbolic link to one is followed): a link to
    /// `/dev/zero`, a FIFO or a directory under a delta's name is refused after `fstat`,
    /// before any byte is read, and so is a file whose size is over `limit`. The read
    /// itself stops at `limit + 1` bytes, for a file that grows meanwhile.
    private func read(_ relative: String, limit: Int = SyncFolderLayout.maximumFileSize) throws -> [UInt8] {
        let path = folder + "/" + relative
        // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw SyncProblem(String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw SyncProblem(String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw SyncProblem("it is \(Self.kind(of: status.st_mode)), not a regular file; only regular files are read from the sync folder — remove it")
        }
        guard status.st_size <= limit else {
            throw SyncProblem("the file is larger than the limit of \(limit) bytes (it has \(status.st_size))")
        }
        let data = try handle.read(upToCount: limit + 1) ?? Data()
        guard data.count <= limit else {
            throw SyncProblem("the file is larger than the limit of \(limit) bytes")
        }
        return [UInt8](data)
    }

    /// `a directory`, `a character device` …, for a file that is not a regular one.
    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        default: "a file of an unknown kind"
        }
    }

    /// Writes a file of this replica through a hidden temporary file in the same folder,
    /// flushed to disk, then renamed: readers see the whole file or none, and after a
    /// power loss the name never points at an empty file.
    private func writeAtomically(_ bytes: [UInt8], to relative: String) throws {
        let path = folder + "/" + relative
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        do {
            guard FileManager.default.createFile(atPath: temporary, contents: nil) else {
                throw SyncProblem("cannot create \(temporary)")
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            do {
                try handle.write(contentsOf: Data(bytes))
                try handle.synchronize()
                try handle.close()
            } catch {
                try? handle.close()
                throw error
            }
            guard rename(temporary, path) == 0 else {
                throw SyncProblem("cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw SyncError.writeFailed(path: path, problem: SyncError.problem(error))
        }
    }
}
