// libFuzzer target: merge convergence of real stores.
//
// The input is a schedule for 2–5 replicas — stores in a fresh temporary directory,
// durability .noSync — of record, text and hierarchy edits and of delta files that are
// dropped, duplicated, reordered, delayed or cut to one change. At the end every replica
// exchanges with every other until quiet and all must read the same, with the hierarchy's
// invariants holding. The schedule and the checker are
// Tests/QuireTests/Properties/StoreConvergenceSchedule.swift, which the seeded property
// run in `swift test` shares.

import Foundation

private nonisolated(unsafe) var runNumber = 0

/// Where the stores go: memory (/dev/shm) when there is one, the disk is much slower.
private let scratch = FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()

@_cdecl("LLVMFuzzerTestOneInput")
public func convergenceFuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    runNumber += 1
    let directory = scratch + "quire-fuzz-convergence-\(getpid())-\(runNumber)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let schedule = StoreConvergenceSchedule(bytes: Array(UnsafeBufferPointer(start: start, count: count)), directory: directory)
    if ProcessInfo.processInfo.environment["QUIRE_FUZZ_TRACE"] != nil {
        schedule.trace = { print($0) }
    }
    do {
        try schedule.run()
    } catch let failure as ConvergenceFailure {
        fuzzFailure(failure.description)
    } catch {
        fuzzFailure("unexpected error: \(error)")
    }
    return 0
}
