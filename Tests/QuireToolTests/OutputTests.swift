#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import QuireTool

@Suite("Output")
struct OutputTests {
    @Test("a buffer keeps every write in order; writeLine adds a newline")
    func buffer() {
        let buffer = OutputBuffer()
        buffer.write("a")
        buffer.writeLine("b")
        buffer.writeLine()
        #expect(buffer.text == "ab\n\n")
    }

    @Test("a buffer keeps every write made from concurrent tasks")
    func concurrentWrites() async {
        let buffer = OutputBuffer()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { buffer.write("x") } }
        }
        #expect(buffer.text == String(repeating: "x", count: 100))
    }

    @Test("a file descriptor output writes the text's UTF-8 bytes")
    func fileDescriptor() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let text = "größe ✓\n"
        FileDescriptorOutput(descriptor: ends[1]).write(text)
        close(ends[1])
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(ends[0], &bytes, bytes.count)
        #expect(String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self) == text)
    }

    @Test("a failed write to a file descriptor is remembered with its errno, and nothing more is written")
    func failedWrite() throws {
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let output = FileDescriptorOutput(descriptor: descriptor, name: "standard output")
        #expect(output.writeFailure == nil)
        output.write("lost")
        let failure = try #require(output.writeFailure)
        #expect(failure.code == ENOSPC)
        #expect(failure.description == "cannot write standard output: No space left on device (errno \(ENOSPC)); the output is incomplete")
        output.write("also lost")
        #expect(output.writeFailure == failure)
        #expect(OutputBuffer().writeFailure == nil)
    }
}
