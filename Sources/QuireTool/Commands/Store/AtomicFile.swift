import Foundation

/// Writing a file whole or not at all: the bytes go to a temporary file beside the
/// target, are flushed to disk, and the temporary file is renamed over the target, so a
/// reader (or a file-sync engine) never sees a partly written file.
enum AtomicFile {
    /// A file that could not be written.
    struct Failure: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "cannot write \(path): \(reason); check that its folder exists and is writable" }
    }

    /// Writes `bytes` to `path` through a temporary file and a rename.
    ///
    /// - Throws: ``Failure`` naming the path and the reason; the target is then untouched.
    static func write(_ bytes: [UInt8], to path: String) throws {
        let target = URL(fileURLWithPath: path)
        let temporary = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw Failure(path: path, reason: "cannot create \(temporary.lastPathComponent) beside it")
            }
            let handle = try FileHandle(forWritingTo: temporary)
            do {
                try handle.write(contentsOf: Data(bytes))
                try handle.synchronize()
                try handle.close()
            } catch {
                try? handle.close()
                throw error
            }
            if rename(temporary.path, target.path) != 0 {
                throw Failure(path: path, reason: String(cString: strerror(errno)))
            }
        } catch let failure as Failure {
            try? FileManager.default.removeItem(at: temporary)
            throw failure
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw Failure(path: path, reason: error.localizedDescription)
        }
    }
}
