import Foundation
import Quire
import QuireApps
import QuireTestSupport
import Testing

/// Stores written before format 2 (the compact hierarchy): refused with how to move them
/// over, untouched, and movable through a full delta file.
@Suite("Store format: a format-1 store")
struct StoreFormatTests {
    /// Tests/QuireTests/Fixtures: a store made by the Quire of 2026-12-01 (format 1) with
    /// `quire project create "My Poetry" --type poetry`, and the delta file its
    /// `quire export --all` wrote.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    @Test("opening a format-1 store is refused with a message that says how to move it over, and changes no byte")
    func refused() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path + "/old.quire"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let original = try Data(contentsOf: Self.fixtures.appendingPathComponent("format-1-store/data.mdb"))
        try original.write(to: URL(fileURLWithPath: store + "/data.mdb"))
        do {
            _ = try Store(directory: store)
            Issue.record("a format-1 store was opened")
        } catch let error as StoreError {
            guard case .unsupportedFormat(found: 1, supported: 5) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(error.description.contains("format version 1"))
            #expect(error.description.contains("quire export --store OLD --all"))
            #expect(error.description.contains("quire import --store NEW"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")) == original)
    }

    @Test("the full delta file a format-1 store exported imports into a new store: the project and its 15 folders")
    func movedOver() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(directory: directory.path + "/new.quire")
        defer { try? store.close() }
        let delta = try Data(contentsOf: Self.fixtures.appendingPathComponent("format-1-store-all.qdelta"))
        _ = try store.importDelta(Array(delta))
        try store.read { tx in
            let projects = tx.children(of: nil)
            #expect(projects.count == 1)
            let project = try tx.record(Project.self, projects[0])
            #expect(project.name == "My Poetry")
            #expect(tx.subtree(of: projects[0]).count == 16)
            #expect(tx.children(of: projects[0]).compactMap { try? tx.record(Folder.self, $0).name }
                == ["Your Poetry", "Publications", "Trash"])
        }
        #expect(try store.verify().isHealthy)
    }
}
