import Foundation

/// What a sync folder holds, as `quire status --folder` shows it: per replica subfolder,
/// its delta files and its acknowledgement. Read-only; the layout is in `docs/format.md`
/// ("The sync folder"): `FOLDER/<replica>/<first>-<last>.qdelta` and `FOLDER/<replica>/ack`.
struct SyncFolderState: Encodable {
    /// One replica's subfolder.
    struct Replica: Encodable {
        var replica: String
        var delta_files: Int
        var delta_bytes: Int
        /// The next counter after its highest delta file; 0 without delta files.
        var files_up_to: UInt64
        /// Its acknowledgement (replica → next counter); `nil` without a readable `ack`.
        var ack: [String: UInt64]?
        /// Why the `ack` could not be read, if it could not.
        var ack_problem: String?
        /// Entries that are not part of the layout (temporary files, conflict copies …).
        var other_entries: Int
    }

    var path: String
    var replicas: [Replica]

    /// Reads the folder at `path`.
    ///
    /// - Throws: ``Failure`` when the folder cannot be listed.
    static func read(_ path: String) throws -> SyncFolderState {
        let manager = FileManager.default
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: path)
        } catch {
            throw Failure(description: "cannot list the sync folder \(path) (\(error.localizedDescription)); check the path, or run 'quire sync \(path)' to create it")
        }
        var replicas: [Replica] = []
        for name in names.sorted() where name.count == 16 && name.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) {
            let folder = path + "/" + name
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            var replica = Replica(replica: name, delta_files: 0, delta_bytes: 0, files_up_to: 0, other_entries: 0)
            for entry in (try? manager.contentsOfDirectory(atPath: folder)) ?? [] {
                let entryPath = folder + "/" + entry
                if entry == "ack" {
                    do {
                        let version = try VersionFile.read(entryPath).version
                        replica.ack = Dictionary(uniqueKeysWithValues: version.counters.map { ($0.key.description, $0.value) })
                    } catch {
                        replica.ack_problem = "\(error)"
                    }
                } else if let last = Self.lastCounter(ofDeltaFile: entry) {
                    replica.delta_files += 1
                    replica.delta_bytes += (try? manager.attributesOfItem(atPath: entryPath)[.size] as? Int) ?? 0
                    replica.files_up_to = max(replica.files_up_to, last + 1)
                } else {
                    replica.other_entries += 1
                }
            }
            replicas.append(replica)
        }
        return SyncFolderState(path: path, replicas: replicas)
    }

    /// `last` of a name `<first>-<last>.qdelta`, or `nil` for another name.
    static func lastCounter(ofDeltaFile name: String) -> UInt64? {
        guard name.hasSuffix(".qdelta") else { return nil }
        let parts = name.dropLast(".qdelta".count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = UInt64(parts[0]), let last = UInt64(parts[1]), first <= last,
              parts.allSatisfy({ $0.allSatisfy(\.isNumber) })
        else { return nil }
        return last
    }

    /// The state as aligned lines, this replica's marked.
    func lines(thisReplica: String) -> [String] {
        var lines = ["sync folder \(path): " + (replicas.isEmpty ? "no replica has synced yet" : "\(replicas.count) replica(s)")]
        for replica in replicas {
            var line = "  \(replica.replica)  \(replica.delta_files) delta file(s), \(replica.delta_bytes) bytes"
            if replica.delta_files > 0 { line += ", up to counter \(replica.files_up_to)" }
            if let ack = replica.ack {
                line += "; ack: " + (ack.isEmpty ? "empty" : ack.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            } else if let problem = replica.ack_problem {
                line += "; ack unreadable (\(problem))"
            } else {
                line += "; no ack yet"
            }
            if replica.other_entries > 0 { line += "; \(replica.other_entries) other entr(ies) ignored" }
            if replica.replica == thisReplica { line += "  (this replica)" }
            lines.append(line)
        }
        return lines
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }
}
