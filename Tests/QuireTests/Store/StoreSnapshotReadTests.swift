import Dispatch
import Foundation
import LMDB
@testable import Quire
import QuireCore
import QuireTestSupport
import Testing

/// `store.read` on LMDB snapshots: it never waits for a writer, sees one commit from
/// start to end, and answers exactly what the writer's in-memory state answers.
/// The record type `store-test-typist` writes.
private struct TypistFile: Record {
    static let typeName = "file"
    var name: String
}

@Suite("Store: reads on LMDB snapshots")
struct StoreSnapshotReadTests {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    @Test("a read finishes while a write body on another thread holds the writer")
    func readDuringWrite() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let folder = try store.write { tx in try tx.insert(Folder(name: "Drafts")) }

        let inWrite = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? store.write { tx in
                try tx.update(folder, as: Folder.self) { $0.name = "Poems" }
                inWrite.signal()
                release.wait()
            }
            written.signal()
        }
        inWrite.wait()
        let readDone = DispatchSemaphore(value: 0)
        let seen = Locked<String?>(nil)
        Thread.detachNewThread {
            seen.set(try? store.read { tx in try tx.record(Folder.self, folder).name })
            readDone.signal()
        }
        let finished = readDone.wait(timeout: .now() + .seconds(30)) == .success
        release.signal()
        written.wait()
        #expect(finished, "the read waited for the write body")
        #expect(seen.get() == "Drafts", "the read saw the last commit, not the write in progress")
        #expect(try store.read { tx in try tx.record(Folder.self, folder).name } == "Poems")
    }

    @Test("a read sees the commit it began at, even when a write commits while it runs")
    func readSeesOneCommit() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let (folder, file) = try store.write { tx in
            let folder = try tx.insert(Folder(name: "Drafts"))
            let file = try tx.insert(File(name: "Ode"), under: folder)
            try tx.insert("The sea", at: 0, in: file.text("content"))
            return (folder, file)
        }

        let written = DispatchSemaphore(value: 0)
        let (before, after) = try store.read { tx in
            let before = (tx.version, try tx.record(File.self, file).name, tx.children(of: folder), try tx.string(of: file.text("content")))
            Thread.detachNewThread {
                try? store.write { tx in
                    try tx.update(file, as: File.self) { $0.name = "Elegy" }
                    _ = try tx.insert(File(name: "Hymn"), under: folder)
                    try tx.insert(" is calm.", at: 7, in: file.text("content"))
                }
                written.signal()
            }
            let committed = written.wait(timeout: .now() + .seconds(30)) == .success
            #expect(committed, "the write waited for the read")
            let after = (tx.version, try tx.record(File.self, file).name, tx.children(of: folder), try tx.string(of: file.text("content")))
            #expect(store.version == tx.version, "store.version inside the body answers from its snapshot")
            return (before, after)
        }
        #expect(before == after)
        #expect(after.1 == "Ode" && after.2 == [file] && after.3 == "The sea")
        let now = try store.read { tx in (try tx.record(File.self, file).name, tx.children(of: folder).count, try tx.string(of: file.text("content"))) }
        #expect(now.0 == "Elegy" && now.1 == 2 && now.2 == "The sea is calm.")
    }

    /// Runs `body` while a write body on another thread holds the writer (its lock and
    /// LMDB's), so reads cannot borrow the writer's state and read LMDB alone.
    static func whileWriting<R>(_ store: Store, _ body: () throws -> R) throws -> R {
        let inWrite = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? store.write { _ in
                inWrite.signal()
                release.wait()
            }
            done.signal()
        }
        inWrite.wait()
        defer {
            release.signal()
            done.wait()
        }
        return try body()
    }

    @Test("snapshot reads answer what the writer's reads answer",
          arguments: [(false, false), (true, false), (false, true), (true, true)])
    func snapshotMatchesWriter(reopened: Bool, writerBusy: Bool) throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let early = try Self.buildRichStore(replicas[0], replicas[1])
        let store = reopened ? try replicas.reopen(0) : replicas[0]
        let read = { try store.read { tx in try Self.report(tx, early: early) } }
        // Busy: LMDB alone. Idle: the writer's tree and texts, where they reflect the snapshot.
        let fromSnapshot = writerBusy ? try Self.whileWriting(store, read) : try read()
        let fromWriter = try store.write { tx in try Self.report(tx, early: early) }
        #expect(fromSnapshot.lines.count > 40)
        #expect(fromSnapshot.lines.contains { $0.hasPrefix("  clashes [") && $0 != "  clashes []" })
        #expect(fromSnapshot.lines.contains { $0.contains("deleted true from index") })
        #expect(fromSnapshot.lines.contains { $0.hasPrefix("  first two [") && $0.contains(", ") })
        for (snapshotLine, writerLine) in zip(fromSnapshot.lines, fromWriter.lines) where snapshotLine != writerLine {
            Issue.record("snapshot: \(snapshotLine)\nwriter:   \(writerLine)")
        }
        #expect(fromSnapshot == fromWriter)
        // The comparison can fail: a report of the store before its last write differs.
        #expect(fromSnapshot != (try store.read { tx in try Self.report(tx, early: VersionVector()) }))
    }

    @Test("a read never borrows a text the writer loaded after another process committed")
    func noBorrowFromLaterCommit() throws {
        let typist = try BuiltProducts.executable(named: "store-test-typist")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("store")
        let first = try runProcess(typist, ["type", path, "1", "5"])
        #expect(first.status == 0, "\(first.standardError)")
        let store = try Store(directory: path)
        defer { try? store.close() }
        let file = try store.read { tx in try tx.all(TypistFile.self).first!.id }
        let content = file.text("content")
        let before = try store.read { tx in try tx.string(of: content) }

        let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let seen = Locked<String?>(nil)
        Thread.detachNewThread {
            seen.set(try? store.read { tx -> String in
                ready.signal()
                go.wait()
                return try tx.string(of: content)
            })
            done.signal()
        }
        ready.wait()
        // An observation's first value runs on the writer's state, under its lock, after
        // catching up; another process commits in between, then the value loads the text.
        let observation = store.observe { tx -> String in
            _ = try? runProcess(typist, ["type", path, "1", "10"])
            return try tx.string(of: content)
        }
        _ = observation.makeAsyncIterator()
        go.signal()
        done.wait()
        let after = try store.read { tx in try tx.string(of: content) }
        #expect(before != after, "the child typed")
        #expect(seen.get() == before, "a read begun before the child's commits saw \(String(describing: seen.get()))")
    }

    @Test("a damaged children entry makes the read throw, naming the database; other reads go on")
    func damagedEntryThrows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let options = StoreSpec.options(replica: 1)
        var store = try Store(directory: directory.path, options: options)
        let folder = try store.write { tx in
            let folder = try tx.insert(Folder(name: "Drafts"))
            try tx.insert(File(name: "Ode"), under: folder)
            return folder
        }
        try store.close()
        try MaintenanceSpec.damage(directory.path) { _, layout, tx in
            var key = TreeStorageLayout.childrenPrefix(folder.node).bytes
            key += [0xFF, 0xFF]  // a position key with no terminator
            try tx.put([], forKey: Key(bytes: key), in: layout.tree.children)
        }
        store = try Store(directory: directory.path, options: options)
        defer { try? store.close() }
        // The writer's tree, in memory, does not have the damage: while it is busy the read
        // scans the children index itself.
        let opened = store
        let error = try Self.whileWriting(store) {
            #expect(throws: StoreError.self) { try opened.read { tx in tx.children(of: folder) } }
        }
        #expect(error.map { "\($0)".contains("tree.children") } == true, "\(String(describing: error))")
        #expect(try store.read { tx in try tx.record(Folder.self, folder).name } == "Drafts")
    }

    @Test("a damaged record makes a read's get throw, naming the records database; a sound one reads")
    func damagedRecordThrows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let options = StoreSpec.options(replica: 1)
        var store = try Store(directory: directory.path, options: options)
        let (damaged, sound) = try store.write { tx in
            (try tx.insert(Folder(name: "Drafts")), try tx.insert(Folder(name: "Ready")))
        }
        try store.close()
        try MaintenanceSpec.damage(directory.path) { _, layout, tx in
            var bytes = try #require(try tx.value(forKey: StoreLayout.recordKey(damaged), in: layout.records))
            bytes[1] = 0xFF  // the type name's first byte: no longer UTF-8
            try tx.put(bytes, forKey: StoreLayout.recordKey(damaged), in: layout.records)
        }
        store = try Store(directory: directory.path, options: options)
        defer { try? store.close() }
        let opened = store
        let error = #expect(throws: StoreError.self) { try opened.read { tx in try tx.get(Folder.self, damaged) } }
        #expect(error.map { "\($0)".contains("records") } == true, "\(String(describing: error))")
        #expect(try store.read { tx in try tx.record(Folder.self, sound).name } == "Ready")
    }

    // MARK: The store and its report

    /// Two replicas' work merged into `a`: folders, files, typing, renames, a move, deletes
    /// (one restored), a name clash, a text edited in the trash.
    /// Returns a version from the middle of it.
    static func buildRichStore(_ a: Store, _ b: Store) throws -> VersionVector {
        let (drafts, ode, poems) = try a.write { tx in
            let poems = try tx.insert(Folder(name: "Poems"))
            let drafts = try tx.insert(Folder(name: "Drafts"), under: poems)
            let ode = try tx.insert(File(name: "Ode"), under: drafts)
            try tx.insert("The sea", at: 0, in: ode.text("content"))
            for index in 0..<5 { try tx.insert(File(name: "file \(index)", rating: index), under: drafts) }
            return (drafts, ode, poems)
        }
        for character in " is calm tonight." {
            let length = try a.read { tx in try tx.length(of: ode.text("content")) }
            try a.write { tx in try tx.insert(String(character), at: length, in: ode.text("content")) }
        }
        try StoreSpec.sync(a, b)
        let early = a.version
        try b.write { tx in
            _ = try tx.insert(File(name: "Ode"), under: drafts)
            _ = try tx.insert(Folder(name: "Drafts"), under: poems)  // clashes with a's after the merge
            try tx.insert("b: ", at: 0, in: ode.text("content"))
        }
        let files = try a.read { tx in tx.children(of: drafts) }
        try a.write { tx in
            try tx.update(ode, as: File.self) { $0.status = "ready" }
            try tx.delete(files[2])
            try tx.delete(files[4])
            try tx.move(files[1], to: poems, at: 0)
            try tx.delete(files[3])
        }
        try a.write { tx in try tx.restore(files[4]) }
        try a.write { tx in try tx.delete(files[5]) }
        try StoreSpec.sync(a, b)
        try a.write { tx in try tx.delete(ode) }
        try a.write { tx in try tx.insert(" Still.", at: 0, in: ode.text("content")) }  // edited in the trash
        return early
    }

    struct Report: Equatable {
        var lines: [String]
    }

    /// Everything the public reads answer about the store, one line each.
    static func report<Tx: StoreReading & ~Copyable>(_ tx: borrowing Tx, early: VersionVector) throws -> Report {
        var lines = ["version \(tx.version)", "top \(tx.children(of: nil))", "trash \(tx.trash)"]
        lines.append("first at top \(tx.children(of: nil, limit: 1)) all at top \(tx.children(of: nil, limit: 1_000))")
        lines.append("clashes top \(tx.nameClashes(under: nil))")
        let folders = try tx.all(Folder.self, includingDeleted: true)
        let files = try tx.all(File.self, includingDeleted: true)
        lines.append("live folders \(try tx.all(Folder.self).map(\.id)) files \(try tx.all(File.self).map(\.id))")
        lines.append("by name \(try tx.all(File.self, sortedBy: \.name).map(\.id))")
        lines.append("undecodable \(tx.allDecodable(File.self).undecodable.map(\.id))")
        for id in folders.map(\.id) + files.map(\.id) {
            lines.append("\(id) type \(tx.typeName(of: id) ?? "-") parent \(tx.parent(of: id).map { "\($0)" } ?? "-")")
            lines.append("  path \(tx.path(of: id)) subtree \(tx.subtree(of: id)) children \(tx.children(of: id))")
            lines.append("  first two \(tx.children(of: id, limit: 2)) none \(tx.children(of: id, limit: 0))")
            lines.append("  deleted \(tx.isDeleted(id)) from \(tx.deletedFrom(id).map { "\($0)" } ?? "-")")
            lines.append("  clashes \(tx.nameClashes(under: id))")
            lines.append("  files \(try tx.children(of: id, ofType: File.self).map(\.id))")
            let atEarly = tx.typeName(of: id) == File.typeName
                ? try tx.get(File.self, id, at: early).map { "\($0)" } : try tx.get(Folder.self, id, at: early).map { "\($0)" }
            lines.append("  history \(try tx.history(of: id).count) at early \(atEarly ?? "-")")
            let content = id.text("content")
            lines.append("  text \(try tx.string(of: content).debugDescription) length \(try tx.length(of: content, unit: .utf16))")
            lines.append("  words \(try tx.wordCount(of: content)) at early \(try tx.string(of: content, at: early).debugDescription)")
            if try tx.length(of: content) >= 3 {
                lines.append("  part \(try tx.string(of: content, in: 1..<3, unit: .utf8).debugDescription)")
            }
            lines.append("  text history \(try tx.history(of: content).map(\.change))")
            lines.append("  diff \(try tx.diff(of: content, from: early, to: tx.version).edits.count)")
        }
        lines.append("kept from \(try tx.historyKeptFrom)")
        lines.append("at a date \(try tx.version(at: Date(timeIntervalSince1970: 4_000_000_000)))")
        return Report(lines: lines)
    }
}
