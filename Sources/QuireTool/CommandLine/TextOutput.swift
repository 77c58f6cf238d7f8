/// A destination for a command's text: standard output, standard error, or a buffer.
///
/// Conforming types must be safe to write to from any task.
public protocol TextOutput: Sendable {
    /// Writes text exactly as given, with no newline added.
    ///
    /// - Parameter text: The text to write.
    func write(_ text: String)
}

extension TextOutput {
    /// Writes a line of text followed by a newline.
    ///
    /// - Parameter line: The text to write; empty for a blank line.
    public func writeLine(_ line: String = "") {
        write(line + "\n")
    }
}
