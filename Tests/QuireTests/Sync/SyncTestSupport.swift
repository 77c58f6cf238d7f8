import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

/// Random offline edits and sync-folder inspection shared by the sync suites.
enum SyncSpec {
    typealias Folder = StoreSpec.Folder
    typealias File = StoreSpec.File

    /// The live folders and files of a store, depth first.
    static func liveNodes(_ store: Store) throws -> (folders: [RecordID], files: [RecordID]) {
        try store.read { tx in
            var folders: [RecordID] = []
            var files: [RecordID] = []
            var stack = Array(tx.children(of: nil).reversed())
            while let id = stack.popLast() {
                stack += tx.children(of: id).reversed()
                switch tx.typeName(of: id) {
                case Folder.typeName: folders.append(id)
                case File.typeName: files.append(id)
                default: break
                }
            }
            return (folders, files)
        }
    }

    /// One random write: a new folder or file, typing or deleting text, a field update, a
    /// move or (rarely) a delete.
    static func randomEdit(_ store: Store, _ random: inout SplitMix64) throws {
        let (folders, files) = try liveNodes(store)
        let serial = random.next() % 10_000
        func parent(_ random: inout SplitMix64) -> RecordID? {
            folders.isEmpty || random.next() % 4 == 0 ? nil : folders.randomElement(using: &random)
        }
        let choice = files.isEmpty ? Int(random.next() % 2) : Int(random.next() % 8)
        try store.write { tx in
            switch choice {
            case 0:
                try tx.insert(Folder(name: "Folder \(serial)"), under: parent(&random))
            case 1:
                let file = try tx.insert(File(name: "File \(serial)", status: "draft", rating: 0), under: parent(&random))
                try tx.insert("Text \(serial). ", at: 0, in: file.text("content"))
            case 2, 3:
                let text = files.randomElement(using: &random)!.text("content")
                let position = Int.random(in: 0...(try tx.length(of: text)), using: &random)
                try tx.insert(["word ", "x", "Zeile ", "ü", "🙂"].randomElement(using: &random)!, at: position, in: text)
            case 4:
                let text = files.randomElement(using: &random)!.text("content")
                let length = try tx.length(of: text)
                guard length > 0 else { return }
                let start = Int.random(in: 0..<length, using: &random)
                try tx.delete(start..<min(length, start + Int.random(in: 1...4, using: &random)), in: text)
            case 5:
                try tx.update(files.randomElement(using: &random)!, as: File.self) {
                    $0.status = ["draft", "ready", "published"].randomElement(using: &random)!
                    $0.rating = Int(serial % 5)
                }
            case 6:
                try tx.move(files.randomElement(using: &random)!, to: parent(&random))
            default:
                if random.next() % 3 == 0 { try tx.delete(files.randomElement(using: &random)!) }
            }
        }
    }

    /// The names of the entries of `folder/subfolder`, sorted.
    static func entries(_ folder: String, _ subfolder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder + "/" + subfolder).sorted()
    }

    /// The delta files of `replica` in the folder, sorted by first counter.
    static func deltaFiles(_ folder: String, of replica: ReplicaID) throws -> [String] {
        try entries(folder, replica.description).filter { $0.wholeMatch(of: /[0-9]+-[0-9]+\.qdelta/) != nil }
            .sorted { first(of: $0) < first(of: $1) }
    }

    /// The first counter in a delta file's name.
    static func first(of name: String) -> UInt64 { UInt64(name.prefix { $0 != "-" })! }

    static func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
