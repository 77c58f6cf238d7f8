// A second process for LMDBTests' multi-process tests.
//
//   lmdb-test-writer write DIR COUNT FILL_BYTES
//       Opens the environment in DIR with a 64 KiB map (so it must grow, and the map
//       grows beyond what the test process mapped), then commits COUNT transactions.
//       Transaction i sets "counter" and "mirror" to i (8 bytes big-endian) and adds an
//       entry Key("fill", i) of FILL_BYTES bytes. A reader that ever sees counter ≠
//       mirror has seen a torn snapshot. Prints "done" and exits 0.
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
guard let mode = arguments.first else { fail("usage: write DIR COUNT FILL_BYTES | hold-reader DIR") }

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
    case ("hold-reader", 2):
        let environment = try Environment(path: arguments[1])
        try environment.read { _ in
            FileHandle.standardOutput.write(Data("reading\n".utf8))
            _ = FileHandle.standardInput.readDataToEndOfFile()
        }
    default:
        fail("usage: write DIR COUNT FILL_BYTES | hold-reader DIR")
    }
} catch {
    fail("\(error)")
}
