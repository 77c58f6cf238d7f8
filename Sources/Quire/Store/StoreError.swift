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
    /// A hierarchy change was refused (a move into its own subtree, an unknown node …).
    case hierarchy(TreeError)
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
        case .hierarchy(let error):
            "hierarchy: \(error)"
        case .corrupt(let database, let problem):
            "a value in \(database) is damaged (\(Self.innermost(problem))); \(Self.corruptRemedy)"
        case .invalidChange(let problem):
            "refused a change from another replica: \(problem); the store is unchanged"
        case .unsupportedFormat(let found, let supported):
            "the store has format version \(found); this build reads version \(supported) — open it with a matching version of Quire"
        case .closed:
            "the store is closed"
        case .notADirectory(let path):
            "\(path) is a file, not a store directory; give the directory that holds the store (data.mdb), or a new path for a new store"
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
/// characters, at most 255 characters.
public enum RecordName {
    /// The most characters a name may have.
    public static let maximumLength = 255

    /// Throws ``StoreError/invalidName(_:reason:)`` unless `name` follows the rules.
    ///
    /// ```swift
    /// func validate() throws { try RecordName.validate(name) }
    /// ```
    public static func validate(_ name: String) throws(StoreError) {
        if name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw .invalidName(name, reason: "a name cannot be empty or only spaces")
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidName(name, reason: "a name cannot contain control characters such as tabs or line breaks")
        }
        if name.count > maximumLength {
            throw .invalidName(name, reason: "a name can have at most \(maximumLength) characters, this one has \(name.count)")
        }
    }
}
