import LMDB
import Testing

@Suite("Scans and cursors")
struct ScanTests {
    /// A database of (folder, item) → "folder/item" for folders 1...3, items 0...4.
    private func filledEnvironment() throws -> (TestEnvironment, Database) {
        let test = try TestEnvironment()
        let db = try test.environment.openDatabase(named: "children")
        try test.environment.write { tx throws in
            for folder in UInt64(1)...3 {
                for item in UInt16(0)..<5 {
                    try tx.put(bytes("\(folder)/\(item)"), forKey: Key(folder, item), in: db)
                }
            }
        }
        return (test, db)
    }

    private func values(_ entries: [Entry]) -> [String] { entries.compactMap { text($0.value) } }

    @Test("a full scan visits keys in order, forwards and backwards")
    func fullScan() throws {
        let (test, db) = try filledEnvironment()
        let forward = try test.environment.read { tx in try tx.entries(in: db) }
        #expect(values(forward).count == 15)
        #expect(values(forward).first == "1/0")
        #expect(values(forward).last == "3/4")
        #expect(forward.map(\.key) == forward.map(\.key).sorted { $0.lexicographicallyPrecedes($1) })
        let backward = try test.environment.read { tx in try tx.entries(in: db, reverse: true) }
        #expect(values(backward) == values(forward).reversed())
    }

    @Test("a prefix scan visits exactly one folder's children, in both directions")
    func prefixScan() throws {
        let (test, db) = try filledEnvironment()
        let children = try test.environment.read { tx in try tx.entries(in: db, range: .prefix(Key(UInt64(2)))) }
        #expect(values(children) == ["2/0", "2/1", "2/2", "2/3", "2/4"])
        let reversed = try test.environment.read { tx throws in
            try tx.entries(in: db, range: .prefix(Key(UInt64(2))), reverse: true)
        }
        #expect(values(reversed) == ["2/4", "2/3", "2/2", "2/1", "2/0"])
        let none = try test.environment.read { tx in try tx.entries(in: db, range: .prefix(Key(UInt64(9)))) }
        #expect(none.isEmpty)
    }

    @Test("half-open ranges include the lower bound and exclude the upper")
    func ranges() throws {
        let (test, db) = try filledEnvironment()
        let range = KeyRange(from: Key(UInt64(1), UInt16(3)), to: Key(UInt64(2), UInt16(2)))
        try test.environment.read { tx throws in
            #expect(values(try tx.entries(in: db, range: range)) == ["1/3", "1/4", "2/0", "2/1"])
            #expect(values(try tx.entries(in: db, range: range, reverse: true)) == ["2/1", "2/0", "1/4", "1/3"])
            #expect(values(try tx.entries(in: db, range: .atLeast(Key(UInt64(3), UInt16(3))))) == ["3/3", "3/4"])
            #expect(values(try tx.entries(in: db, range: .below(Key(UInt64(1), UInt16(2))))) == ["1/0", "1/1"])
            #expect(
                values(try tx.entries(in: db, range: .below(Key(UInt64(1), UInt16(2))), reverse: true))
                    == ["1/1", "1/0"])
            #expect(values(try tx.entries(in: db, limit: 2)) == ["1/0", "1/1"])
        }
    }

    @Test("a prefix of 0xFF bytes has no upper bound and still scans to the end")
    func allOnesPrefix() throws {
        let test = try TestEnvironment()
        let db = try test.environment.openDatabase(named: "d")
        try test.environment.write { tx throws in
            try tx.put(bytes("a"), forKey: [0xFE, 0xFF], in: db)
            try tx.put(bytes("b"), forKey: [0xFF], in: db)
            try tx.put(bytes("c"), forKey: [0xFF, 0x00], in: db)
            try tx.put(bytes("d"), forKey: [0xFF, 0xFF, 0x01], in: db)
        }
        #expect(KeyRange.prefix([UInt8]([0xFF, 0xFF])).upperBound == nil)
        #expect(KeyRange.prefix([UInt8]([0x01, 0xFF])).upperBound == [0x02])
        let found = try test.environment.read { tx in try tx.entries(in: db, range: .prefix([UInt8]([0xFF]))) }
        #expect(values(found) == ["b", "c", "d"])
    }

    @Test("a scan stops when the body says so")
    func earlyStop() throws {
        let (test, db) = try filledEnvironment()
        var visited = 0
        try test.environment.read { tx throws in
            try tx.scan(db) { _, _ in
                visited += 1
                return visited == 4 ? .stop : .continue
            }
        }
        #expect(visited == 4)
    }

    @Test("a cursor seeks, steps both ways and reports the ends")
    func cursorMoves() throws {
        let (test, db) = try filledEnvironment()
        try test.environment.read { tx throws in
            try tx.withCursor(on: db) { cursor throws in
                #expect(try cursor.seek(atLeast: Key(UInt64(2))))
                #expect(text(try cursor.value()) == "2/0")
                #expect(try cursor.previous())
                #expect(text(try cursor.value()) == "1/4")
                #expect(try cursor.seek(exactly: Key(UInt64(3), UInt16(4))))
                #expect(try cursor.next() == false)
                #expect(try cursor.first())
                #expect(try cursor.key() == Key(UInt64(1), UInt16(0)).bytes)
                #expect(try cursor.previous() == false)
                #expect(try cursor.last())
                #expect(text(try cursor.value()) == "3/4")
                #expect(try cursor.seek(exactly: Key(UInt64(7))) == false)
                #expect(try cursor.seek(atLeast: Key(UInt64(7))) == false)
            }
        }
    }

    @Test("scans of an empty database visit nothing")
    func emptyScan() throws {
        let test = try TestEnvironment()
        let db = try test.environment.openDatabase(named: "empty")
        try test.environment.read { tx throws in
            #expect(try tx.entries(in: db).isEmpty)
            #expect(try tx.entries(in: db, reverse: true).isEmpty)
            #expect(try tx.entries(in: db, range: .prefix(Key("x")), reverse: true).isEmpty)
            try tx.withCursor(on: db) { cursor throws in
                #expect(try cursor.first() == false)
                #expect(try cursor.last() == false)
            }
        }
    }
}
