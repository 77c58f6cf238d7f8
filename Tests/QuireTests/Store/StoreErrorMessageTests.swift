import Foundation
import Quire
import QuireTestSupport
import Testing

@Suite("Store errors read once")
struct StoreErrorMessageTests {
    @Test("a damaged value reported by several layers is described once, not nested")
    func nestedCorruptIsFlattened() {
        let inner = StoreError.corrupt(database: "changes", problem: "malformed input at byte 3").description
        let middle = StoreError.corrupt(database: "changes", problem: inner).description
        let outer = StoreError.corrupt(database: "texts", problem: "text X: " + middle)
        #expect(outer.description == "a value in texts is damaged (text X: malformed input at byte 3); restore the store from a backup or re-sync it from another replica")
    }

    @Test("a store directory that is a file is refused by name, before anything is created")
    func directoryIsAFile() throws {
        try withTemporaryDirectory { temp in
            let file = temp.appending("file")
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            #expect(throws: StoreError.notADirectory(file)) { _ = try Store(directory: file) }
            #expect("\(StoreError.notADirectory(file))".contains("is a file, not a store directory"))
        }
    }

    @Test("an invalid 10,000-character name is shown cut to 60 characters and its length")
    func longInvalidName() {
        let error = StoreError.invalidName(String(repeating: "n", count: 10_000), reason: "too long")
        #expect(error.description == "invalid name \"\(String(repeating: "n", count: 60))… (10000 characters)\": too long")
    }
}
