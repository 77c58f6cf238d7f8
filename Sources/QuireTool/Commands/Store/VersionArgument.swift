import Foundation
import Quire

/// A store version given on the command line (`cat --at`, `diff --from/--to`,
/// `restore --to`): the path of a version file (`quire status --version-out FILE`), or
/// the same pairs inline, `REPLICA:COUNTER[,REPLICA:COUNTER…]` (replica IDs in 16 hex
/// digits), or `now` for the store's current version.
struct VersionArgument: Hashable {
    /// The text as given, for messages.
    var text: String
    /// The file's path, when the text names a file.
    var path: String?

    init(_ value: ArgumentValue) throws(UsageError) {
        text = value.text
        let path = try value.path()
        self.path = FileManager.default.fileExists(atPath: path) || Self.inline(text) == nil && text != "now" ? path : nil
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
        return Self.inline(text)!
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
    static let help = "A version file ('quire status --version-out FILE'), REPLICA:COUNTER,… or 'now'."
}
