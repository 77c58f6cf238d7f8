import Foundation
import QuireTestSupport

/// The `quire` binary built for these tests, run as a separate process.
enum QuireExecutable {
    /// Runs `quire <arguments>` to completion.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        try runProcess(try BuiltProducts.executable(named: "quire"), arguments, environment: environment)
    }
}
