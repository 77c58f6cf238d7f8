/// Two columns of text lines side by side, as the demo prints both replicas.
enum SideBySide {
    /// `left` and `right` under their titles, the right column starting past the widest
    /// left line; the shorter column is padded with blank lines.
    static func lines(_ leftTitle: String, _ left: [String], _ rightTitle: String, _ right: [String]) -> [String] {
        let left = [leftTitle, String(repeating: "─", count: leftTitle.count)] + left
        let right = [rightTitle, String(repeating: "─", count: rightTitle.count)] + right
        let width = (left.map(\.count).max() ?? 0) + 4
        return (0..<max(left.count, right.count)).map { index in
            let l = index < left.count ? left[index] : ""
            let r = index < right.count ? right[index] : ""
            let line = r.isEmpty ? l : l + String(repeating: " ", count: width - l.count) + r
            return String(line.reversed().drop(while: { $0 == " " }).reversed())
        }
    }
}
