/// Text from the store shown on one line of a list or a message, with what a terminal
/// would act on made visible.
///
/// Answers, clues and names come from users and from other replicas: an ESC in one would
/// make the terminal run an escape sequence, a line break would split one record over
/// two lines, U+202E would display the rest of the line backwards. Lists print every
/// record on one line with such characters shown instead: `\n`, `\r` and `\t` as those
/// two characters, other C0 controls as their Unicode control pictures (ESC as `␛`,
/// DEL as `␡`), and C1 controls, line separators, bidirectional controls and other
/// invisible format characters as `\u{202E}`. `cat` and `--json` are exact instead.
extension String {
    /// The string with control and invisible characters shown, for one line of output.
    ///
    /// ```swift
    /// "Paris\n\u{1B}[31mred".visibleOnOneLine   // "Paris\n␛[31mred" with a backslash and an n
    /// ```
    var visibleOnOneLine: String {
        guard unicodeScalars.contains(where: Self.needsShowing) else { return self }
        var result = ""
        for scalar in unicodeScalars {
            guard Self.needsShowing(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case 0x00..<0x20: result.unicodeScalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0x7F: result += "\u{2421}"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    private static func needsShowing(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator:
            return true
        case .format:
            // U+200D joins emoji and U+200C Persian letters; tags and the rest of the
            // format characters are shown. Bidirectional controls are always shown.
            return scalar.properties.isBidiControl || !(scalar.value == 0x200D || scalar.value == 0x200C || (0xE0020...0xE007F).contains(scalar.value))
        default:
            return false
        }
    }
}
