import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

/// Two versions of an app's record types on two devices: each store is a real directory,
/// and the devices exchange delta files (`exportDelta` / `importDelta`), as apps do.
enum AppVersions {
    /// Version 1 of a task.
    struct TaskV1: Record, Equatable {
        static let typeName = "spec.task"
        var title: String
    }

    /// Version 2 adds an optional due date (synthesized Codable: `nil` is not encoded).
    struct TaskV2: Record, Equatable {
        static let typeName = "spec.task"
        var title: String
        var dueDate: Date?
    }

    /// Version 1 of a diary entry and its moods.
    struct DiaryV1: Record, Equatable {
        static let typeName = "spec.diary"
        enum Mood: String, Codable, Sendable { case happy, sad }
        var title: String
        var mood: Mood
    }

    /// Version 2 adds a mood.
    struct DiaryV2: Record, Equatable {
        static let typeName = "spec.diary"
        enum Mood: String, Codable, Sendable { case happy, sad, anxious }
        var title: String
        var mood: Mood
    }

    /// Version 3 adds a flag.
    struct TaskV3: Record, Equatable {
        static let typeName = "spec.task"
        var title: String
        var dueDate: Date?
        var done: Bool?
    }

    /// Version 2 with a hand-written decoder that asks `contains` before decoding the
    /// date (and a synthesized encoder, which skips `nil`).
    struct TaskV2Custom: Record, Equatable {
        static let typeName = "spec.task"
        var title: String
        var dueDate: Date?
        enum CodingKeys: String, CodingKey { case title, dueDate }

        init(title: String, dueDate: Date?) {
            self.title = title
            self.dueDate = dueDate
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            title = try container.decode(String.self, forKey: .title)
            if container.contains(.dueDate), try !container.decodeNil(forKey: .dueDate) {
                dueDate = try container.decode(Date.self, forKey: .dueDate)
            } else {
                dueDate = nil
            }
        }
    }

    /// A task whose decoder reads its top level as one value: its keys are not known.
    struct TaskWrapped: Record, Equatable {
        static let typeName = "spec.task"
        var task: TaskV2

        init(task: TaskV2) { self.task = task }
        init(from decoder: any Decoder) throws { task = try decoder.singleValueContainer().decode(TaskV2.self) }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(task)
        }
    }

    static let monday = Date(timeIntervalSinceReferenceDate: 800_000_000)
    static let friday = monday + 4 * 86_400

    /// Sends the delta file of what `from` has and `to` lacks; `to`'s merge report.
    @discardableResult
    static func deliver(_ from: Store, to: Store) throws -> MergeReport {
        guard let delta = try from.exportDelta(since: to.version) else { return MergeReport() }
        return try to.importDelta(delta)
    }

    /// How an older app writes a record it read.
    enum OldWrite: String, CaseIterable, CustomTestStringConvertible {
        case update, emptyUpdate, replace
        var testDescription: String { rawValue }

        func apply(to id: RecordID, in store: Store) throws {
            try store.write { tx throws in
                switch self {
                case .update: try tx.update(id, as: TaskV1.self) { $0.title = "Call Ada" }
                case .emptyUpdate: try tx.update(id, as: TaskV1.self) { _ in }
                case .replace: try tx.replace(id, with: TaskV1(title: "Call Ada"))
                }
            }
        }

        var title: String { self == .emptyUpdate ? "Call" : "Call Ada" }
    }
}

@Suite("Store: records across app versions")
struct StoreAppVersionTests {
    typealias TaskV1 = AppVersions.TaskV1
    typealias TaskV2 = AppVersions.TaskV2
    typealias DiaryV1 = AppVersions.DiaryV1
    typealias DiaryV2 = AppVersions.DiaryV2
    static let monday = AppVersions.monday
    static let friday = AppVersions.friday

    @Test("an older version's update, empty update or replace keeps a field a newer version set", arguments: AppVersions.OldWrite.allCases)
    func oldWriteAfterNew(_ write: AppVersions.OldWrite) throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (new, old) = (replicas[0], replicas[1])
        let id = try new.write { tx in try tx.insert(TaskV2(title: "Call", dueDate: Self.monday)) }
        try AppVersions.deliver(new, to: old)

        try write.apply(to: id, in: old)
        #expect(try old.read { tx in try tx.record(TaskV1.self, id) } == TaskV1(title: write.title))
        let report = try AppVersions.deliver(old, to: new)
        #expect(report.overwritten.isEmpty)
        for store in [new, old] {
            #expect(try store.read { tx in try tx.record(TaskV2.self, id) } == TaskV2(title: write.title, dueDate: Self.monday))
        }
        #expect(try replicas.reopen(0).read { tx in try tx.record(TaskV2.self, id) } == TaskV2(title: write.title, dueDate: Self.monday))
    }

    @Test("a newer version's write after an older one's keeps its field through the older version's next write")
    func newWriteAfterOld() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (new, old) = (replicas[0], replicas[1])
        let id = try old.write { tx in try tx.insert(TaskV1(title: "Call")) }
        try AppVersions.deliver(old, to: new)
        #expect(try new.read { tx in try tx.record(TaskV2.self, id) } == TaskV2(title: "Call", dueDate: nil))

        try new.write { tx in try tx.update(id, as: TaskV2.self) { $0.dueDate = Self.monday; $0.title = "Call Ada" } }
        try AppVersions.deliver(new, to: old)
        #expect(try old.read { tx in try tx.record(TaskV1.self, id) } == TaskV1(title: "Call Ada"))

        try old.write { tx in try tx.update(id, as: TaskV1.self) { $0.title = "Call Ada back" } }
        #expect(try AppVersions.deliver(old, to: new).overwritten.isEmpty)
        for store in [new, old] {
            #expect(try store.read { tx in try tx.record(TaskV2.self, id) } == TaskV2(title: "Call Ada back", dueDate: Self.monday))
        }
    }

    @Test("concurrent edits of an older and a newer version merge field by field, nothing reported overwritten")
    func concurrentVersions() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (new, old) = (replicas[0], replicas[1])
        let id = try new.write { tx in try tx.insert(TaskV2(title: "Call", dueDate: Self.monday)) }
        try AppVersions.deliver(new, to: old)

        // Both offline: the newer app moves the date, the older one renames.
        try new.write { tx in try tx.update(id, as: TaskV2.self) { $0.dueDate = Self.friday } }
        try old.write { tx in try tx.update(id, as: TaskV1.self) { $0.title = "Call Ada" } }
        let intoOld = try AppVersions.deliver(new, to: old)
        let intoNew = try AppVersions.deliver(old, to: new)
        #expect(intoOld.overwritten.isEmpty && intoNew.overwritten.isEmpty)
        for store in [new, old] {
            #expect(try store.read { tx in try tx.record(TaskV2.self, id) } == TaskV2(title: "Call Ada", dueDate: Self.friday))
            #expect(try store.read { tx in try tx.record(TaskV1.self, id) } == TaskV1(title: "Call Ada"))
        }

        // Both offline again: the newer app clears the date, the older one renames.
        try new.write { tx in try tx.update(id, as: TaskV2.self) { $0.dueDate = nil } }
        try old.write { tx in try tx.replace(id, with: TaskV1(title: "Call Bob")) }
        try AppVersions.deliver(old, to: new)
        try AppVersions.deliver(new, to: old)
        for store in [new, old] {
            #expect(try store.read { tx in try tx.record(TaskV2.self, id) } == TaskV2(title: "Call Bob", dueDate: nil))
        }
    }

    @Test("a newer version setting its optional field to nil clears it everywhere; an older version's write does not bring it back")
    func newVersionClears() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (new, old) = (replicas[0], replicas[1])
        let (updated, replaced) = try new.write { tx throws in
            (try tx.insert(TaskV2(title: "Call", dueDate: Self.monday)), try tx.insert(TaskV2(title: "Write", dueDate: Self.friday)))
        }
        try AppVersions.deliver(new, to: old)

        try new.write { tx throws in
            try tx.update(updated, as: TaskV2.self) { $0.dueDate = nil }
            try tx.replace(replaced, with: TaskV2(title: "Write", dueDate: nil))
        }
        #expect(try new.read { tx in try tx.all(TaskV2.self).map(\.dueDate) } == [nil, nil])
        try AppVersions.deliver(new, to: old)
        #expect(try old.read { tx in try tx.all(TaskV2.self).map(\.dueDate) } == [nil, nil])

        try old.write { tx throws in
            try tx.update(updated, as: TaskV1.self) { $0.title = "Call Ada" }
            try tx.replace(replaced, with: TaskV1(title: "Write it"))
        }
        try AppVersions.deliver(old, to: new)
        let expected = [TaskV2(title: "Call Ada", dueDate: nil), TaskV2(title: "Write it", dueDate: nil)]
        for store in [new, old] {
            #expect(try store.read { tx in try tx.all(TaskV2.self).map(\.value) } == expected)
        }
        #expect(try replicas.reopen(0).read { tx in try tx.all(TaskV2.self).map(\.value) } == expected)
    }

    @Test("a hand-written decoder clears the fields it asks for (contains, decodeNil) and keeps a newer version's")
    func handWrittenDecoder() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (newest, custom) = (replicas[0], replicas[1])
        let id = try newest.write { tx in try tx.insert(AppVersions.TaskV3(title: "Call", dueDate: Self.monday, done: true)) }
        try AppVersions.deliver(newest, to: custom)
        try custom.write { tx in try tx.update(id, as: AppVersions.TaskV2Custom.self) { $0.dueDate = nil } }
        try AppVersions.deliver(custom, to: newest)
        #expect(try newest.read { tx in try tx.record(AppVersions.TaskV3.self, id) } == AppVersions.TaskV3(title: "Call", dueDate: nil, done: true))
    }

    @Test("a type that decodes its top level as a single value clears no field: an optional set to nil keeps its old value")
    func unkeyedTopLevel() throws {
        let replicas = try Replicas(1)
        defer { replicas.close() }
        let store = replicas[0]
        let id = try store.write { tx in try tx.insert(AppVersions.TaskV3(title: "Call", dueDate: Self.monday, done: true)) }
        try store.write { tx in try tx.replace(id, with: AppVersions.TaskWrapped(task: TaskV2(title: "Call Ada", dueDate: nil))) }
        #expect(try store.read { tx in try tx.record(AppVersions.TaskV3.self, id) } == AppVersions.TaskV3(title: "Call Ada", dueDate: Self.monday, done: true))
    }

    @Test("a new enum case fails all(_:) for its record only: allDecodable lists the others and names it")
    func undecodableRecords() throws {
        let replicas = try Replicas(2)
        defer { replicas.close() }
        let (new, old) = (replicas[0], replicas[1])
        let (calm, worried, sad, deletedWorry) = try new.write { tx throws in
            (try tx.insert(DiaryV2(title: "Calm", mood: .happy)),
             try tx.insert(DiaryV2(title: "Worried", mood: .anxious)),
             try tx.insert(DiaryV2(title: "Sad", mood: .sad)),
             try tx.insert(DiaryV2(title: "Old worry", mood: .anxious)))
        }
        try new.write { tx in try tx.delete(deletedWorry) }
        try AppVersions.deliver(new, to: old)

        try old.read { tx throws in
            let error = try #require(throws: StoreError.self) { try tx.all(DiaryV1.self) }
            guard case .decodingFailed(let record, let type, _) = error else {
                Issue.record("expected decodingFailed, got \(error)")
                return
            }
            #expect(record == worried && type == DiaryV1.typeName)
            #expect(throws: StoreError.self) { try tx.get(DiaryV1.self, worried) }

            let entries = tx.allDecodable(DiaryV1.self)
            #expect(entries.records.map(\.id) == [calm, sad])
            #expect(entries.records.map(\.value) == [DiaryV1(title: "Calm", mood: .happy), DiaryV1(title: "Sad", mood: .sad)])
            #expect(entries.undecodable.map(\.id) == [worried])
            #expect(entries.undecodable.first?.error == error)
            #expect(entries.undecodable.first?.description.contains("anxious") == true)

            let happy = tx.allDecodable(DiaryV1.self) { $0.mood == .happy }
            #expect(happy.records.map(\.id) == [calm] && happy.undecodable.map(\.id) == [worried])
            let withTrash = tx.allDecodable(DiaryV1.self, includingDeleted: true)
            #expect(withTrash.records.map(\.id) == [calm, sad])
            #expect(withTrash.undecodable.map(\.id) == [worried, deletedWorry].sorted())
        }
        // The newer version still reads every record; once the case is one the older
        // version knows, the older version reads it again.
        #expect(try new.read { tx in try tx.all(DiaryV2.self).count } == 3)
        try new.write { tx in try tx.update(worried, as: DiaryV2.self) { $0.mood = .sad } }
        try AppVersions.deliver(new, to: old)
        #expect(try old.read { tx in try tx.all(DiaryV1.self).map(\.id) } == [calm, worried, sad])
    }

    @Test("allDecodable passes on what its filter throws")
    func allDecodableRethrows() throws {
        struct Refused: Error {}
        let replicas = try Replicas(1)
        defer { replicas.close() }
        try replicas[0].write { tx in try tx.insert(DiaryV1(title: "Calm", mood: .happy)) }
        try replicas[0].read { tx throws in
            #expect(throws: Refused.self) { try tx.allDecodable(DiaryV1.self) { _ in throw Refused() } }
        }
    }
}
