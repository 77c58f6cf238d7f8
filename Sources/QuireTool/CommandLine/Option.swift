/// A named option a command accepts: a boolean flag such as `--json`, or an option with a
/// value such as `--store DIR`.
///
/// Declare options as static constants of the command, list them in
/// ``Command/options``, and read them back from ``Arguments`` with the same constant:
///
/// ```swift
/// static let store = Option.value(
///     "store", placeholder: "DIR", environmentVariable: "QUIRE_STORE",
///     help: "The store's directory.")
/// ```
public struct Option: Hashable, Sendable {
    /// Whether an option is a flag or takes a value.
    public enum Kind: Hashable, Sendable {
        /// A boolean flag: present or absent, never given a value.
        case flag
        /// An option followed by a value, shown in help as `placeholder`, such as `DIR`.
        case value(placeholder: String)
    }

    /// The long name, without dashes: `"store"` for `--store`.
    public let name: String

    /// The one-letter short name, without the dash, if the option has one.
    public let shortName: Character?

    /// Whether the option is a flag or takes a value.
    public let kind: Kind

    /// One line of help, shown next to the option in the command's help.
    public let help: String

    /// The environment variable read when the option is absent from the command line.
    public let environmentVariable: String?

    /// Whether help leaves the option out: a mode the tool uses for itself, such as the
    /// child processes a benchmark starts. See ``hidden()``.
    public private(set) var isHidden = false

    private init(name: String, shortName: Character?, kind: Kind, help: String, environmentVariable: String?) {
        precondition(!name.isEmpty && !name.hasPrefix("-") && !name.contains("="),
                     "An option's name is a word without leading dashes or '=': '\(name)'")
        precondition(shortName.map { $0 != "-" && !$0.isWhitespace } ?? true,
                     "An option's short name is a letter: '\(shortName.map(String.init) ?? "")'")
        self.name = name
        self.shortName = shortName
        self.kind = kind
        self.help = help
        self.environmentVariable = environmentVariable
    }

    /// Declares a boolean flag, such as `--json`.
    ///
    /// - Parameters:
    ///   - name: The long name, without dashes.
    ///   - shortName: A one-letter alias, such as `"v"` for `-v`, or `nil`.
    ///   - help: One line describing what the flag changes.
    /// - Returns: The option, to list in ``Command/options`` and pass to
    ///   ``Arguments/flag(_:)``.
    public static func flag(_ name: String, shortName: Character? = nil, help: String) -> Option {
        Option(name: name, shortName: shortName, kind: .flag, help: help, environmentVariable: nil)
    }

    /// Declares an option that takes a value, such as `--store DIR` or `--store=DIR`.
    ///
    /// - Parameters:
    ///   - name: The long name, without dashes.
    ///   - shortName: A one-letter alias, such as `"n"` for `-n 10`, or `nil`.
    ///   - placeholder: The value's name in help, such as `"DIR"`.
    ///   - environmentVariable: A variable to read when the option is not given, such as
    ///     `"QUIRE_STORE"`; an empty variable counts as unset.
    ///   - help: One line describing the value.
    /// - Returns: The option, to list in ``Command/options`` and pass to
    ///   ``Arguments/value(of:)``.
    public static func value(
        _ name: String,
        shortName: Character? = nil,
        placeholder: String,
        environmentVariable: String? = nil,
        help: String
    ) -> Option {
        Option(name: name, shortName: shortName, kind: .value(placeholder: placeholder),
               help: help, environmentVariable: environmentVariable)
    }

    /// The same option, left out of help: for modes the tool runs itself in, not for people.
    ///
    /// ```swift
    /// static let openChild = Option.value("open-child", placeholder: "DIR", help: "Internal.").hidden()
    /// ```
    ///
    /// - Returns: The option, parsed as before but not listed by `--help`.
    public func hidden() -> Option {
        var option = self
        option.isHidden = true
        return option
    }

    /// `--help`, `-h`: every command has it, so commands do not declare it.
    static let showHelp = Option.flag("help", shortName: "h", help: "Show this help.")

    /// The long spelling, such as `--store`.
    var spelling: String { "--" + name }

    /// The spelling with the value's placeholder, such as `--store DIR`, as help shows it.
    var synopsis: String {
        switch kind {
        case .flag: spelling
        case .value(let placeholder): "\(spelling) \(placeholder)"
        }
    }
}
