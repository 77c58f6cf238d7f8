#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress bar on standard error, redrawn in place: only when standard error
/// is a terminal, so pipes, logs and tests never see it.
///
/// ```
/// importing [##########..........]  12/24 files   1.5/3.1 MB
/// ```
final class ProgressBar {
    private let output: FileDescriptorOutput
    private let label: String
    private let total: Int
    private let unit: String
    private let totalBytes: Int?
    private var isShowing = false

    /// A bar for `total` items (named `unit`), of `totalBytes` bytes when given, or `nil`
    /// when `errorOutput` is not a terminal.
    init?(label: String, total: Int, unit: String = "files", totalBytes: Int? = nil, errorOutput: any TextOutput) {
        guard let output = errorOutput as? FileDescriptorOutput, isatty(output.descriptor) == 1 else { return nil }
        self.output = output
        self.label = label
        self.total = max(total, 1)
        self.unit = unit
        self.totalBytes = totalBytes
    }

    /// Draws the bar for `done` items and `doneBytes` bytes.
    func update(done: Int, doneBytes: Int = 0) {
        let width = 24
        let filled = width * min(done, total) / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        func megabytes(_ bytes: Int) -> String {
            let tenths = bytes * 10 / 1_048_576
            return "\(tenths / 10).\(tenths % 10)"
        }
        let bytes = totalBytes.map { "  \(megabytes(doneBytes))/\(megabytes($0)) MB" } ?? ""
        output.write("\r\(label) [\(bar)] \(done)/\(total) \(unit)\(bytes)\u{1B}[K")
        isShowing = true
    }

    /// Erases the bar, so other output starts on a clean line.
    func clear() {
        guard isShowing else { return }
        output.write("\r\u{1B}[K")
        isShowing = false
    }
}
