#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Quire
import QuireTestSupport
import Testing
@testable import QuireTool

@Suite("How a command opens its store (StoreAccess.decide)")
struct StoreAccessTests {
    private func makeStore(_ path: String) throws {
        let store = try Store(directory: path)
        try store.close()
    }

    @Test("on a writable store: read-only (with the lock file) for a reading command, read-write for a writing one, no note")
    func writable() throws {
        try withTemporaryDirectory { temp in
            let path = temp.appending("store")
            try makeStore(path)
            #expect(try StoreAccess.decide(directory: path, writes: false, environment: [:]) == .init(access: .readOnly, note: nil))
            #expect(try StoreAccess.decide(directory: path, writes: true, environment: [:]) == .init(access: .readWrite, note: nil))
        }
    }

    @Test("QUIRE_READ_ONLY=1 stands for read-only media: reading opens without the lock file and says so; writing is refused")
    func forced() throws {
        try withTemporaryDirectory { temp in
            let path = temp.appending("store")
            try makeStore(path)
            let decision = try StoreAccess.decide(directory: path, writes: false, environment: ["QUIRE_READ_ONLY": "1"])
            #expect(decision.access == .readOnlyWithoutLock)
            #expect(decision.note == "\(path) is read-only (QUIRE_READ_ONLY=1): opened read-only, without LMDB's lock file")
            #expect(throws: ReadOnlyStore.self) {
                try StoreAccess.decide(directory: path, writes: true, environment: ["QUIRE_READ_ONLY": "1"])
            }
            #expect(try StoreAccess.decide(directory: path, writes: true, environment: ["QUIRE_READ_ONLY": "0"]).access == .readWrite)
        }
    }

    @Test("a directory this user cannot write (chmod; not meaningful as root, who may write anyway): reading opens without the lock file, writing is refused")
    func permissions() throws {
        try withTemporaryDirectory { temp in
            let path = temp.appending("store")
            try makeStore(path)
            for file in ["data.mdb", "lock.mdb"] { try #require(chmod(path + "/" + file, 0o444) == 0) }
            try #require(chmod(path, 0o555) == 0)
            defer { _ = chmod(path, 0o755) }
            guard access(path, W_OK) != 0 else { return }  // root: permission bits do not stop it
            let decision = try StoreAccess.decide(directory: path, writes: false, environment: [:])
            #expect(decision.access == .readOnlyWithoutLock)
            #expect(decision.note?.contains("not writable by this user") == true)
            #expect(throws: ReadOnlyStore.self) { try StoreAccess.decide(directory: path, writes: true, environment: [:]) }
        }
    }
}
