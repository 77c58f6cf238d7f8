/// A bad invocation of the tool: the arguments do not make a valid command line.
///
/// The tool reports a usage error on standard error with the command's usage and a
/// pointer to its help, and exits with status 2:
///
/// ```
/// quire: unknown option '--bogus'
/// usage: quire version
/// Run 'quire help version' for details.
/// ```
///
/// Commands throw it from ``Command/init(parsing:)``, usually through ``Arguments`` and
/// ``ArgumentValue``, and may throw ``invalid(_:)`` with their own words.
public enum UsageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An option the command does not declare, spelled as given, such as `--bogus`.
    case unknownOption(String)
    /// A value-taking option given without its value, spelled as given.
    case missingValue(option: String)
    /// A flag given a value with `--flag=VALUE`, spelled as given.
    case unexpectedValue(option: String)
    /// A value that does not convert to what the command expects, such as
    /// `expected: "an integer"`.
    case invalidValue(String, source: ArgumentValue.Source, expected: String)
    /// A required option absent from both the command line and its environment variable.
    case missingOption(Option)
    /// A required positional argument that is absent, by its name in the usage.
    case missingArgument(String)
    /// A positional argument left over after the command read the ones it takes.
    case unexpectedArgument(String)
    /// A word that names no command or subcommand.
    case unknownCommand(String)
    /// A problem the command describes in its own words, such as two options that
    /// exclude each other.
    case invalid(String)

    /// The message shown after `quire: `.
    public var description: String {
        switch self {
        case .unknownOption(let spelling) where Int(spelling) != nil:
            "unknown option '\(spelling)' (put '--' before negative numbers meant as arguments)"
        case .unknownOption(let spelling):
            "unknown option '\(spelling)'"
        case .missingValue(let spelling):
            "option '\(spelling)' requires a value"
        case .unexpectedValue(let spelling):
            "option '\(spelling)' does not take a value"
        case .invalidValue(let text, let source, let expected):
            "invalid value '\(text)' for \(source): expected \(expected)"
        case .missingOption(let option):
            if let variable = option.environmentVariable {
                "missing option '\(option.synopsis)' (or set \(variable))"
            } else {
                "missing option '\(option.synopsis)'"
            }
        case .missingArgument(let name):
            "missing argument '\(name)'"
        case .unexpectedArgument(let text):
            "unexpected argument '\(text)'"
        case .unknownCommand(let word):
            "unknown command '\(word)'"
        case .invalid(let message):
            message
        }
    }
}
