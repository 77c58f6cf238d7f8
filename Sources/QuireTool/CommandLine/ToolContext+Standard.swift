#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ToolContext {
    /// The process's own context: standard output and error, its environment variables
    /// and its current directory, read when this property is read.
    public static var standard: ToolContext {
        ToolContext(
            output: FileDescriptorOutput.standardOutput,
            errorOutput: FileDescriptorOutput.standardError,
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath
        )
    }
}
