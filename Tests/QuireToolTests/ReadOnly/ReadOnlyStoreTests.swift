#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import QuireTestSupport
import Testing

@Suite("A store that cannot be written (the real binary)")
struct ReadOnlyStoreTests {
    static let ode = "My Poetry/Your Poetry/Draft/Ode"

    /// Builds a store with a project and a file in `directory`.
    private func makeStore(_ directory: String) throws {
        let quire = AppTool(store: directory)
        try quire.ok(["project", "create", "My Poetry", "--type", "poetry"])
        try quire.ok(["write", Self.ode], input: "The sea is calm tonight.\n")
    }

    /// Runs every reading command on `quire` and expects success and the note; every
    /// writing command and expects exit 1 with `refusal`.
    private func tour(_ quire: AppTool, environment: [String: String] = [:], note: String, refusal: String, temp: TemporaryDirectory) throws {
        let reads: [[String]] = [
            ["tree"], ["cat", Self.ode], ["log", Self.ode], ["wc", Self.ode], ["project", "list"],
            ["status"], ["info"], ["verify"], ["verify", "--json"],
            ["export", "-o", temp.appending("out.qdelta")], ["cards", "category", "list"],
        ]
        for arguments in reads {
            let run = try quire.run(arguments, environment: environment)
            #expect(run.status == 0, "quire \(arguments): \(run.standardError)")
            #expect(run.standardError.contains(note), "quire \(arguments): \(run.standardError)")
        }
        #expect(try quire.run(["cat", Self.ode], environment: environment).standardOutput == "The sea is calm tonight.\n")
        let writes: [[String]] = [
            ["write", Self.ode], ["mkdir", "My Poetry/Your Poetry/Draft/New"], ["compact"],
            ["import", temp.appending("out.qdelta")], ["cards", "category", "add", "Birds"],
        ]
        for arguments in writes {
            let run = try quire.run(arguments, input: "changed\n", environment: environment)
            #expect(run.status == 1, "quire \(arguments): \(run.standardError)")
            #expect(run.standardError.contains(refusal), "quire \(arguments): \(run.standardError)")
            #expect(!run.standardError.contains("error 30"), "quire \(arguments)")
        }
    }

    @Test("QUIRE_READ_ONLY=1 on a store whose files are chmod 0444 and has no lock.mdb: every reading command works and says so, creates no lock file and changes nothing; writing commands are refused clearly")
    func forcedReadOnly() throws {
        try withTemporaryDirectory { temp in
            let store = temp.appending("store")
            try makeStore(store)
            try FileManager.default.removeItem(atPath: store + "/lock.mdb")
            try #require(chmod(store + "/data.mdb", 0o444) == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))

            try tour(AppTool(store: store), environment: ["QUIRE_READ_ONLY": "1"],
                     note: "note: \(store) is read-only (QUIRE_READ_ONLY=1): opened read-only, without LMDB's lock file",
                     refusal: "the store at \(store) is read-only (QUIRE_READ_ONLY=1), and this command changes it", temp: temp)

            #expect(!FileManager.default.fileExists(atPath: store + "/lock.mdb"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")) == before)
        }
    }

    @Test("a store on a read-only bind mount (needs the privilege to mount; skipped without it): reading works, writing is refused without 'error 30'")
    func readOnlyMount() throws {
        try withTemporaryDirectory { temp in
            let source = temp.appending("source"), mounted = temp.appending("mounted")
            try makeStore(source + "/store")
            try FileManager.default.createDirectory(atPath: mounted, withIntermediateDirectories: false)
            guard mount(source, mounted, nil, UInt(MS_BIND), nil) == 0 else { return }
            // Detached lazily, so a busy mount cannot outlive the test.
            defer { #expect(umount2(mounted, Int32(MNT_DETACH)) == 0, "unmount: errno \(errno)") }
            guard mount(source, mounted, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil) == 0 else { return }
            let store = mounted + "/store"
            #expect(access(store, W_OK) != 0 && errno == EROFS, "the mount is read-only, also for root")
            let before = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))

            try tour(AppTool(store: store),
                     note: "note: \(store) is on a read-only file system: opened read-only, without LMDB's lock file",
                     refusal: "the store at \(store) is on a read-only file system, and this command changes it", temp: temp)

            #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")) == before)
        }
    }
}
