/// Inverting edits by the identity of the characters they touched, for undo and redo.
///
/// An undo never rewrites history: it makes new local operations — deleting characters
/// that an edit inserted, inserting copies of characters that an edit deleted — which
/// merge with concurrent edits like any other.
extension ReplicatedText {
    /// The characters one or more operations touched, by identity.
    public struct EditFootprint: Hashable, Sendable {
        /// Characters inserted: `(replica, counters)` ranges.
        public var inserted: [(replica: ReplicaID, counters: Range<UInt64>)] {
            get { insertedRanges.map { ($0.replica, $0.counters) } }
            set { insertedRanges = newValue.map { CharacterRange(replica: $0.replica, counters: $0.counters) } }
        }
        /// Characters deleted: `(replica, counters)` ranges of the deleted characters.
        public var deleted: [(replica: ReplicaID, counters: Range<UInt64>)] {
            get { deletedRanges.map { ($0.replica, $0.counters) } }
            set { deletedRanges = newValue.map { CharacterRange(replica: $0.replica, counters: $0.counters) } }
        }

        struct CharacterRange: Hashable, Sendable {
            var replica: ReplicaID
            var counters: Range<UInt64>

            /// Whether this range shares a character with one of `ranges`.
            func overlapsAny(of ranges: [CharacterRange]) -> Bool {
                ranges.contains { $0.replica == replica && $0.counters.overlaps(counters) }
            }

            /// The parts of this range outside all of `ranges`.
            func subtracting(all ranges: [CharacterRange]) -> [CharacterRange] {
                ranges.reduce(into: [self]) { remaining, other in remaining = remaining.flatMap { $0.subtracting(other) } }
            }

            /// The parts of this range outside `other`.
            func subtracting(_ other: CharacterRange) -> [CharacterRange] {
                guard other.replica == replica, other.counters.overlaps(counters) else { return [self] }
                var parts: [CharacterRange] = []
                if counters.lowerBound < other.counters.lowerBound {
                    parts.append(.init(replica: replica, counters: counters.lowerBound..<other.counters.lowerBound))
                }
                if other.counters.upperBound < counters.upperBound {
                    parts.append(.init(replica: replica, counters: other.counters.upperBound..<counters.upperBound))
                }
                return parts
            }
        }

        var insertedRanges: [CharacterRange] = []
        var deletedRanges: [CharacterRange] = []

        /// The characters `operations` inserted and deleted (a character inserted and
        /// deleted by them counts as inserted only: reverting must not bring it back).
        public init(_ operations: [TextOperation]) {
            defer {
                if deletedRanges.contains(where: { $0.overlapsAny(of: insertedRanges) }) {
                    deletedRanges = deletedRanges.flatMap { $0.subtracting(all: insertedRanges) }
                }
            }
            for operation in operations {
                switch operation {
                case .insert(let insertion):
                    insertedRanges.append(CharacterRange(
                        replica: insertion.id.replica,
                        counters: insertion.id.counter..<insertion.id.counter + UInt64(insertion.length)))
                case .delete(let deletion):
                    let first = deletion.isBackward
                        ? deletion.target.counter - UInt64(deletion.length - 1) : deletion.target.counter
                    deletedRanges.append(CharacterRange(
                        replica: deletion.target.replica, counters: first..<first + UInt64(deletion.length)))
                }
            }
        }

        /// The same footprint with characters that reverts brought back as copies
        /// replaced by their copies (following chains of copies).
        public func resolving(_ redirects: [Redirect]) -> EditFootprint {
            guard !redirects.isEmpty else { return self }
            var result = EditFootprint([])
            result.insertedRanges = insertedRanges.flatMap { Self.resolve($0, redirects, depth: 0) }
            result.deletedRanges = deletedRanges.flatMap { Self.resolve($0, redirects, depth: 0) }
            return result
        }

        private static func resolve(_ range: CharacterRange, _ redirects: [Redirect], depth: Int) -> [CharacterRange] {
            guard depth < 64 else { return [range] }
            for redirect in redirects where redirect.original.replica == range.replica {
                let lower = max(range.counters.lowerBound, redirect.original.counters.lowerBound)
                let upper = min(range.counters.upperBound, redirect.original.counters.upperBound)
                guard lower < upper else { continue }
                var parts: [CharacterRange] = []
                if range.counters.lowerBound < lower {
                    parts += resolve(.init(replica: range.replica, counters: range.counters.lowerBound..<lower), redirects, depth: depth + 1)
                }
                let shift = lower - redirect.original.counters.lowerBound
                let copyStart = redirect.copy.counters.lowerBound + shift
                parts += resolve(.init(replica: redirect.copy.replica, counters: copyStart..<copyStart + (upper - lower)), redirects, depth: depth + 1)
                if upper < range.counters.upperBound {
                    parts += resolve(.init(replica: range.replica, counters: upper..<range.counters.upperBound), redirects, depth: depth + 1)
                }
                return parts
            }
            return [range]
        }

        /// This footprint followed by `later`'s, as one edit: what either inserted, and
        /// what either deleted except characters inserted within (typed, then erased:
        /// reverting the whole must not bring them back).
        ///
        /// ```swift
        /// let word = typed.followed(by: backspace)   // "ab", then "b" erased: reverting deletes "a" only
        /// ```
        ///
        /// - Parameter later: The footprint of the edits made after this one's.
        /// - Returns: The footprint of both.
        public func followed(by later: EditFootprint) -> EditFootprint {
            var result = self
            result.formFollowed(by: later)
            return result
        }

        /// Makes this footprint ``followed(by:)`` `later`, in place: typing on, one
        /// keystroke at a time, extends the last inserted range instead of adding one.
        ///
        /// Keeps what every footprint keeps — no deleted range overlaps an inserted one — so
        /// only the new ranges are compared: a keystroke costs O(ranges) comparisons and
        /// no allocation, however long the step it joins.
        public mutating func formFollowed(by later: EditFootprint) {
            for range in later.insertedRanges {
                if let last = insertedRanges.last, last.replica == range.replica,
                    last.counters.upperBound == range.counters.lowerBound {
                    insertedRanges[insertedRanges.count - 1].counters = last.counters.lowerBound..<range.counters.upperBound
                } else {
                    insertedRanges.append(range)
                }
            }
            // Earlier deletions lose what the later edits inserted (new characters, so
            // almost never any), later deletions what either inserted.
            if deletedRanges.contains(where: { $0.overlapsAny(of: later.insertedRanges) }) {
                deletedRanges = deletedRanges.flatMap { $0.subtracting(all: later.insertedRanges) }
            }
            for deleted in later.deletedRanges {
                if deleted.overlapsAny(of: insertedRanges) {
                    deletedRanges += deleted.subtracting(all: insertedRanges)
                } else {
                    deletedRanges.append(deleted)
                }
            }
        }

        /// Makes this footprint followed by the footprint of `operations`: a keystroke
        /// that types on extends the last inserted range with nothing built on the way.
        public mutating func formFollowed(by operations: [TextOperation]) {
            if operations.count == 1, case .insert(let insertion) = operations[0], let last = insertedRanges.last,
                last.replica == insertion.id.replica, last.counters.upperBound == insertion.id.counter
            {
                let added = CharacterRange(
                    replica: insertion.id.replica, counters: insertion.id.counter..<insertion.id.counter + UInt64(insertion.length))
                if !deletedRanges.contains(where: { $0.replica == added.replica && $0.counters.overlaps(added.counters) }) {
                    insertedRanges[insertedRanges.count - 1].counters = last.counters.lowerBound..<added.counters.upperBound
                    return
                }
            }
            formFollowed(by: EditFootprint(operations))
        }

        /// Whether the operations touched no character.
        public var isEmpty: Bool { insertedRanges.isEmpty && deletedRanges.isEmpty }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.insertedRanges == rhs.insertedRanges && lhs.deletedRanges == rhs.deletedRanges
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(insertedRanges)
            hasher.combine(deletedRanges)
        }
    }

    /// A deleted stretch of characters that a revert brought back as copies: later
    /// reverts that name the originals act on the copies (see
    /// ``EditFootprint/resolving(_:)``).
    public struct Redirect: Hashable, Sendable {
        var original: EditFootprint.CharacterRange
        var copy: EditFootprint.CharacterRange
    }

    /// Reverts an edit by identity, as new local operations: deletes the characters it
    /// inserted that are still visible, and inserts copies of the characters it deleted
    /// where they were (unless something else already brought them back).
    ///
    /// ```swift
    /// let before = text.version
    /// try text.insert("typo", at: 4)
    /// text.revert(.init(text.operations(since: before)))    // "typo" is gone again
    /// ```
    ///
    /// - Parameter footprint: What the edit touched.
    /// - Complexity: O(*k* log *n*) for *k* runs touched.
    @discardableResult
    public func revert(_ footprint: EditFootprint) -> [Redirect] {
        var redirects: [Redirect] = []
        // Positions are looked up afresh for every stretch, after the edits before it.
        for range in footprint.insertedRanges {
            visit(range) { cursor, run, span in
                guard !run.isDeleted else { return }
                let position = tree.visibleOffset(of: cursor, in: .unicodeScalars)
                deleteScalars(position..<position + span)
            }
        }
        // Deleted stretches come back in document order (backspaces deleted them last to
        // first): each copy then goes right after the one before it.
        var stretches: [(order: Int, range: EditFootprint.CharacterRange)] = []
        for range in footprint.deletedRanges {
            visit(range) { cursor, run, span in
                guard run.isDeleted else { return }
                let first = run.counter + UInt64(cursor.offset)
                stretches.append((tree.itemOffset(of: cursor), .init(replica: range.replica, counters: first..<first + UInt64(span))))
            }
        }
        for range in stretches.sorted(by: { $0.order < $1.order }).map(\.range) {
            visit(range) { cursor, run, span in
                guard run.isDeleted else { return }
                let start = tree.byteOffset(in: run, ofScalar: cursor.offset)
                let end = tree.byteOffset(in: run, ofScalar: cursor.offset + span)
                let bytes = Array(tree.bytes(of: run)[(run.byteStart + start)..<(run.byteStart + end)])
                guard (try? checkRoom(for: bytes.count, agent: localAgent)) != nil else { return }
                let position = tree.visibleOffset(of: cursor, in: .unicodeScalars)
                let copy = String(decoding: bytes, as: UTF8.self)
                let first = nextCounter[Int(localAgent)]
                insertScalars(copy.utf8, length: span, utf16: copy.utf16.count, at: position)
                let original = run.counter + UInt64(cursor.offset)
                redirects.append(Redirect(
                    original: .init(replica: range.replica, counters: original..<original + UInt64(span)),
                    copy: .init(replica: replica, counters: first..<first + UInt64(span))))
            }
        }
        return redirects
    }

    /// Calls `body` for each stretch of one run that holds characters of `range`.
    private func visit(_ range: EditFootprint.CharacterRange, _ body: (ItemCursor, TextRun, Int) -> Void) {
        var counter = range.counters.lowerBound
        while counter < range.counters.upperBound {
            guard let ref = tree.ref(OperationID(replica: range.replica, counter: counter)),
                let cursor = tree.cursor(of: ref), let run = tree.run(at: cursor)
            else {
                counter += 1
                continue
            }
            let span = min(run.length - cursor.offset, Int(range.counters.upperBound - counter))
            body(cursor, run, span)
            counter += UInt64(span)
        }
    }
}
