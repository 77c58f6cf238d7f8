import QuireCore

/// A run's changes one by one, without making them: what a history lists of each.
extension ChangeRun {
    /// What one change of a run did to its text.
    struct ChangeSummary {
        var id: ChangeID
        var lamport: UInt64
        /// Seconds since 1970 (0: unknown).
        var time: UInt64
        /// Characters the change inserted.
        var inserted: Int
        /// Characters the change deleted.
        var deleted: Int
    }

    /// Calls `body` with each change of the run, in counter order.
    ///
    /// Walks the run-length coded Lamport steps and lengths against the joined operations
    /// once, never cutting an operation, so a run costs O(count + operations) with no
    /// allocation per change (``changes`` makes every change and its operations).
    func forEachChange(_ body: (ChangeSummary) throws -> Void) rethrows {
        var operation = 0
        var usedOfOperation = 0  // counters of `operations[operation]` earlier changes took
        var lamport = self.lamport, time = self.time
        var step = 0, stepsLeft = lamportSteps.first?.times ?? 0
        var timeStep = 0, timeStepsLeft = timeSteps.first?.times ?? 0
        var counter = id.counter
        for length in lengths {
            for _ in 0..<length.times {
                if counter > id.counter {
                    // The initializer checked that the steps cover count − 1 changes.
                    while stepsLeft == 0 {
                        step += 1
                        stepsLeft = lamportSteps[step].times
                    }
                    lamport += lamportSteps[step].value
                    stepsLeft -= 1
                    if !timeSteps.isEmpty {  // empty when the run's times are unknown
                        while timeStepsLeft == 0 {
                            timeStep += 1
                            timeStepsLeft = timeSteps[timeStep].times
                        }
                        time += timeSteps[timeStep].value
                        timeStepsLeft -= 1
                    }
                }
                var summary = ChangeSummary(
                    id: ChangeID(replica: id.replica, counter: counter), lamport: lamport, time: time, inserted: 0, deleted: 0)
                // The initializer checked that the operations add up to the lengths.
                var needed = Int(length.value)
                while needed > 0 {
                    let current = operations[operation]
                    let taken = min(needed, current.length - usedOfOperation)
                    if case .insert = current { summary.inserted += taken } else { summary.deleted += taken }
                    needed -= taken
                    usedOfOperation += taken
                    if usedOfOperation == current.length {
                        operation += 1
                        usedOfOperation = 0
                    }
                }
                try body(summary)
                counter += 1
            }
        }
    }
}
