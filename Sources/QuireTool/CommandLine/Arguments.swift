/// A command line split into options and positional arguments, checked against the
/// options a command declares.
///
/// The rules:
/// - `--name` sets a flag; `--name VALUE` and `--name=VALUE` give a value-taking option
///   its value. A value may begin with one dash (`--offset -3`) but not two: use
///   `--name=--VALUE` for that.
/// - `-x` is the one-letter short name of an option; short names do not combine.
/// - An option given more than once keeps every value; ``value(of:)`` returns the last.
/// - `--` ends options: every word after it is positional, even if it begins with a dash.
///   A lone `-` is positional too.
/// - Any other word is positional; commands take positionals in order with
///   ``nextPositional(named:)``.
///
/// ```swift
/// let countOption = Option.value("count", placeholder: "N", help: "How many times.")
/// var arguments = try Arguments(parsing: ["--count=3", "notes.txt"], options: [countOption],
///                               environment: [:], currentDirectory: "/tmp")
/// let count = try arguments.value(of: countOption)?.int() ?? 1    // 3
/// let file = try arguments.nextPositional(named: "FILE").path()   // "/tmp/notes.txt"
/// ```
///
/// Reading an option that is not among the declared ones, or reading a flag as a value
/// or a value as a flag, is a programming error and stops the program.
public struct Arguments: Sendable {
    private let options: [Option]
    private let environment: [String: String]
    private let currentDirectory: String
    private var flagsGiven: Set<String> = []
    private var valuesGiven: [String: [ArgumentValue]] = [:]
    private var positionals: [String] = []
    private var positionalsRead = 0

    /// Parses a command line against the options a command declares.
    ///
    /// - Parameters:
    ///   - words: The arguments after the command's name.
    ///   - options: The options the command accepts.
    ///   - environment: Variables that options with an ``Option/environmentVariable``
    ///     fall back to.
    ///   - currentDirectory: The directory relative paths resolve against.
    /// - Throws: ``UsageError/unknownOption(_:)`` for an option not in `options`,
    ///   ``UsageError/missingValue(option:)`` for a value-taking option at the end or
    ///   followed by another `--` option, and ``UsageError/unexpectedValue(option:)`` for
    ///   `--flag=VALUE`.
    public init(
        parsing words: some Sequence<String>,
        options: [Option],
        environment: [String: String] = [:],
        currentDirectory: String = "/"
    ) throws(UsageError) {
        Self.checkDeclarations(options)
        self.options = options
        self.environment = environment
        self.currentDirectory = currentDirectory

        var words = Array(words)[...]
        while let word = words.popFirst() {
            if word == "--" {
                positionals += words
                break
            }
            guard word.hasPrefix("-"), word != "-" else {
                positionals.append(word)
                continue
            }
            let (spelling, inlineValue) = Self.split(word)
            guard let option = self.option(spelledAs: spelling) else { throw .unknownOption(spelling) }
            switch option.kind {
            case .flag:
                guard inlineValue == nil else { throw .unexpectedValue(option: spelling) }
                flagsGiven.insert(option.name)
            case .value:
                let text: String
                if let inlineValue {
                    text = inlineValue
                } else if let next = words.first, !next.hasPrefix("--") {
                    text = next
                    words.removeFirst()
                } else {
                    throw .missingValue(option: spelling)
                }
                let value = ArgumentValue(text: text, source: .option(spelling), currentDirectory: currentDirectory)
                valuesGiven[option.name, default: []].append(value)
            }
        }
    }

    /// Whether a flag was given.
    ///
    /// - Parameter option: A flag among the command's declared options.
    /// - Returns: `true` if the command line contains the flag.
    public func flag(_ option: Option) -> Bool {
        checkDeclared(option, as: .flag)
        return flagsGiven.contains(option.name)
    }

    /// The value of an option: its last occurrence on the command line, else its
    /// environment variable.
    ///
    /// - Parameter option: A value-taking option among the command's declared options.
    /// - Returns: The value, or `nil` if the option was not given and its environment
    ///   variable is unset or empty.
    public func value(of option: Option) -> ArgumentValue? {
        values(of: option).last
    }

    /// Every value of an option given more than once, such as `--tag a --tag b`.
    ///
    /// - Parameter option: A value-taking option among the command's declared options.
    /// - Returns: The values in command-line order; if there are none, the environment
    ///   variable's value alone; else an empty array.
    public func values(of option: Option) -> [ArgumentValue] {
        checkDeclared(option, as: nil)
        if let given = valuesGiven[option.name] { return given }
        guard let variable = option.environmentVariable,
              let text = environment[variable], !text.isEmpty
        else { return [] }
        return [ArgumentValue(text: text, source: .environment(variable), currentDirectory: currentDirectory)]
    }

    /// Takes the next positional argument, which must be present.
    ///
    /// - Parameter name: The argument's name in the usage, such as `"FILE"`.
    /// - Returns: The argument.
    /// - Throws: ``UsageError/missingArgument(_:)`` if no positional argument is left.
    public mutating func nextPositional(named name: String) throws(UsageError) -> ArgumentValue {
        guard let value = nextPositionalIfPresent(named: name) else { throw .missingArgument(name) }
        return value
    }

    /// Takes the next positional argument, if there is one.
    ///
    /// - Parameter name: The argument's name in the usage, such as `"FILE"`.
    /// - Returns: The argument, or `nil` if none is left.
    public mutating func nextPositionalIfPresent(named name: String) -> ArgumentValue? {
        guard positionalsRead < positionals.count else { return nil }
        defer { positionalsRead += 1 }
        return ArgumentValue(text: positionals[positionalsRead], source: .positional(name),
                             currentDirectory: currentDirectory)
    }

    /// Takes every positional argument left.
    ///
    /// - Parameter name: The arguments' name in the usage, such as `"FILE"`.
    /// - Returns: The arguments in order; empty if none is left.
    public mutating func remainingPositionals(named name: String) -> [ArgumentValue] {
        var values: [ArgumentValue] = []
        while let value = nextPositionalIfPresent(named: name) { values.append(value) }
        return values
    }

    /// Checks that the command took every positional argument.
    ///
    /// - Throws: ``UsageError/unexpectedArgument(_:)`` naming the first one left.
    func checkAllPositionalsRead() throws(UsageError) {
        if positionalsRead < positionals.count { throw .unexpectedArgument(positionals[positionalsRead]) }
    }

    /// Splits `--name=value` into `--name` and `value`; other words have no inline value.
    private static func split(_ word: String) -> (spelling: String, inlineValue: String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    /// The declared option spelled `--name` or `-x`, if any.
    private func option(spelledAs spelling: String) -> Option? {
        if spelling.hasPrefix("--") {
            let name = spelling.dropFirst(2)
            return options.first { $0.name == name }
        }
        let letters = spelling.dropFirst()
        guard letters.count == 1 else { return nil }
        return options.first { $0.shortName == letters.first }
    }

    private func checkDeclared(_ option: Option, as kind: Option.Kind?) {
        precondition(options.contains(option), "'\(option.spelling)' is not among the command's declared options")
        switch (kind, option.kind) {
        case (.flag?, .value): preconditionFailure("'\(option.spelling)' takes a value; read it with value(of:)")
        case (nil, .flag): preconditionFailure("'\(option.spelling)' is a flag; read it with flag(_:)")
        default: break
        }
    }

    private static func checkDeclarations(_ options: [Option]) {
        let names = options.map(\.name)
        precondition(Set(names).count == names.count, "Options declared twice in \(names)")
        let shortNames = options.compactMap(\.shortName)
        precondition(Set(shortNames).count == shortNames.count, "Short options declared twice in \(shortNames)")
    }
}
