/// One argument's text and where it came from, with conversions to the types commands use.
///
/// Conversions report a bad value as a ``UsageError`` that names its source, so
/// `--count abc` reads "invalid value 'abc' for option '--count': expected an integer".
public struct ArgumentValue: Hashable, Sendable {
    /// Where an argument's text came from.
    public enum Source: Hashable, Sendable, CustomStringConvertible {
        /// An option on the command line, spelled as given, such as `--count` or `-n`.
        case option(String)
        /// An option's environment variable, such as `QUIRE_STORE`.
        case environment(String)
        /// A positional argument, by its name in the usage, such as `FILE`.
        case positional(String)

        /// The source as an error message names it, such as `option '--count'`.
        public var description: String {
            switch self {
            case .option(let spelling): "option '\(spelling)'"
            case .environment(let variable): "environment variable \(variable)"
            case .positional(let name): "argument '\(name)'"
            }
        }
    }

    /// The argument exactly as given.
    public let text: String

    /// Where the argument came from.
    public let source: Source

    /// The directory ``path()`` resolves relative paths against.
    let currentDirectory: String

    /// The argument as a decimal integer, such as `42` or `-3`.
    ///
    /// - Returns: The integer.
    /// - Throws: ``UsageError/invalidValue(_:source:expected:)`` if the text is not an
    ///   integer that fits in `Int`.
    public func int() throws(UsageError) -> Int {
        guard let number = Int(text) else { throw .invalidValue(text, source: source, expected: "an integer") }
        return number
    }

    /// The argument as an absolute file path: relative paths are resolved against the
    /// context's current directory; the path is not otherwise normalised or checked.
    ///
    /// - Returns: The absolute path.
    /// - Throws: ``UsageError/invalidValue(_:source:expected:)`` if the text is empty.
    public func path() throws(UsageError) -> String {
        guard !text.isEmpty else { throw .invalidValue(text, source: source, expected: "a path") }
        if text.hasPrefix("/") { return text }
        return currentDirectory.hasSuffix("/") ? currentDirectory + text : currentDirectory + "/" + text
    }
}

extension ArgumentValue {
    /// `value` as a whole number of at least 1, or `fallback` when the option was not given.
    ///
    /// - Throws: ``UsageError`` for a value that is not a number, or is below 1.
    static func positive(_ value: ArgumentValue?, default fallback: Int) throws(UsageError) -> Int {
        guard let value else { return fallback }
        let number = try value.int()
        guard number > 0 else { throw .invalid("\(value.source) must be at least 1, not \(number)") }
        return number
    }
}
