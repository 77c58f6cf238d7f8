// libFuzzer target: one ReplicatedText against a plain array of Unicode scalars.
//
// The input drives inserts, deletes and replaces at positions counted in Unicode
// scalars, UTF-16 or UTF-8 (valid ones, and now and then one out of range or inside a
// scalar, which must be refused), slices in every unit, edits made on a fork and merged
// back, and save-and-reload of the whole state. After every step the text must read as
// the model: the string, the counts in all three units and the run tree's invariants.

/// The model: the text as scalars, with the offsets of every scalar boundary per unit.
private struct TextModel {
    var scalars: [Unicode.Scalar] = []

    var string: String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// The offset, in `unit`, of each scalar boundary `0...count`.
    func boundaries(_ unit: TextUnit) -> [Int] {
        var result = [0]
        result.reserveCapacity(scalars.count + 1)
        var offset = 0
        for scalar in scalars {
            switch unit {
            case .unicodeScalars: offset += 1
            case .utf16: offset += UTF16.width(scalar)
            case .utf8: offset += UTF8.width(scalar)
            }
            result.append(offset)
        }
        return result
    }

    func count(_ unit: TextUnit) -> Int { boundaries(unit).last! }
}

private struct TextModelRun {
    var input: FuzzInput
    var text = ReplicatedText(replica: ReplicaID(1))
    var model = TextModel()

    static let units: [TextUnit] = [.unicodeScalars, .utf16, .utf8]

    mutating func snippet() -> String {
        (0...input.int(3)).map { _ in input.pick(fuzzSnippets)! }.joined()
    }

    /// A position in `unit`: usually a scalar boundary (returned with its scalar index),
    /// sometimes any offset up to one past the end (scalar index `nil` when it is not a
    /// valid position, so the edit must be refused).
    mutating func position(_ unit: TextUnit) -> (offset: Int, scalar: Int?) {
        let boundaries = model.boundaries(unit)
        if input.int(8) == 0 {
            let offset = input.int(boundaries.last! + 2)
            return (offset, boundaries.firstIndex(of: offset))
        }
        let scalar = input.int(boundaries.count)
        return (boundaries[scalar], scalar)
    }

    /// A range in `unit`, valid or not as ``position(_:)``.
    mutating func range(_ unit: TextUnit) -> (range: Range<Int>, scalars: Range<Int>?) {
        let a = position(unit), b = position(unit)
        let (low, high) = a.offset <= b.offset ? (a, b) : (b, a)
        guard let lowScalar = low.scalar, let highScalar = high.scalar else { return (low.offset..<high.offset, nil) }
        return (low.offset..<high.offset, lowScalar..<highScalar)
    }

    /// One random edit of `target`, mirrored in the model; refused edits must change nothing.
    mutating func edit(_ target: ReplicatedText) {
        let unit = input.pick(Self.units)!
        switch input.int(3) {
        case 0:
            let (offset, scalar) = position(unit)
            let string = snippet()
            do {
                try target.insert(string, at: offset, unit: unit)
                guard let scalar else { fuzzFailure("insert at \(offset) \(unit) in \(model.string.debugDescription) was accepted") }
                model.scalars.insert(contentsOf: string.unicodeScalars, at: scalar)
            } catch {
                fuzzCheck(scalar == nil, "insert at valid \(offset) \(unit) refused: \(error)")
            }
        case 1:
            let (range, scalars) = range(unit)
            do {
                try target.delete(range, unit: unit)
                guard let scalars else { fuzzFailure("delete \(range) \(unit) in \(model.string.debugDescription) was accepted") }
                model.scalars.removeSubrange(scalars)
            } catch {
                fuzzCheck(scalars == nil, "delete of valid \(range) \(unit) refused: \(error)")
            }
        default:
            let (range, scalars) = range(unit)
            let string = snippet()
            do {
                try target.replace(range, with: string, unit: unit)
                guard let scalars else { fuzzFailure("replace \(range) \(unit) in \(model.string.debugDescription) was accepted") }
                model.scalars.replaceSubrange(scalars, with: Array(string.unicodeScalars))
            } catch {
                fuzzCheck(scalars == nil, "replace of valid \(range) \(unit) refused: \(error)")
            }
        }
    }

    mutating func checkSlice() {
        let unit = input.pick(Self.units)!
        let (range, scalars) = range(unit)
        do {
            let slice = try text.string(in: range, unit: unit)
            guard let scalars else { fuzzFailure("slice \(range) \(unit) of \(model.string.debugDescription) was accepted") }
            var expected = String.UnicodeScalarView()
            expected.append(contentsOf: model.scalars[scalars])
            fuzzCheck(slice == String(expected), "slice \(range) \(unit): \(slice.debugDescription), model \(String(expected).debugDescription)")
        } catch {
            fuzzCheck(scalars == nil, "slice of valid \(range) \(unit) refused: \(error)")
        }
    }

    func checkWhole(_ step: String) {
        let expected = model.string
        let actual = text.string
        fuzzCheck(actual == expected, "after \(step): text \(actual.debugDescription), model \(expected.debugDescription)")
        for unit in Self.units {
            fuzzCheck(text.count(in: unit) == model.count(unit), "after \(step): count in \(unit) \(text.count(in: unit)), model \(model.count(unit))")
        }
        fuzzCheck(text.count == model.scalars.count, "after \(step): count \(text.count), model \(model.scalars.count)")
        let problems = text.invariantViolations
        fuzzCheck(problems.isEmpty, "after \(step): run tree invariants: \(problems)")
    }

    mutating func run() {
        var steps = 0
        while !input.isAtEnd && steps < 200 {
            steps += 1
            switch input.int(10) {
            case 0...5:
                edit(text)
                checkWhole("edit")
            case 6, 7:
                checkSlice()
            case 8:
                // Edits on a fork arrive as remote operations.
                let fork = text.fork(as: ReplicaID(UInt64(2 + input.int(3))))
                for _ in 0...input.int(4) { edit(fork) }
                text.merge(fork)
                checkWhole("merge of a fork")
            default:
                // Save and load; the loaded state's logs stay encoded until used.
                let state = text.encodedState()
                do {
                    text = try ReplicatedText(replica: ReplicaID(1), state: state)
                } catch {
                    fuzzFailure("a saved state does not load: \(error)")
                }
                checkWhole("reload")
            }
        }
        checkWhole("the end")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func textModelFuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var run = TextModelRun(input: FuzzInput(start, count))
    run.run()
    return 0
}
