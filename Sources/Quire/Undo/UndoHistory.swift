import QuireCore

/// One undo (or redo) step: what to take back of one app action — text edits, field
/// writes and moves of this replica — each part naming how to revert it.
///
/// Undoing a step makes new operations (a change like any other); the parts they touch
/// form the step that redoes it.
struct UndoStep {
    /// A field this replica wrote, and the value before.
    struct FieldPart {
        var record: RecordID
        var type: String
        var name: String
        /// The value before the write; `nil` when the field had none.
        var previous: [UInt8]?
        /// The write: the part is reverted only while it is still the field's value.
        var written: Timestamp
    }

    /// A node this replica moved (created, moved, deleted, restored), and where it was.
    struct MovePart {
        var node: NodeID
        /// Its parent and position before; `nil` when the step created it.
        var previous: (parent: NodeID, position: PositionKey)?
        /// The move: the part is reverted only while the node is still where it put it.
        var moved: Timestamp
    }

    /// One text's part: what the step inserted and deleted in it.
    struct TextPart {
        var id: TextID
        var footprint: ReplicatedText.EditFootprint
    }

    /// Text edits, in the order the texts were first touched.
    var texts: [TextPart] = []
    var fields: [FieldPart] = []
    var moves: [MovePart] = []

    var isEmpty: Bool { texts.isEmpty && fields.isEmpty && moves.isEmpty }

    /// Whether the step edits `text`.
    func edits(_ text: TextID) -> Bool { texts.contains { $0.id == text } }

    /// Takes `later` into this step: earlier values stay what undo restores.
    mutating func absorb(_ later: UndoStep) {
        for part in later.texts {
            if let index = texts.firstIndex(where: { $0.id == part.id }) {
                texts[index].footprint.formFollowed(by: part.footprint)
            } else {
                texts.append(part)
            }
        }
        for part in later.fields {
            if let index = fields.firstIndex(where: { $0.record == part.record && $0.name == part.name }) {
                fields[index].written = part.written
            } else {
                fields.append(part)
            }
        }
        for part in later.moves {
            if let index = moves.firstIndex(where: { $0.node == part.node }) {
                moves[index].moved = part.moved
            } else {
                moves.append(part)
            }
        }
    }
}

/// Where one write transaction's typing left the cursor, for grouping keystrokes into
/// one undo step (see ``UndoGrouping``).
struct TypingRun: Equatable {
    enum Kind { case typing, erasing }

    var text: TextID
    var unit: TextUnit
    var kind: Kind
    /// Where the first edit started: an insert's position, a deletion's range.
    var start: Range<Int>
    /// Whether the first edit inserted whitespace first.
    var startsWithSpace = false
    /// Where the cursor is after the last edit: after an insert, at a deletion's start.
    var cursor: Int
    /// Whether the last edit ended with whitespace.
    var endsWithSpace = false
    /// Whether the run must begin a new step (a replaced selection).
    var startsStep = false

    /// The run of one edit; `nil` when it neither typed nor erased.
    init?(text: TextID, replacing range: Range<Int>, with string: String, unit: TextUnit) {
        self.text = text
        self.unit = unit
        if string.isEmpty {
            guard !range.isEmpty else { return nil }
            kind = .erasing
            start = range
            cursor = range.lowerBound
        } else {
            kind = .typing
            start = range.lowerBound..<range.lowerBound
            if string.utf8.count == 1, let byte = string.utf8.first, byte < 0x80 {
                // One ASCII character, a keystroke: one unit in every unit, no scalar walk.
                startsWithSpace = Self.isWhitespace(Unicode.Scalar(byte))
                endsWithSpace = startsWithSpace
                cursor = range.lowerBound + 1
            } else {
                startsWithSpace = Self.isWhitespace(string.unicodeScalars.first!)
                endsWithSpace = Self.isWhitespace(string.unicodeScalars.last!)
                cursor = range.lowerBound + Self.length(of: string, in: unit)
            }
            startsStep = !range.isEmpty
        }
    }

    /// Whether `scalar` is white space (Unicode's `White_Space`). ASCII, what a keystroke
    /// almost always types, is answered without looking up Unicode's property tables.
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || (0x09...0x0D).contains(scalar.value) }
        return scalar.properties.isWhitespace
    }

    /// Whether `next` carries on where this run left off: same text, unit and kind, at
    /// the cursor, and (with `breakingAtSpace`) not a space typed after a word, which
    /// starts the next step.
    func isContinued(by next: TypingRun, breakingAtSpace: Bool = true) -> Bool {
        guard next.text == text, next.unit == unit, next.kind == kind, !next.startsStep else { return false }
        switch kind {
        case .typing:
            return next.start.lowerBound == cursor && !(breakingAtSpace && next.startsWithSpace && !endsWithSpace)
        case .erasing:
            return next.start.upperBound == cursor || next.start.lowerBound == cursor  // backspace, forward delete
        }
    }

    /// This run extended by `next`, which continues it.
    func extended(by next: TypingRun) -> TypingRun {
        var run = self
        run.extend(by: next)
        return run
    }

    /// Extends this run by `next`, which continues it, in place.
    mutating func extend(by next: TypingRun) {
        cursor = next.cursor
        endsWithSpace = next.endsWithSpace
    }

    private static func length(of string: String, in unit: TextUnit) -> Int {
        switch unit {
        case .unicodeScalars: string.unicodeScalars.count
        case .utf16: string.utf16.count
        case .utf8: string.utf8.count
        }
    }
}

/// This replica's undo and redo stacks: app actions as steps (see ``UndoStep``), with
/// typing grouped into words and pauses and explicit groups.
///
/// Kept in memory for the life of the ``Store`` (like `UndoManager`), not persisted: a
/// reopened store starts with an empty history. Remote changes never enter it.
struct UndoHistory {
    /// The steps always kept; beyond twice this many, the oldest are dropped.
    static let maximumDepth = 1_000

    var grouping: UndoGrouping = .standard
    var undo: [UndoStep] = []
    var redo: [UndoStep] = []
    /// Deleted characters that undo or redo brought back as copies, per text: older
    /// steps that name the originals act on the copies.
    var redirects: [TextID: [ReplicatedText.Redirect]] = [:]
    /// The typing the top undo step may still take, and when it was last extended.
    private var openTyping: (run: TypingRun, at: ContinuousClock.Instant)?
    /// Nesting depth of ``Store/beginUndoGroup()``.
    private(set) var groupDepth = 0
    /// Whether the top undo step is the open explicit group's.
    private var groupHasStep = false

    /// Which step a transaction reverted.
    struct Reverted {
        enum Action { case undo, redo }
        var action: Action
        /// The step's index in its stack.
        var index: Int
        /// The one text whose part was reverted (``StoreWriter/undo(in:)``); `nil` for
        /// the whole step.
        var text: TextID?
    }

    /// The index of the step ``StoreWriter/undo(in:)`` (or redo) reverts: the latest that
    /// edits `text`, or the latest of all.
    func candidate(_ action: Reverted.Action, in text: TextID?) -> Int? {
        let stack = action == .undo ? undo : redo
        guard let text else { return stack.indices.last }
        return stack.lastIndex { $0.edits(text) }
    }

    /// Records what a committed local transaction did.
    ///
    /// - Parameters:
    ///   - step: Its parts, each with how to revert it.
    ///   - reverted: The step it undid or redid, if it did.
    ///   - typing: Its typing when it did nothing else (see ``TypingRun``).
    ///   - redirects: Copies of deleted characters it made, per text.
    mutating func record(_ step: UndoStep, reverted: Reverted?, typing: TypingRun?, redirects: [TextID: [ReplicatedText.Redirect]]) {
        for (text, made) in redirects where !made.isEmpty { self.redirects[text, default: []] += made }
        guard let reverted else {
            guard !step.isEmpty else { return }
            redo.removeAll()
            let now = grouping.clock()
            if groupDepth > 0, groupHasStep, !undo.isEmpty {
                undo[undo.count - 1].absorb(step)
                openTyping = nil
            } else if let typing, continuesOpenTyping(typing, at: now) {
                undo[undo.count - 1].absorb(step)
                extendOpenTyping(by: typing, at: now)
            } else {
                Self.push(step, onto: &undo)
                groupHasStep = groupDepth > 0
                openTyping = groupDepth == 0 ? typing.map { ($0, now) } : nil
            }
            return
        }
        openTyping = nil
        groupHasStep = false
        switch reverted.action {
        case .undo:
            Self.take(reverted, from: &undo)
            if !step.isEmpty { Self.push(step, onto: &redo) }
        case .redo:
            Self.take(reverted, from: &redo)
            if !step.isEmpty { Self.push(step, onto: &undo) }
        }
    }

    /// Takes a typing edit of one text into the open typing step, in place, when it
    /// continues it (as ``record(_:reverted:typing:redirects:)`` would absorb it), without
    /// building a step: the usual keystroke.
    ///
    /// - Returns: `false`, having changed nothing, when the edit does not continue the
    ///   open step; record it then.
    mutating func extendTyping(_ typing: TypingRun, in text: TextID, by operations: [TextOperation]) -> Bool {
        guard !operations.isEmpty, let top = undo.indices.last, let part = undo[top].texts.firstIndex(where: { $0.id == text })
        else { return false }
        let now = grouping.clock()
        guard continuesOpenTyping(typing, at: now) else { return false }
        redo.removeAll()
        undo[top].texts[part].footprint.formFollowed(by: operations)
        extendOpenTyping(by: typing, at: now)
        return true
    }

    /// Whether `typing` at `now` continues the open typing run: outside explicit groups,
    /// at its cursor, within the grouping window.
    private func continuesOpenTyping(_ typing: TypingRun, at now: ContinuousClock.Instant) -> Bool {
        guard groupDepth == 0, !undo.isEmpty, let open = openTyping else { return false }
        return open.run.isContinued(by: typing) && now - open.at < grouping.window
    }

    /// Moves the open typing run on by `typing`, which continues it.
    private mutating func extendOpenTyping(by typing: TypingRun, at now: ContinuousClock.Instant) {
        openTyping?.run.extend(by: typing)
        openTyping?.at = now
    }

    /// Opens an explicit group: the steps until the matching ``endGroup()`` are one.
    mutating func beginGroup() {
        if groupDepth == 0 {
            groupHasStep = false
            openTyping = nil
        }
        groupDepth += 1
    }

    /// Closes the innermost explicit group; `false` when none is open.
    mutating func endGroup() -> Bool {
        guard groupDepth > 0 else { return false }
        groupDepth -= 1
        if groupDepth == 0 {
            groupHasStep = false
            openTyping = nil
        }
        return true
    }

    private static func take(_ reverted: Reverted, from stack: inout [UndoStep]) {
        guard stack.indices.contains(reverted.index) else { return }
        if let text = reverted.text {
            stack[reverted.index].texts.removeAll { $0.id == text }
            if stack[reverted.index].isEmpty { stack.remove(at: reverted.index) }
        } else {
            stack.remove(at: reverted.index)
        }
    }

    private static func push(_ step: UndoStep, onto stack: inout [UndoStep]) {
        stack.append(step)
        // Trim in batches: dropping one step per keystroke would copy the stack each time.
        if stack.count >= 2 * Self.maximumDepth { stack.removeFirst(stack.count - Self.maximumDepth) }
    }
}
