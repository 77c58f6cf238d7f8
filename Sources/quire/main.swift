#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import QuireTool

exit(await QuireCLI.run(commandLine: QuireCLI.processArguments(), context: .standard))
