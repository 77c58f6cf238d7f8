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
    /// 4. deletes its own delta files whose changes every replica known in the folder
    ///    (with an `ack` or delta files there) has acknowledged — once at least one other
    ///    replica is known. Pruning assumes every replica of the store uses the folder: a
    ///    replica that joins after files were pruned needs a full delta from a peer
    ///    (``exportDelta(since:)``) first.
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
    ///   or listed; ``StoreError`` when the store fails (closed, damaged).
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

        let mine = try subfolder(own)
        var written = try writtenEnd(of: mine)
        written = try writeNewChanges(after: written)
        for replica in others.keys.sorted() {
            try importFiles(of: replica, others[replica]!)
        }
        try acknowledge(written: written)
        try prune(mine.deltas, others: others)
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
            let changes = try state.storedChanges(since: since).filter { $0.id.replica == own }
            guard let first = changes.map(\.id.counter).min(), let end = changes.map(\.endCounter).max() else { return nil }
            return (state.deltaFile(of: changes).encoded(), SyncFolderLayout.DeltaName(first: first, last: end - 1))
        }
        guard let export else { return written }
        let relative = SyncFolderLayout.folderName(own) + "/" + export.name.fileName
        try writeAtomically(export.bytes, to: relative)
        report.written.append(relative)
        return export.name.end
    }

    /// Imports the files of `replica` this store lacks, oldest first.
    private mutating func importFiles(of replica: ReplicaID, _ subfolder: Subfolder) throws {
        for delta in subfolder.deltas.sorted() {
            guard store.version[replica] < delta.end else { continue }
            let relative = SyncFolderLayout.folderName(replica) + "/" + delta.fileName
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
            if let problem = mismatch(file, replica: replica, name: delta) {
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

    /// Deletes this replica's delta files every other known replica has acknowledged.
    private mutating func prune(_ deltas: [SyncFolderLayout.DeltaName], others: [ReplicaID: Subfolder]) throws {
        let known = others.filter { $0.value.hasAcknowledgement || !$0.value.deltas.isEmpty }
        guard !known.isEmpty else { return }
        var acknowledged = UInt64.max
        for replica in known.keys.sorted() {
            let version = known[replica]!.hasAcknowledgement ? acknowledgement(of: replica)?.version ?? VersionVector() : VersionVector()
            acknowledged = min(acknowledged, version[own])
        }
        for delta in deltas.sorted() where delta.end <= acknowledged {
            let relative = SyncFolderLayout.folderName(own) + "/" + delta.fileName
            do {
                try files.removeItem(atPath: folder + "/" + relative)
            } catch {
                guard files.fileExists(atPath: folder + "/" + relative) else { continue }
                throw SyncError.deleteFailed(path: folder + "/" + relative, problem: SyncError.problem(error))
            }
            report.pruned.append(relative)
        }
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
            case .ignored(let reason): report.ignored.append(.init(path: name + "/" + entry, reason: reason))
            }
        }
        return subfolder
    }

    /// A replica's acknowledgement; `nil` (and a report entry) when it cannot be read.
    private mutating func acknowledgement(of replica: ReplicaID) -> SyncAcknowledgement? {
        let relative = SyncFolderLayout.folderName(replica) + "/" + SyncFolderLayout.acknowledgementName
        do {
            return try SyncAcknowledgement.decode(try read(relative, limit: SyncAcknowledgement.maximumSize))
        } catch {
            report.skipped.append(.init(path: relative, reason: .unreadable(SyncError.problem(error))))
            return nil
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
