import Foundation

/// Finds executables that SwiftPM built next to the running test bundle.
public enum BuiltProducts {
    /// The build products directory (e.g. `.build/debug`), found from the test process's
    /// own executable path.
    public static var directory: URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var candidate = executable.deletingLastPathComponent()
        // On Linux the test runner is `<products>/QuirePackageTests.xctest`; on Darwin
        // it sits deeper inside the bundle. Walk up to the directory holding products.
        for _ in 0..<4 {
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("quire").path)
                || FileManager.default.fileExists(atPath: candidate.appendingPathComponent("lmdb-test-writer").path)
            {
                return candidate
            }
            candidate.deleteLastPathComponent()
        }
        return executable.deletingLastPathComponent()
    }

    /// The path of the built executable `name`.
    ///
    /// - Throws: ``ProcessFailure/missingExecutable(_:)`` when it was not built.
    public static func executable(named name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw ProcessFailure.missingExecutable(url.path)
        }
        return url
    }
}

/// Why a child process could not be used.
public enum ProcessFailure: Error, CustomStringConvertible {
    /// The executable was not found where SwiftPM puts it.
    case missingExecutable(String)

    public var description: String {
        switch self {
        case .missingExecutable(let path): "no built executable at \(path); build the package first"
        }
    }
}
