#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import QuireTool

exit(await QuireCLI.run(arguments: CommandLine.arguments.dropFirst(), context: .standard))
