import QuireCore
import Testing
@testable import QuireTool

@Suite("Version files")
struct VersionFileTests {
    @Test("what is written reads back the same")
    func roundTrip() throws {
        let file = VersionFile(
            storeID: "00112233445566778899aabbccddeeff",
            version: VersionVector([ReplicaID(0x3a9d52c01b7e4f66): 1204, ReplicaID(7): 17]))
        #expect(file.text == """
            quire-version 1
            store 00112233445566778899aabbccddeeff
            0000000000000007 17
            3a9d52c01b7e4f66 1204

            """)
        #expect(try VersionFile.parse(file.text, path: "v") == file)
    }

    @Test("comments, blank lines and a missing store line are accepted")
    func lenient() throws {
        let file = try VersionFile.parse("# phone\n\nquire-version 1\n  00000000000000ff 3  \n", path: "v")
        #expect(file.storeID == nil)
        #expect(file.version == VersionVector([ReplicaID(0xff): 3]))
    }

    @Test("a sync folder's ack file reads as a version")
    func acknowledgement() throws {
        let file = try VersionFile.parse(
            "quire-ack 1\nstore 00112233445566778899aabbccddeeff\n0000000000000001 17\n00000000000000a2 4\n", path: "ack")
        #expect(file.storeID == "00112233445566778899aabbccddeeff")
        #expect(file.version == VersionVector([ReplicaID(1): 17, ReplicaID(0xa2): 4]))
    }

    @Test("malformed files are refused naming the line", arguments: [
        ("", "it is empty"),
        ("quire-version 2\n", "line 1 should be 'quire-version 1'"),
        ("quire-version 1\nxyz 3\n", "line 2: expected 'store' and the store ID, or a replica ID"),
        ("quire-version 1\n0000000000000000 3\n", "line 2: expected a replica ID (16 hex digits, not 0)"),
        ("quire-version 1\n0000000000000001 -3\n", "line 2: expected a replica ID"),
        ("quire-version 1\n0000000000000001 3\n0000000000000001 4\n", "line 3: replica 0000000000000001 appears twice"),
        ("quire-version 1\nstore abc\n", "line 2: expected 'store' and 32 hexadecimal digits"),
        ("quire-version 1\nclock 4\n", "line 2: expected 'store' and the store ID"),
    ])
    func malformed(text: String, problem: String) {
        #expect {
            _ = try VersionFile.parse(text, path: "peer.version")
        } throws: { error in
            let message = "\(error)"
            return message.contains("peer.version is not a usable version file: \(problem)")
                && message.contains("quire status --version-out")
        }
    }
}
