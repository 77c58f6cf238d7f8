import Foundation
@testable import Quire
import Testing

@Suite("Record fields: JSON assembly")
struct RecordFieldsTests {
    @Test("a field name is quoted as a JSON string that reads back as the name", arguments: [
        "name", "", "with \"quotes\"", "back\\slash", "tab\tand\nnewline", "\u{0}\u{1F}", "naïve ✍️", "a/b",
    ])
    func quotedNameReadsBack(name: String) throws {
        let json = Data(RecordFields.quoted(name))
        let decoded = try JSONDecoder().decode(String.self, from: json)
        #expect(decoded == name)
    }
}
