// A second process for LMDBTests' multi-process tests.
//
//   lmdb-test-writer write DIR COUNT FILL_BYTES
//       Opens the environment in DIR with a 64 KiB map (so it must grow, and the map
//       grows beyond what the test process mapped), then commits COUNT transactions.
//       Transaction i sets "counter" and "mirror" to i (8 bytes big-endian) and adds an
//       entry Key("fill", i) of FILL_BYTES bytes. A reader that ever sees counter ≠
//       mirror has seen a torn snapshot. Prints "done" and exits 0.
//
//   lmdb-test-writer rewrite DIR COUNT BYTES
//       Commits COUNT transactions that each put a new value of BYTES bytes under the
//       key "large" (byte i of transaction i's value is i mod 256). Each commit frees the
//       previous value's pages, which later commits reuse unless a reader pins them.
//       Prints "done" and exits 0.
//
//   lmdb-test-writer exhaust-address-space DIR
//       Caps this process's address space a little above what it uses, then writes until
//       growing the map fails. Prints "write failed: CODE", then tries a read and prints
//       "then: ok" or "then: CODE". Exits 0 unless something crashed.
//
//   lmdb-test-writer hold-reader DIR
//       Opens a read transaction, prints "reading", then blocks reading standard input
//       until it is closed or the process is killed (which leaves a stale reader slot).

import Foundation
import LMDB

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lmdb-test-writer: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first else { fail("usage: write DIR COUNT FILL_BYTES | rewrite DIR COUNT BYTES | hold-reader DIR") }

do {
    switch (mode, arguments.count) {
    case ("write", 4):
        guard let count = Int(arguments[2]), let fill = Int(arguments[3]) else { fail("bad numbers") }
        var configuration = Environment.Configuration()
        configuration.mapSize = 64 << 10
        let environment = try Environment(path: arguments[1], configuration: configuration)
        let data = try environment.openDatabase(named: "data")
        let filler = [UInt8](repeating: 0xAB, count: fill)
        for index in 0..<count {
            try environment.write { tx in
                let bytes = Key(UInt64(index))
                try tx.put(bytes, forKey: Key("counter"), in: data)
                try tx.put(filler, forKey: Key("fill", UInt64(index)), in: data)
                try tx.put(bytes, forKey: Key("mirror"), in: data)
            }
        }
        print("done")
    case ("rewrite", 4):
        guard let count = Int(arguments[2]), let size = Int(arguments[3]) else { fail("bad numbers") }
        var configuration = Environment.Configuration()
        configuration.durability = .noSync
        let environment = try Environment(path: arguments[1], configuration: configuration)
        let data = try environment.openDatabase(named: "data")
        for index in 0..<count {
            try environment.write { tx in
                try tx.put([UInt8](repeating: UInt8(truncatingIfNeeded: index), count: size), forKey: Key("large"), in: data)
            }
        }
        print("done")
    case ("exhaust-address-space", 2):
        var configuration = Environment.Configuration()
        configuration.mapSize = 64 << 10
        configuration.durability = .noSync
        let environment = try Environment(path: arguments[1], configuration: configuration)
        let data = try environment.openDatabase(named: "data")
        let filler = [UInt8](repeating: 0xCD, count: 256 << 10)
        var limit = rlimit()
        let margin: rlim_t = 48 << 20
        limit.rlim_cur = rlim_t(currentVirtualMemory()) + margin
        limit.rlim_max = limit.rlim_cur
        guard setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0 else { fail("setrlimit failed") }
        var failure: LMDBError?
        for index in 0..<1_000 where failure == nil {
            do {
                try environment.write { tx in try tx.put(filler, forKey: Key(UInt64(index)), in: data) }
            } catch let error as LMDBError {
                failure = error
            }
        }
        guard let failure else { fail("the map never failed to grow") }
        print("write failed: \(failure.code.name)")
        do {
            _ = try environment.read { tx in try tx.count(in: data) }
            print("then: ok")
        } catch let error as LMDBError {
            print("then: \(error.code.name)")
        }
    case ("hold-reader", 2):
        let environment = try Environment(path: arguments[1])
        try environment.read { _ in
            FileHandle.standardOutput.write(Data("reading\n".utf8))
            _ = FileHandle.standardInput.readDataToEndOfFile()
        }
    default:
        fail("usage: write DIR COUNT FILL_BYTES | rewrite DIR COUNT BYTES | hold-reader DIR")
    }
} catch {
    fail("\(error)")
}

/// This process's virtual memory size in bytes, from /proc/self/status.
func currentVirtualMemory() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmSize:") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return 1 << 30 }
    return kilobytes * 1024
}
