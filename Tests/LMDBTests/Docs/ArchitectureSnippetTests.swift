import LMDB
import QuireTestSupport
import Testing

// The ```swift block of docs/architecture.md ("Transactions"), verbatim (modulo
// indentation), run on a real environment. `DocSnippetCheckTests` (QuireTests) fails when
// the block is not found here.
@Suite("docs/architecture.md snippets")
struct ArchitectureSnippetTests {
    @Test("the storage layer's transaction example writes a value and reads it back")
    func transactions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let dir = directory.appending("env")
        let value: [UInt8] = Array("Dear diary".utf8)
        let id = UInt64(7)

        // docs/architecture.md: Transactions
        let env = try Environment(path: dir)                 // one per file per process
        let notes = try env.openDatabase(named: "notes")     // once, before transactions
        try env.write { tx in try tx.put(value, forKey: Key(id), in: notes) }   // commit on return
        let copy = try env.read { tx in try tx.value(forKey: Key(id), in: notes) }

        #expect(copy == value)
    }
}
