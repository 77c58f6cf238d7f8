import Foundation
import Quire
import QuireCore

/// A replica's version written down: what it has of each replica, so another replica can
/// export just what it lacks (`quire status --version-out FILE` writes one,
/// `quire export --since FILE` reads one).
///
/// UTF-8 text, one item per line, in the line syntax of a sync folder's `ack` file (which
/// `--since` reads as well); blank lines and lines starting with `#` are ignored:
///
/// ```
/// quire-version 1                    (or "quire-ack 1" in a sync folder's ack file)
/// store 5f0c1e…                      (the store ID, 32 hex digits; optional)
/// 3a9d52c01b7e4f66 1204              (replica ID in 16 hex digits, its next counter)
/// 8b1f00d2c4a3e950 17
/// ```
struct VersionFile: Hashable {
    /// The first line of every version file.
    static let header = "quire-version 1"
    /// The first line of a sync folder's acknowledgement, read the same way.
    static let acknowledgementHeader = "quire-ack 1"
    /// The largest file read; a version of 10,000 replicas takes about 430 KB.
    static let maximumBytes = 1 << 20

    /// The store the version belongs to, as hexadecimal text; `nil` if the file names none.
    var storeID: String?
    /// What the replica has of each replica.
    var version: VersionVector

    /// A version file that cannot be used, naming the line at fault.
    struct Failure: Error, CustomStringConvertible {
        var path: String
        var problem: String
        var description: String {
            "\(path) is not a usable version file: \(problem); write one with 'quire status --version-out FILE' on the other replica"
        }
    }

    /// The file's text.
    var text: String {
        var text = Self.header + "\n"
        if let storeID { text += "store \(storeID)\n" }
        for (replica, counter) in version.counters.sorted(by: { $0.key < $1.key }) where counter > 0 {
            text += "\(replica) \(counter)\n"
        }
        return text
    }

    /// Reads the version file at `path`.
    ///
    /// - Throws: ``Failure`` for a file that cannot be read, is too large, or does not
    ///   follow the format.
    static func read(_ path: String) throws -> VersionFile {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Failure(path: path, problem: "it cannot be read (\(error.localizedDescription))")
        }
        guard bytes.count <= maximumBytes else {
            throw Failure(path: path, problem: "it is \(bytes.count) bytes, more than the \(maximumBytes) a version file may have")
        }
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw Failure(path: path, problem: "it is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// Parses version file text.
    static func parse(_ text: String, path: String) throws(Failure) -> VersionFile {
        var sawHeader = false
        var file = VersionFile(storeID: nil, version: VersionVector())
        var counters: [ReplicaID: UInt64] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            let number = index + 1
            guard sawHeader else {
                guard line == header || line == acknowledgementHeader else {
                    throw Failure(path: path, problem: "line \(number) should be '\(header)'")
                }
                sawHeader = true
                continue
            }
            switch words.first {
            case "store":
                guard words.count == 2, words[1].count == 32, words[1].allSatisfy(\.isHexDigit), file.storeID == nil else {
                    throw Failure(path: path, problem: "line \(number): expected 'store' and 32 hexadecimal digits, once")
                }
                file.storeID = words[1].lowercased()
            case let word? where words.count == 2 && word.count == 16 && word.allSatisfy(\.isHexDigit):
                guard let replica = UInt64(word, radix: 16), replica != 0, let counter = UInt64(words[1]) else {
                    throw Failure(path: path, problem: "line \(number): expected a replica ID (16 hex digits, not 0) and its next counter")
                }
                guard counters.updateValue(counter, forKey: ReplicaID(replica)) == nil else {
                    throw Failure(path: path, problem: "line \(number): replica \(word) appears twice")
                }
            default:
                throw Failure(path: path, problem: "line \(number): expected 'store' and the store ID, or a replica ID (16 hex digits) and its next counter")
            }
        }
        guard sawHeader else { throw Failure(path: path, problem: "it is empty; expected '\(header)' on its first line") }
        file.version = VersionVector(counters)
        return file
    }
}
