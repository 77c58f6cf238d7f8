import Foundation
import QuireCore

/// Names in a sync folder (`docs/format.md`, "The sync folder"):
///
/// ```
/// FOLDER/
///   <replica>/                    16 lowercase hex digits; written only by that replica
///     <first>-<last>.qdelta       its changes first…last (counters, decimal, inclusive)
///     ack                         its acknowledgement (see SyncAcknowledgement)
/// ```
///
/// A file-sync engine's conflict copies of these files are recognised by the names the
/// engines give them (``conflictOriginal(_:)``); anything else is ignored: temporary
/// files of writes in progress, files and folders of other tools.
enum SyncFolderLayout {
    static let deltaExtension = ".qdelta"
    static let acknowledgementName = "ack"
    /// The largest file a sync reads (a delta file's payload limit plus its header).
    static let maximumFileSize = DeltaFile.maximumPayload + (1 << 20)

    /// One replica's delta file, as its name says.
    struct DeltaName: Hashable, Comparable {
        var first: UInt64
        var last: UInt64

        var fileName: String { "\(first)-\(last)\(SyncFolderLayout.deltaExtension)" }
        /// The replica's next counter once the file is imported.
        var end: UInt64 { last + 1 }

        func overlaps(_ other: DeltaName) -> Bool { first <= other.last && other.first <= last }

        static func < (lhs: DeltaName, rhs: DeltaName) -> Bool { (lhs.first, lhs.last) < (rhs.first, rhs.last) }
    }

    /// What an entry of a replica's subfolder is.
    enum Entry: Hashable {
        case delta(DeltaName)
        case acknowledgement
        /// A file-sync engine's copy of a conflicting version of a delta file (`original`)
        /// or of the `ack` (`original == nil`).
        case conflictCopy(original: DeltaName?)
        case ignored(SyncReport.SkipReason)
    }

    /// The replica a subfolder belongs to: exactly 16 lowercase hex digits.
    static func replica(folderName name: String) -> ReplicaID? {
        guard name.utf8.count == 16, name.utf8.allSatisfy(isLowercaseHex), let value = UInt64(name, radix: 16) else { return nil }
        return ReplicaID(value)
    }

    static func folderName(_ replica: ReplicaID) -> String { replica.description }

    /// Classifies a name inside a replica's subfolder.
    static func entry(_ name: String) -> Entry {
        if name == acknowledgementName { return .acknowledgement }
        if let delta = deltaName(name) { return .delta(delta) }
        if name.hasPrefix(".") || name.hasSuffix(".tmp") || name.hasSuffix(".part") { return .ignored(.temporaryFile) }
        if let original = conflictOriginal(name) {
            return .conflictCopy(original: original == acknowledgementName ? nil : deltaName(original))
        }
        return .ignored(.unrecognizedName)
    }

    /// `<first>-<last>.qdelta` with decimal counters without leading zeros, first ≤ last.
    static func deltaName(_ name: String) -> DeltaName? {
        guard name.hasSuffix(deltaExtension) else { return nil }
        let stem = name.dropLast(deltaExtension.count)
        let parts = stem.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = counter(parts[0]), let last = counter(parts[1]), first <= last,
            last < UInt64.max
        else { return nil }
        return DeltaName(first: first, last: last)
    }

    /// The file of the layout (`ack` or `<first>-<last>.qdelta`) a conflict copy was made
    /// of, or `nil` when `name` is not a conflict copy of one. The engines' names:
    ///
    /// | engine | copy of `ack` | copy of `12-40.qdelta` |
    /// |---|---|---|
    /// | Syncthing | `ack.sync-conflict-20240101-120000-ABCDEFG` | `12-40.sync-conflict-20240101-120000-ABCDEFG.qdelta` |
    /// | Dropbox | `ack (Ann's conflicted copy 2024-01-01)` | `12-40 (Ann's conflicted copy 2024-01-01).qdelta` |
    /// | iCloud Drive | `ack 2` | `12-40 2.qdelta` |
    static func conflictOriginal(_ name: String) -> String? {
        let isDelta = name.hasSuffix(deltaExtension)
        let stem = isDelta ? String(name.dropLast(deltaExtension.count)) : name
        let stripped: Substring
        if let match = stem.wholeMatch(of: /(.+)\.sync-conflict-[0-9]{8}-[0-9]{6}-[A-Za-z0-9]+/) {
            stripped = match.output.1
        } else if let match = stem.wholeMatch(of: /(.+) \([^()]*conflicted copy[^()]*\)/) {
            stripped = match.output.1
        } else if let match = stem.wholeMatch(of: /(.+) [0-9]+/) {
            stripped = match.output.1
        } else {
            return nil
        }
        let original = String(stripped) + (isDelta ? deltaExtension : "")
        if !isDelta { return original == acknowledgementName ? original : nil }
        return deltaName(original) == nil ? nil : original
    }

    private static func counter(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), text == "0" || !text.hasPrefix("0") else {
            return nil
        }
        return UInt64(text)
    }

    static func isLowercaseHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }
}
