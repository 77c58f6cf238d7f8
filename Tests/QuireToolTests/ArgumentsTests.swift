import Testing
@testable import QuireTool

private let json = Option.flag("json", help: "Print JSON.")
private let verbose = Option.flag("verbose", shortName: "v", help: "Say more.")
private let count = Option.value("count", shortName: "n", placeholder: "N", help: "How many.")
private let offset = Option.value("offset", placeholder: "N", help: "Where.")
private let tag = Option.value("tag", placeholder: "TAG", help: "A label.")
private let store = Option.value("store", placeholder: "DIR", environmentVariable: "QUIRE_STORE", help: "Where.")
private let allOptions = [json, verbose, count, offset, tag, store]

private func parse(_ words: [String], environment: [String: String] = [:]) throws(UsageError) -> Arguments {
    try Arguments(parsing: words, options: allOptions, environment: environment, currentDirectory: "/work")
}

@Suite("Parsing options")
struct OptionParsingTests {
    @Test("a long flag is set when given and unset when absent")
    func flags() throws {
        let arguments = try parse(["--json"])
        #expect(arguments.flag(json))
        #expect(!arguments.flag(verbose))
    }

    @Test("a value follows its option as the next word or after '='", arguments: [
        ["--count", "7"], ["--count=7"], ["-n", "7"],
    ])
    func valueSpellings(words: [String]) throws {
        #expect(try parse(words).value(of: count)?.text == "7")
    }

    @Test("the value after '=' is everything up to the end of the word, even empty")
    func inlineValues() throws {
        #expect(try parse(["--tag=a=b"]).value(of: tag)?.text == "a=b")
        #expect(try parse(["--tag="]).value(of: tag)?.text == "")
    }

    @Test("a value may begin with one dash, so negative numbers need no '='")
    func negativeValue() throws {
        #expect(try parse(["--offset", "-3"]).value(of: offset)?.int() == -3)
        #expect(try parse(["--tag", "-"]).value(of: tag)?.text == "-")
    }

    @Test("a value records the spelling it was given with")
    func valueSource() throws {
        #expect(try parse(["-n", "1"]).value(of: count)?.source == .option("-n"))
        #expect(try parse(["--count=1"]).value(of: count)?.source == .option("--count"))
    }

    @Test("an option given twice keeps both values; value(of:) is the last")
    func repeatedOption() throws {
        let arguments = try parse(["--tag", "a", "--tag=b", "--json"])
        #expect(arguments.values(of: tag).map(\.text) == ["a", "b"])
        #expect(arguments.value(of: tag)?.text == "b")
    }

    @Test("an absent option without an environment variable has no value")
    func absentValue() throws {
        let arguments = try parse([])
        #expect(arguments.value(of: count) == nil)
        #expect(arguments.values(of: count).isEmpty)
    }

    @Test("a short flag is set by its letter")
    func shortFlag() throws {
        #expect(try parse(["-v"]).flag(verbose))
    }

    @Test("an undeclared long option is an error that names it", arguments: [
        (["--bogus"], "--bogus"), (["--bogus=3"], "--bogus"), (["--json", "--JSON"], "--JSON"), (["--=3"], "--"),
    ])
    func unknownLongOption(words: [String], spelling: String) {
        let error = #expect(throws: UsageError.self) { _ = try parse(words) }
        #expect(error == .unknownOption(spelling))
        #expect(error?.description == "unknown option '\(spelling)'")
    }

    @Test("an undeclared or combined short option is an error", arguments: ["-x", "-nv", "-vn"])
    func unknownShortOption(word: String) {
        let error = #expect(throws: UsageError.self) { _ = try parse([word]) }
        #expect(error == .unknownOption(word))
        #expect(error?.description == "unknown option '\(word)'")
    }

    @Test("a negative number where an option could be suggests '--'")
    func negativeNumberHint() {
        let error = #expect(throws: UsageError.self) { _ = try parse(["-5"]) }
        #expect(error == .unknownOption("-5"))
        #expect(error?.description == "unknown option '-5' (put '--' before negative numbers meant as arguments)")
    }

    @Test("an option without its value is an error", arguments: [
        (["--count"], "--count"), (["-n"], "-n"), (["--count", "--json"], "--count"), (["--count", "--"], "--count"),
    ])
    func missingValue(words: [String], spelling: String) {
        let error = #expect(throws: UsageError.self) { _ = try parse(words) }
        #expect(error == .missingValue(option: spelling))
        #expect(error?.description == "option '\(spelling)' requires a value")
    }

    @Test("a flag given a value is an error")
    func flagWithValue() {
        let error = #expect(throws: UsageError.self) { _ = try parse(["--json=yes"]) }
        #expect(error == .unexpectedValue(option: "--json"))
        #expect(error?.description == "option '--json' does not take a value")
    }
}

@Suite("Parsing positional arguments")
struct PositionalParsingTests {
    @Test("positionals are taken in order, between and after options")
    func order() throws {
        var arguments = try parse(["first", "--json", "second", "--count", "2", "third"])
        #expect(try arguments.nextPositional(named: "A").text == "first")
        #expect(arguments.nextPositionalIfPresent(named: "B")?.text == "second")
        #expect(arguments.remainingPositionals(named: "C").map(\.text) == ["third"])
        #expect(arguments.nextPositionalIfPresent(named: "D") == nil)
        #expect(arguments.flag(json))
    }

    @Test("a positional records its name as its source")
    func source() throws {
        var arguments = try parse(["notes"])
        #expect(try arguments.nextPositional(named: "FILE").source == .positional("FILE"))
    }

    @Test("'--' ends options: every later word is positional")
    func endOfOptions() throws {
        var arguments = try parse(["--json", "--", "--count", "-v", "--"])
        #expect(arguments.remainingPositionals(named: "WORD").map(\.text) == ["--count", "-v", "--"])
        #expect(arguments.flag(json))
        #expect(!arguments.flag(verbose))
        #expect(arguments.value(of: count) == nil)
    }

    @Test("a lone '--' gives no positionals")
    func loneEndOfOptions() throws {
        var arguments = try parse(["--"])
        #expect(arguments.nextPositionalIfPresent(named: "FILE") == nil)
    }

    @Test("a lone '-' is a positional")
    func dash() throws {
        var arguments = try parse(["-"])
        #expect(try arguments.nextPositional(named: "FILE").text == "-")
    }

    @Test("a missing positional is an error that names it")
    func missing() throws {
        var arguments = try parse(["one"])
        _ = try arguments.nextPositional(named: "SOURCE")
        let error = #expect(throws: UsageError.self) { _ = try arguments.nextPositional(named: "DESTINATION") }
        #expect(error == .missingArgument("DESTINATION"))
        #expect(error?.description == "missing argument 'DESTINATION'")
    }

    @Test("a positional left unread is an error that names the first one")
    func extra() throws {
        var arguments = try parse(["one", "two", "three"])
        _ = try arguments.nextPositional(named: "FILE")
        let error = #expect(throws: UsageError.self) { try arguments.checkAllPositionalsRead() }
        #expect(error == .unexpectedArgument("two"))
        #expect(error?.description == "unexpected argument 'two'")
    }

    @Test("no error when every positional was read")
    func allRead() throws {
        var arguments = try parse(["one"])
        _ = arguments.remainingPositionals(named: "FILE")
        try arguments.checkAllPositionalsRead()
    }
}

@Suite("Environment fallback")
struct EnvironmentFallbackTests {
    @Test("an absent option takes its environment variable's value")
    func fallback() throws {
        let arguments = try parse([], environment: ["QUIRE_STORE": "/data/notes"])
        #expect(arguments.value(of: store)?.text == "/data/notes")
        #expect(arguments.value(of: store)?.source == .environment("QUIRE_STORE"))
        #expect(arguments.values(of: store).map(\.text) == ["/data/notes"])
    }

    @Test("the command line wins over the environment")
    func commandLineWins() throws {
        let arguments = try parse(["--store", "/cli"], environment: ["QUIRE_STORE": "/env"])
        #expect(arguments.values(of: store).map(\.text) == ["/cli"])
    }

    @Test("an empty environment variable counts as unset")
    func emptyVariable() throws {
        #expect(try parse([], environment: ["QUIRE_STORE": ""]).value(of: store) == nil)
    }

    @Test("options without a declared variable ignore the environment")
    func undeclared() throws {
        #expect(try parse([], environment: ["count": "3", "COUNT": "3"]).value(of: count) == nil)
    }
}

@Suite("Converting values")
struct ValueConversionTests {
    @Test("integers convert, with a sign", arguments: [("42", 42), ("-3", -3), ("+8", 8), ("0", 0)])
    func integers(text: String, number: Int) throws {
        #expect(try parse(["--count", text]).value(of: count)?.int() == number)
    }

    @Test("a non-integer is an error that names the option as spelled", arguments: [
        "abc", "1.5", "", " 1", "99999999999999999999",
    ])
    func badInteger(text: String) throws {
        let value = try #require(try parse(["-n", text]).value(of: count))
        let error = #expect(throws: UsageError.self) { _ = try value.int() }
        #expect(error == .invalidValue(text, source: .option("-n"), expected: "an integer"))
        #expect(error?.description == "invalid value '\(text)' for option '-n': expected an integer")
    }

    @Test("a bad value from the environment names the variable")
    func badEnvironmentValue() throws {
        let retries = Option.value("retries", placeholder: "N", environmentVariable: "QUIRE_RETRIES", help: "")
        let arguments = try Arguments(parsing: [], options: [retries], environment: ["QUIRE_RETRIES": "many"])
        let error = #expect(throws: UsageError.self) { _ = try arguments.value(of: retries)?.int() }
        #expect(error?.description == "invalid value 'many' for environment variable QUIRE_RETRIES: expected an integer")
    }

    @Test("a bad positional names the argument")
    func badPositional() throws {
        var arguments = try parse(["ten"])
        let error = #expect(throws: UsageError.self) { _ = try arguments.nextPositional(named: "COUNT").int() }
        #expect(error?.description == "invalid value 'ten' for argument 'COUNT': expected an integer")
    }

    @Test("a path is made absolute against the current directory", arguments: [
        ("/abs/notes", "/work", "/abs/notes"),
        ("notes", "/work", "/work/notes"),
        ("a/../b", "/work", "/work/a/../b"),
        ("notes", "/", "/notes"),
        ("notes", "/work/", "/work/notes"),
    ])
    func paths(text: String, currentDirectory: String, expected: String) throws {
        let arguments = try Arguments(parsing: ["--store", text], options: [store], currentDirectory: currentDirectory)
        #expect(try arguments.value(of: store)?.path() == expected)
    }

    @Test("an empty path is an error")
    func emptyPath() throws {
        let value = try #require(try parse(["--store="]).value(of: store))
        let error = #expect(throws: UsageError.self) { _ = try value.path() }
        #expect(error?.description == "invalid value '' for option '--store': expected a path")
    }
}

@Suite("Declaring options")
struct OptionDeclarationTests {
    @Test("reading an undeclared option stops the program")
    func undeclared() async {
        await #expect(processExitsWith: .failure) {
            let arguments = try Arguments(parsing: [], options: [])
            _ = arguments.flag(Option.flag("json", help: ""))
        }
    }

    @Test("reading a flag as a value stops the program")
    func flagAsValue() async {
        await #expect(processExitsWith: .failure) {
            let json = Option.flag("json", help: "")
            _ = try Arguments(parsing: [], options: [json]).value(of: json)
        }
    }

    @Test("declaring an option twice stops the program")
    func duplicate() async {
        await #expect(processExitsWith: .failure) {
            _ = try Arguments(parsing: [], options: [.flag("json", help: ""), .flag("json", help: "")])
        }
    }
}
