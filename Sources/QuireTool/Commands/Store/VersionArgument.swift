import Foundation
import Quire

/// A store version given on the command line (`cat --at`, `diff --from/--to`,
/// `restore --to`): the path of a version file (`quire status --version-out FILE`), or
/// the same pairs inline, `REPLICA:COUNTER[,REPLICA:COUNTER…]` (replica IDs in 16 hex
/// digits), `now` for the store's current version, or a time — ISO 8601 in UTC unless
/// it names a zone (`2026-12-01T14:30:00Z`, `2026-12-01T14:30`, `2026-12-01 14:30:05+01:00`,
/// `2026-12-01` for the start of that day) — for the version as of then
/// (``StoreReading/version(at:)``: every change made by then, by its replica's clock).
struct VersionArgument: Hashable {
    /// The text as given, for messages.
    var text: String
    /// The file's path, when the text names a file.
    var path: String?

    init(_ value: ArgumentValue) throws(UsageError) {
        text = value.text
        let path = try value.path()
        let isFile = FileManager.default.fileExists(atPath: path)
        self.path = isFile || Self.inline(text) == nil && text != "now" && Self.time(text) == nil ? path : nil
    }

    /// The version in `store`.
    ///
    /// - Throws: ``VersionFile/Failure`` for an unusable file, ``AppError`` for a version
    ///   file of another store.
    func version(in store: Store) throws -> VersionVector {
        if let path {
            let file = try VersionFile.read(path)
            if let other = file.storeID, other != store.storeID.description, file.version.operationCount > 0 {
                throw AppError("\(path) is a version of another store (store \(other)); this one is \(store.storeID.description) — write a version of this store with 'quire status --version-out FILE'")
            }
            return file.version
        }
        if text == "now" { return store.version }
        if let date = Self.time(text) { return try store.read { tx in try tx.version(at: date) } }
        return Self.inline(text)!
    }

    /// The moment `text` names in ISO 8601 (see the type's documentation), or `nil`.
    static func time(_ text: String) -> Date? {
        var value = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "T")
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        guard value.count > 10 else {
            formatter.formatOptions = [.withFullDate]
            return value.count == 10 ? formatter.date(from: value) : nil
        }
        // The time of day and its zone: HH:MM[:SS][Z|±HH:MM].
        let clock = value.dropFirst(11)
        let zoneStart = clock.firstIndex { $0 == "Z" || $0 == "+" || $0 == "-" }
        let timeOfDay = zoneStart.map { clock[..<$0] } ?? clock
        var zone = zoneStart.map { String(clock[$0...]) } ?? "Z"
        if zone == "z" { zone = "Z" }
        let seconds = timeOfDay.count == 5 ? ":00" : ""
        value = String(value.prefix(11)) + timeOfDay + seconds + zone
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: value)
    }

    /// The pairs `REPLICA:COUNTER`, comma-separated, or `nil` when `text` is not of that form.
    static func inline(_ text: String) -> VersionVector? {
        var counters: [ReplicaID: UInt64] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: ":")
            guard parts.count == 2, parts[0].count == 16, let replica = UInt64(parts[0], radix: 16), replica != 0,
                let counter = UInt64(parts[1]), counters.updateValue(counter, forKey: ReplicaID(replica)) == nil
            else { return nil }
        }
        return counters.isEmpty ? nil : VersionVector(counters)
    }

    /// The option's help, shared by the commands that take a version.
    static let help = "A version file ('quire status --version-out FILE'), REPLICA:COUNTER,…, 'now', or a time (2026-12-01T14:30Z; UTC unless a zone is given)."
}
