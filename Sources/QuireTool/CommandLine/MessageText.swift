/// How messages show what the user typed, and the commands they suggest.
///
/// Names are shown in single quotes, cut to ``String/abbreviated`` when long; suggested
/// commands come from ``SuggestedCommand``, which quotes their arguments for a shell.
extension String {
    /// The string in single quotes for a shell, when it needs them.
    var shellQuoted: String {
        let plain = !isEmpty && allSatisfy { $0.isLetter || $0.isNumber || "-_./@".contains($0) }
        return plain ? self : "'" + replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The most characters of a name or path a message repeats.
    static let messageLimit = 60

    /// The string as a message shows it: whole up to ``messageLimit`` characters, else its
    /// first ``messageLimit`` characters, "…" and its length ("Aaaa… (10000 characters)").
    var abbreviated: String {
        guard count > Self.messageLimit else { return self }
        return String(prefix(Self.messageLimit)) + "… (\(count) characters)"
    }
}

/// A `quire` command a message suggests, quoted so that it can be copied into a shell.
///
/// ```swift
/// SuggestedCommand.quire("tree", .value("A/Your Prose/Draft"))  // "quire tree 'A/Your Prose/Draft'" in double quotes
/// SuggestedCommand.quire("restore", "\(id)")                     // 'quire restore 3a9d…@5'
/// ```
///
/// The command is delimited by single quotes when no argument needs quoting, and by
/// double quotes when one does (its own single quotes stay inside), so that quotes never
/// nest in the same kind.
enum SuggestedCommand {
    /// One word of a command: verbatim (subcommands, options, placeholders such as `NAME`)
    /// or a value the user gave, quoted for a shell.
    struct Word: ExpressibleByStringInterpolation {
        var text: String
        var isQuoted: Bool

        init(stringLiteral value: String) {
            text = value
            isQuoted = false
        }

        /// A value the user gave (a name, a path), shell-quoted when it needs it; one too
        /// long to repeat becomes `placeholder`.
        static func value(_ value: String, placeholder: String = "PATH") -> Word {
            guard value.count <= 255 else { return Word(stringLiteral: placeholder) }
            var word = Word(stringLiteral: value.shellQuoted)
            word.isQuoted = word.text != value
            return word
        }
    }

    /// `quire` followed by `words`, delimited for a message.
    static func quire(_ words: Word...) -> String {
        let command = (["quire"] + words.map(\.text)).joined(separator: " ")
        return words.contains(where: \.isQuoted) ? "\"\(command)\"" : "'\(command)'"
    }
}
