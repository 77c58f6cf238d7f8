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
    /// A transaction body (or an observation's value closure) called its own store:
    /// the store's lock is held for the whole body, so the call could only deadlock.
    /// The payload names the call, such as `"store.write"`.
    case nestedTransaction(String)

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
            "invalid name \(name.debugDescription): \(reason)"
        case .encodingFailed(let type, let problem):
            "cannot store a \(type): \(problem)"
        case .decodingFailed(let record, let type, let problem):
            "record \(record) does not decode as \(type) (\(problem)); check the type's Codable conformance against what older versions wrote"
        case .text(let text, let error):
            "text \(text): \(error)"
        case .hierarchy(let error):
            "hierarchy: \(error)"
        case .corrupt(let database, let problem):
            "a value in \(database) is damaged (\(problem)); restore the store from a backup or re-sync it from another replica"
        case .invalidChange(let problem):
            "refused a change from another replica: \(problem); the store is unchanged"
        case .unsupportedFormat(let found, let supported):
            "the store has format version \(found); this build reads version \(supported) — open it with a matching version of Quire"
        case .closed:
            "the store is closed"
        case .nestedTransaction(let call):
            "calling \(call) inside a transaction body of the same store: the body holds the store's lock until it "
                + "returns; move the call outside the body, or use the transaction (`tx`) the body was given"
        }
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
