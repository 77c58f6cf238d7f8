import Foundation

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// defer { directory.remove() }
/// let store = directory.path + "/store"
/// ```
public struct TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Creates a new, empty, uniquely named directory.
    public init(prefix: String = "quire-test") throws {
        let base = FileManager.default.temporaryDirectory.path
        let url = URL(fileURLWithPath: base).appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    /// A path inside the directory.
    public func appending(_ component: String) -> String {
        URL(fileURLWithPath: path).appendingPathComponent(component).path
    }

    /// Removes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a fresh temporary directory and removes it afterwards.
public func withTemporaryDirectory<R>(_ body: (TemporaryDirectory) throws -> R) throws -> R {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try body(directory)
}
