import Foundation
import Quire

// The ```swift block of README.md, verbatim (modulo indentation). It opens stores in the
// current directory, so it is compiled, not run; `ReadmeExampleTests` runs the same steps
// in a temporary directory. `DocSnippetCheckTests` fails when the README's block is not
// found here.
enum ReadmeSnippet {
    // README.md
    static func example() throws {
        struct Note: Record {
            static let typeName = "note"
            var title: String
        }

        let laptop = try Store(directory: "Laptop.quire")
        let phone = try Store(directory: "Phone.quire")      // a new, empty replica

        let note = try laptop.write { tx in
            let note = try tx.insert(Note(title: "Diary"))
            try tx.insert("Dear diary, today", at: 0, in: note.text("body"))
            return note
        }
        try phone.importDelta(laptop.exportDelta()!)         // the phone joins the laptop's store
        let body = note.text("body")

        // Offline on both…
        try laptop.write { tx in try tx.insert(" it rained", at: try tx.length(of: body), in: body) }
        try phone.write { tx in
            try tx.insert("👋 ", at: 0, unit: .utf16, in: body)              // an NSRange location
            try tx.update(note, as: Note.self) { $0.title = "Rainy day" }
        }

        // …then exchange delta files (any file-sync engine can carry them), in either order.
        try laptop.importDelta(phone.exportDelta(since: laptop.version)!)
        try phone.importDelta(laptop.exportDelta(since: phone.version)!)
        try laptop.read { tx in print(try tx.record(Note.self, note).title, try tx.string(of: body)) }
        // Rainy day 👋 Dear diary, today it rained — the same on both
    }
}
