import Foundation
import QuireCore

/// Why a store operation failed. Every case says what went wrong and what to do; the
/// store is unchanged whenever one is thrown from a transaction.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No live record has this ID (it was never created here, or not yet merged).
    case recordNotFound(RecordID)
    /// The record exists but is of another type.
    case wrongType(RecordID, expected: String, actual: String)
    /// A record failed its own ``Record/validate()``.
    case validationFailed(type: String, problem: String)
    /// A name failed ``RecordName/validate(_:)``.
    case invalidName(String, reason: String)
    /// A record could not be encoded into fields.
    case encodingFailed(type: String, problem: String)
    /// A stored record does not decode as the requested type.
    case decodingFailed(record: RecordID, type: String, problem: String)
    /// A text edit was refused (a position outside the text, a split character …).
    case text(TextID, TextError)
    /// A text name the record's type does not declare (see ``Record/texts``): most
    /// likely a misspelt name.
    case undeclaredText(TextID, type: String, declared: [String])
    /// A hierarchy change was refused (a move into its own subtree, an unknown node …).
    case hierarchy(TreeError)
    /// ``StoreWriter/restore(_:)`` cannot tell where to put the record back.
    case notRestorable(RecordID, reason: String)
    /// A stored value does not decode: the file is damaged or from an incompatible version.
    case corrupt(database: String, problem: String)
    /// A change from another replica is malformed or contradicts what this store has.
    case invalidChange(String)
    /// The directory holds a store of another format version.
    case unsupportedFormat(found: Int, supported: Int)
    /// The store was closed.
    case closed
    /// The path given as the store's directory names a file (or something else that is
    /// not a directory).
    case notADirectory(String)
    /// A transaction body (or an observation's value closure) called its own store:
    /// the store's lock is held for the whole body, so the call could only deadlock.
    /// The payload names the call, such as `"store.write"`.
    case nestedTransaction(String)
    /// A store version names more of a replica than this store has (see
    /// ``StoreReading/string(of:at:)``): `counter` of `replica`, of which the store has
    /// the changes below `known`.
    case versionBeyondStore(replica: ReplicaID, counter: UInt64, known: UInt64)
    /// A store version lies in history this store pruned when it was compacted: it
    /// keeps `replica`'s changes from `keptFrom` on, and the version stops at `counter`.
    case versionPruned(replica: ReplicaID, counter: UInt64, keptFrom: UInt64)

    /// A sentence naming the problem and what to do.
    public var description: String {
        switch self {
        case .recordNotFound(let id):
            "no record \(id) in this store; it may be deleted for good or not merged here yet"
        case .wrongType(let id, let expected, let actual):
            "record \(id) is a \(actual), not a \(expected)"
        case .validationFailed(let type, let problem):
            "invalid \(type): \(problem); nothing was written"
        case .invalidName(let name, let reason):
            "invalid name \(Self.abbreviated(name).debugDescription): \(reason)"
        case .encodingFailed(let type, let problem):
            "cannot store a \(type): \(problem)"
        case .decodingFailed(let record, let type, let problem):
            "record \(record) does not decode as \(type) (\(problem)); check the type's Codable conformance against what older versions wrote"
        case .text(let text, let error):
            "text \(text): \(error)"
        case .undeclaredText(let text, let type, let declared):
            "record \(text.record) is a \(type), whose texts are "
                + (declared.isEmpty ? "none" : declared.map(\.debugDescription).joined(separator: ", "))
                + "; \(text.field.debugDescription) is not one of them — check the name, or add it to the type's `texts`"
        case .hierarchy(let error):
            "hierarchy: \(error)"
        case .notRestorable(let id, let reason):
            "cannot restore \(id) to where it was deleted from: \(reason)"
        case .corrupt(let database, let problem):
            "a value in \(database) is damaged (\(Self.innermost(problem))); \(Self.corruptRemedy)"
        case .invalidChange(let problem):
            "refused a change from another replica: \(problem); the store is unchanged"
        case .unsupportedFormat(let found, let supported):
            found < supported
                ? "the store has format version \(found); this build reads version \(supported). To move it over, export everything with the Quire that wrote it (quire export --store OLD --all -o all.qdelta), then import that file into a new store (quire import --store NEW all.qdelta)"
                : "the store has format version \(found); this build reads version \(supported) — open it with a newer version of Quire"
        case .closed:
            "the store is closed"
        case .notADirectory(let path):
            "\(path) is a file, not a store directory; give the directory that holds the store (data.mdb), or a new path for a new store"
        case .nestedTransaction(let call):
            "calling \(call) inside a transaction body of the same store: the body holds the store's lock until it "
                + "returns; move the call outside the body, or use the transaction (`tx`) the body was given"
        case .versionBeyondStore(let replica, let counter, let known):
            "the version reaches counter \(counter) of replica \(replica), but this store has that replica's changes "
                + "only up to \(known): merge them first (quire sync or import), or give a version this store was at "
                + "(one 'quire status --version-out FILE' wrote here)"
        case .versionPruned(let replica, let counter, let keptFrom):
            "the version stops at counter \(counter) of replica \(replica), but this store pruned that replica's "
                + "changes before counter \(keptFrom) when it was compacted: give a later version, or read this one on "
                + "a replica that kept its whole history"
        }
    }
}

extension StoreError {
    /// What to do about a damaged value.
    static let corruptRemedy = "restore the store from a backup or re-sync it from another replica"

    /// `problem` without the descriptions of damaged values wrapped around it: a problem
    /// found while reading a value is often reported by each layer that read it, and the
    /// message says it once ("a value in changes is damaged (x)", not "(… (… (x)))").
    static func innermost(_ problem: String) -> String {
        var problem = problem
        let suffix = "); " + corruptRemedy
        while problem.hasSuffix(suffix), let start = problem.range(of: "a value in "),
              let open = problem.range(of: " is damaged (", range: start.upperBound..<problem.endIndex) {
            problem = String(problem[..<start.lowerBound])
                + String(problem[open.upperBound..<problem.index(problem.endIndex, offsetBy: -suffix.count)])
        }
        return problem
    }

    /// A name as an error repeats it: up to 60 characters, else its first 60, "…" and
    /// its length.
    static func abbreviated(_ name: String) -> String {
        name.count > 60 ? String(name.prefix(60)) + "… (\(name.count) characters)" : name
    }
}

/// The name rules of the reference apps: not empty after trimming, no control
/// characters or line separators, no invisible characters that change how a name reads
/// (bidirectional controls such as U+202E, zero-width spaces and joiners outside the
/// scripts and emoji that need them), not the form of a record ID, at most 255
/// characters.
///
/// Invisible characters are refused because two names that look the same would be two
/// names: `Draft` and `Draft` followed by a zero-width space cannot be told apart in a list,
/// and U+202E RIGHT-TO-LEFT OVERRIDE makes the rest of a name display backwards. Kept: variation selectors and tag
/// characters inside an emoji (`❤️`, flags), U+200D ZERO WIDTH JOINER between two emoji
/// of one sequence (`👩‍💻`), and U+200C ZERO WIDTH NON-JOINER between two letters outside
/// ASCII (Persian, Indic scripts).
public enum RecordName {
    /// The most characters a name may have.
    public static let maximumLength = 255

    /// Throws ``StoreError/invalidName(_:reason:)`` unless `name` follows the rules.
    ///
    /// ```swift
    /// func validate() throws { try RecordName.validate(name) }
    /// ```
    ///
    /// - Parameter name: The name to check.
    /// - Throws: ``StoreError/invalidName(_:reason:)`` saying which rule `name` breaks.
    public static func validate(_ name: String) throws(StoreError) {
        if name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw .invalidName(name, reason: "a name cannot be empty or only spaces")
        }
        if name.unicodeScalars.contains(where: isLineBreakOrControl) {
            throw .invalidName(name, reason: "a name cannot contain control characters such as tabs or line breaks")
        }
        if let scalar = invisibleScalar(in: name) {
            throw .invalidName(name, reason: "a name cannot contain invisible characters such as \(scalarName(scalar)), which make names that look alike differ or read backwards; type the name again without it")
        }
        if RecordID(parsing: name) != nil {
            throw .invalidName(name, reason: "a name cannot have the form of a record ID (such as 3a9d52c01b7e4f66@12), because paths read that form as an ID; add or change a character")
        }
        if name.count > maximumLength {
            throw .invalidName(name, reason: "a name can have at most \(maximumLength) characters, this one has \(name.count)")
        }
    }

    private static func isLineBreakOrControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// The first scalar of `name` that is invisible and not one of the kept uses.
    private static func invisibleScalar(in name: String) -> Unicode.Scalar? {
        let scalars = Array(name.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            let properties = scalar.properties
            if properties.isBidiControl { return scalar }
            guard properties.isDefaultIgnorableCodePoint || properties.generalCategory == .format else { continue }
            let previous = index > 0 ? scalars[index - 1] : nil
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            switch scalar.value {
            case 0xFE00...0xFE0F, 0xE0100...0xE01EF:
                // Variation selectors choose the form of the character before them (❤️).
                if let previous, !previous.properties.isWhitespace, !isInvisible(previous) { continue }
            case 0xE0020...0xE007F:
                // Tags spell a subdivision flag after 🏴 (or after another tag).
                if let previous, isEmoji(previous) || (0xE0020...0xE007F).contains(previous.value) { continue }
            case 0x200D:
                // Joins two emoji into one (👩‍💻); anywhere else it is invisible.
                if let previous, let next, isEmoji(previous) || (0xFE00...0xFE0F).contains(previous.value) || isSkinTone(previous),
                   isEmoji(next) { continue }
            case 0x200C:
                // Persian and Indic words use it between letters.
                if let previous, let next, isLetterOrMarkOutsideASCII(previous), isLetterOrMarkOutsideASCII(next) { continue }
            default:
                break
            }
            return scalar
        }
        return nil
    }

    private static func isEmoji(_ scalar: Unicode.Scalar) -> Bool {
        !scalar.isASCII && scalar.properties.isEmoji
    }

    private static func isSkinTone(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F3FB...0x1F3FF).contains(scalar.value)
    }

    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isDefaultIgnorableCodePoint || scalar.properties.generalCategory == .format
    }

    private static func isLetterOrMarkOutsideASCII(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII else { return false }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// `U+202E RIGHT-TO-LEFT OVERRIDE`.
    private static func scalarName(_ scalar: Unicode.Scalar) -> String {
        let code = String(format: "U+%04X", scalar.value)
        return scalar.properties.name.map { "\(code) \($0)" } ?? code
    }
}
