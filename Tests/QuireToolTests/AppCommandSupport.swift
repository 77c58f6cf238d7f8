import Foundation
import QuireTestSupport
import Testing

/// Runs the real `quire` binary for the app commands' tests: with a store, standard
/// input and extra environment variables.
struct AppTool {
    /// The store every run uses (`--store` through `QUIRE_STORE`).
    var store: String

    /// Runs `quire <arguments>` with `input` on standard input.
    @discardableResult
    func run(_ arguments: [String], input: String = "", environment: [String: String] = [:]) throws -> AppRun {
        try runWithInput(arguments, input: input, environment: environment.merging(["QUIRE_STORE": store]) { $1 })
    }

    /// Runs `quire <arguments>` and expects exit status 0.
    @discardableResult
    func ok(_ arguments: [String], input: String = "", environment: [String: String] = [:],
            sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try run(arguments, input: input, environment: environment)
        #expect(result.status == 0, "quire \(arguments): \(result.standardError)", sourceLocation: sourceLocation)
        return result.standardOutput
    }

    /// `quire tree --json [PATH]`, decoded.
    func tree(_ path: String? = nil) throws -> [String: Any] {
        let text = try ok(["tree", "--json"] + (path.map { [$0] } ?? []))
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}

/// The names of a JSON tree node's children.
func childNames(_ node: [String: Any]) -> [String] {
    (node["children"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
}

/// The outcome of one run of `quire`.
struct AppRun {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs the built `quire` with `input` written to its standard input.
func runWithInput(_ arguments: [String], input: String, environment: [String: String]) throws -> AppRun {
    let process = Process()
    process.executableURL = try BuiltProducts.executable(named: "quire")
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let errorData = Locked(Data())
    let drained = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        errorData.set(stderr.fileHandleForReading.readDataToEndOfFile())
        drained.signal()
    }
    Thread.detachNewThread {
        try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
    }
    let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
    drained.wait()
    process.waitUntilExit()
    return AppRun(status: process.terminationStatus,
                         standardOutput: String(decoding: outputData, as: UTF8.self),
                         standardError: String(decoding: errorData.get(), as: UTF8.self))
}
