/// An error from the storage layer: what failed, the LMDB or system code, and what to do.
///
/// Every failure of an `mdb_*` call, and every misuse the layer refuses (such as a
/// write transaction begun inside another on the same thread), is thrown as an
/// `LMDBError`. Match on ``code`` to react to a specific condition:
///
/// ```swift
/// do {
///     try environment.write { tx in try tx.put(value, forKey: key, in: db, options: .noOverwrite) }
/// } catch let error as LMDBError where error.code == .keyExists {
///     // The key was already present; nothing was written.
/// }
/// ```
///
/// The ``description`` names the operation, the code and a remedy, so it can be shown to
/// a person as it is.
public struct LMDBError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The LMDB, system (`errno`) or layer code that identifies the condition.
    public var code: Code
    /// The operation that failed.
    public var operation: Operation
    /// Extra context, such as the database name or the file path, when known.
    public var context: String?
    /// An explanation that replaces the code's default one, when the layer knows more.
    public var detail: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The condition.
    ///   - operation: What was being done.
    ///   - context: The database name, path or other specifics.
    ///   - detail: An explanation that replaces the code's default one.
    public init(_ code: Code, operation: Operation, context: String? = nil, detail: String? = nil) {
        self.code = code
        self.operation = operation
        self.context = context
        self.detail = detail
    }

    /// A one-paragraph message: the operation, the context, the code's name and a remedy.
    public var description: String {
        var text = "LMDB \(operation.rawValue)"
        if let context { text += " (\(context))" }
        text += " failed: \(code.name): \(detail ?? code.explanation)"
        if let remedy = code.remedy { text += ". \(remedy)" }
        return text
    }
}

extension LMDBError {
    /// The operation a storage-layer error happened in.
    public struct Operation: RawRepresentable, Hashable, Sendable {
        /// A short human-readable name, such as `"put"`.
        public var rawValue: String

        /// Creates an operation from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Opening or creating an environment.
        public static let openEnvironment = Operation(rawValue: "open environment")
        /// Closing an environment.
        public static let close = Operation(rawValue: "close")
        /// Beginning a transaction.
        public static let beginTransaction = Operation(rawValue: "begin transaction")
        /// Committing a write transaction.
        public static let commit = Operation(rawValue: "commit")
        /// Opening or creating a named database.
        public static let openDatabase = Operation(rawValue: "open database")
        /// Reading a value.
        public static let get = Operation(rawValue: "get")
        /// Writing a value.
        public static let put = Operation(rawValue: "put")
        /// Deleting a value.
        public static let delete = Operation(rawValue: "delete")
        /// Emptying a database.
        public static let clear = Operation(rawValue: "clear database")
        /// Opening or moving a cursor.
        public static let cursor = Operation(rawValue: "cursor")
        /// Growing the memory map.
        public static let growMap = Operation(rawValue: "grow map")
        /// Copying the environment to a backup.
        public static let copy = Operation(rawValue: "copy")
        /// Flushing buffers to disk.
        public static let sync = Operation(rawValue: "sync")
        /// Reading statistics.
        public static let statistics = Operation(rawValue: "statistics")
        /// Clearing stale readers from the lock table.
        public static let readerCheck = Operation(rawValue: "reader check")
    }
}
