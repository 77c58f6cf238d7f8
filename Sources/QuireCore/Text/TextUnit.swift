/// The unit a text position or length is counted in.
///
/// Positions are Unicode scalars by default. Text views on Apple platforms speak UTF-16
/// (`NSRange`); network protocols and files often speak UTF-8. All three are O(log n).
///
/// Encodes as its case name: `"unicodeScalars"`, `"utf16"` or `"utf8"`.
public enum TextUnit: String, Sendable, Hashable, Codable, CaseIterable {
    /// Unicode scalars (code points).
    case unicodeScalars
    /// UTF-16 code units, as `NSString` and `NSRange` count.
    case utf16
    /// UTF-8 code units (bytes).
    case utf8
}

/// The sizes of a stretch of text: all items (tombstones included) and the visible text in
/// each unit.
struct TextCounts: Equatable {
    /// Items, deleted ones included: the document order positions.
    var items = 0
    /// Visible Unicode scalars.
    var scalars = 0
    /// Visible UTF-16 code units.
    var utf16 = 0
    /// Visible UTF-8 bytes.
    var utf8 = 0

    @inline(__always)
    func visible(_ unit: TextUnit) -> Int {
        switch unit {
        case .unicodeScalars: scalars
        case .utf16: utf16
        case .utf8: utf8
        }
    }

    static func + (lhs: TextCounts, rhs: TextCounts) -> TextCounts {
        TextCounts(items: lhs.items + rhs.items, scalars: lhs.scalars + rhs.scalars,
                   utf16: lhs.utf16 + rhs.utf16, utf8: lhs.utf8 + rhs.utf8)
    }

    static func - (lhs: TextCounts, rhs: TextCounts) -> TextCounts {
        TextCounts(items: lhs.items - rhs.items, scalars: lhs.scalars - rhs.scalars,
                   utf16: lhs.utf16 - rhs.utf16, utf8: lhs.utf8 - rhs.utf8)
    }

    static func += (lhs: inout TextCounts, rhs: TextCounts) { lhs = lhs + rhs }
}
