import QuireCore

/// A replica's `ack` file: what it has, so the others know which of their delta files
/// every replica has imported. UTF-8 text, lines ending in `\n`:
///
/// ```
/// quire-ack 1
/// store 6f1c…(32 lowercase hex digits)
/// 0000000000000001 17
/// 00000000000000a2 4
/// ```
///
/// The first line names the format and its version; then the store ID; then one line per
/// replica, sorted, with its next counter in decimal (replicas at 0 are left out). The
/// writer's own line says how far its delta files in the folder go (not how far its store
/// goes): the acknowledgement never claims more than the folder can give.
struct SyncAcknowledgement: Hashable, Sendable {
    static let header = "quire-ack 1"
    /// The largest acknowledgement read: one line per replica, far more than any store has.
    static let maximumSize = 1 << 20

    var storeID: StoreID
    var version: VersionVector

    func encoded() -> [UInt8] {
        var lines = [Self.header, "store \(storeID)"]
        for (replica, counter) in version.counters.sorted(by: { $0.key < $1.key }) {
            lines.append("\(replica) \(counter)")
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Parses an acknowledgement.
    ///
    /// - Throws: A description of the first problem found.
    static func decode(_ bytes: [UInt8]) throws(SyncProblem) -> SyncAcknowledgement {
        guard bytes.count <= maximumSize else { throw .init("malformed acknowledgement: \(bytes.count) bytes, more than the limit \(maximumSize)") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .init("malformed acknowledgement: not UTF-8 text") }
        guard text.hasSuffix("\n") else { throw .init("malformed acknowledgement: the last line is incomplete (truncated?)") }
        var lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard lines.popFirst() == Substring(header) else { throw .init("malformed acknowledgement: the first line is not \"\(header)\"") }
        guard let storeLine = lines.popFirst(), storeLine.hasPrefix("store "),
            let storeID = storeID(storeLine.dropFirst("store ".count))
        else { throw .init("malformed acknowledgement: the second line is not \"store\" and 32 hex digits") }
        var version = VersionVector()
        var previous: ReplicaID?
        for (index, line) in lines.enumerated() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 2, let replica = SyncFolderLayout.replica(folderName: String(fields[0])),
                fields[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let counter = UInt64(fields[1]), counter > 0
            else { throw .init("malformed acknowledgement: line \(index + 3) is not a replica (16 hex digits) and a counter") }
            guard previous.map({ $0 < replica }) ?? true else { throw .init("malformed acknowledgement: line \(index + 3): replicas out of order") }
            previous = replica
            version[replica] = counter
        }
        return SyncAcknowledgement(storeID: storeID, version: version)
    }

    private static func storeID(_ hex: Substring) -> StoreID? {
        let digits = Array(hex.utf8)
        guard digits.count == 2 * StoreID.byteCount, digits.allSatisfy(SyncFolderLayout.isLowercaseHex) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return StoreID(bytes: bytes)
    }
}
