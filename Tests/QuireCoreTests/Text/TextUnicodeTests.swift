import QuireCore
import Testing

@Suite("Text positions in Unicode scalars, UTF-16 and UTF-8")
struct TextUnicodeTests {
    @Test("UTF-16 and UTF-8 offsets agree with String's views on random Unicode text", arguments: 0..<6)
    func offsetsAgree(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) + 100)
        let text = ReplicatedText(replica: ReplicaID(1))
        var model = ""
        for step in 0..<300 {
            let unit: TextUnit = [.unicodeScalars, .utf16, .utf8][step % 3]
            let boundaries = Self.boundaries(of: model, in: unit)
            if !model.isEmpty && random.next() % 3 == 0 {
                let start = Int(random.next() % UInt64(boundaries.count - 1))
                let end = start + 1 + Int(random.next() % UInt64(min(3, boundaries.count - 1 - start)))
                try text.delete(boundaries[start]..<boundaries[end], unit: unit)
                let scalars = Array(model.unicodeScalars)
                var kept = String.UnicodeScalarView()
                kept.append(contentsOf: scalars[..<start])
                kept.append(contentsOf: scalars[end...])
                model = String(kept)
            } else {
                let index = Int(random.next() % UInt64(boundaries.count))
                let piece = sampleTexts[Int(random.next() % UInt64(sampleTexts.count))]
                try text.insert(piece, at: boundaries[index], unit: unit)
                let scalars = Array(model.unicodeScalars)
                var result = String.UnicodeScalarView()
                result.append(contentsOf: scalars[..<index])
                result.append(contentsOf: piece.unicodeScalars)
                result.append(contentsOf: scalars[index...])
                model = String(result)
            }
            #expect(text.string == model)
            #expect(text.count(in: .utf16) == model.utf16.count)
            #expect(text.count(in: .utf8) == model.utf8.count)
            #expect(text.count == model.unicodeScalars.count)
        }
        // Slices by every unit agree with the model.
        let utf16 = Array(model.utf16)
        let boundaries16 = Self.boundaries(of: model, in: .utf16)
        if boundaries16.count > 2 {
            let lower = boundaries16[1], upper = boundaries16[boundaries16.count - 2]
            #expect(try text.string(in: lower..<upper, unit: .utf16) == String(decoding: utf16[lower..<upper], as: UTF16.self))
        }
    }

    /// The offsets of every scalar boundary of `text` in `unit`.
    static func boundaries(of text: String, in unit: TextUnit) -> [Int] {
        var offsets = [0]
        var offset = 0
        for scalar in text.unicodeScalars {
            switch unit {
            case .unicodeScalars: offset += 1
            case .utf16: offset += UTF16.width(scalar)
            case .utf8: offset += UTF8.width(scalar)
            }
            offsets.append(offset)
        }
        return offsets
    }
}
