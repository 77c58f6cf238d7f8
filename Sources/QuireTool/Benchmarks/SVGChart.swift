import Foundation

/// A self-contained SVG bar chart of benchmark figures: Quire beside the raw-LMDB
/// baseline measured in the same run and the peer figures recorded in
/// `docs/benchmarks.md`. Hand-written SVG, no scripts, no external fonts or styles, so it
/// renders the same on GitHub, in a browser and in an image viewer.
///
/// ```swift
/// var chart = SVGChart(title: "quire bench text — automerge-paper")
/// chart.panels.append(.init(title: "merge the whole history", unit: "ms", bars: [
///     .init(label: "Quire", value: 6.8, source: .quire),
///     .init(label: "Loro 1.17 (recorded)", value: 28, source: .peer),
/// ]))
/// try chart.write(to: "docs/charts/bench-text.svg")
/// ```
///
/// Each panel has its own scale: linear, or logarithmic (and labelled so) when its
/// largest bar is more than 50 times its smallest. Every bar is labelled with its value.
struct SVGChart {
    /// Where a figure comes from; sets the bar's colour and the legend.
    enum Source: String, CaseIterable {
        /// Measured through Quire in this run.
        case quire
        /// Measured through bare `mdb_*` calls in this run.
        case baseline
        /// Recorded in the docs from another system's run on this machine.
        case peer

        var colour: String {
            switch self {
            case .quire: "#2b6cb0"
            case .baseline: "#718096"
            case .peer: "#dd6b20"
            }
        }

        var legend: String {
            switch self {
            case .quire: "Quire, this run"
            case .baseline: "raw LMDB (bare mdb_* calls), this run"
            case .peer: "recorded in docs/benchmarks.md"
            }
        }
    }

    /// One bar.
    struct Bar {
        var label: String
        var value: Double
        var source: Source
    }

    /// A group of bars sharing one scale and unit.
    struct Panel {
        var title: String
        var unit: String
        var bars: [Bar]
        /// `lower is better` or `higher is better`, shown after the title.
        var better = "lower is better"
    }

    var title: String
    var subtitle: String = ""
    var panels: [Panel] = []

    /// How the tool was built, for subtitles: only release figures are worth quoting.
    static var build: String {
        #if DEBUG
        "debug build, not for quoting"
        #else
        "release build"
        #endif
    }

    private static let width = 760.0
    private static let labelWidth = 250.0
    private static let valueWidth = 120.0
    private static let barHeight = 20.0
    private static let barGap = 6.0
    private static let panelGap = 22.0

    /// The chart as an SVG document.
    func render() -> String {
        let plotWidth = Self.width - Self.labelWidth - Self.valueWidth - 20
        var body: [String] = []
        var y = 30.0
        body.append(text(title, x: 10, y: y, size: 16, weight: "bold"))
        if !subtitle.isEmpty {
            y += 18
            body.append(text(subtitle, x: 10, y: y, size: 11, fill: "#4a5568"))
        }
        y += 14
        // Legend: only the sources used.
        let used = Source.allCases.filter { source in panels.contains { $0.bars.contains { $0.source == source } } }
        var legendX = 10.0
        for source in used {
            body.append(#"<rect x="\#(format(legendX))" y="\#(format(y))" width="12" height="12" fill="\#(source.colour)"/>"#)
            body.append(text(source.legend, x: legendX + 16, y: y + 10, size: 11))
            legendX += 24 + Double(source.legend.count) * 6.2
        }
        y += 22
        for panel in panels {
            y += Self.panelGap
            let values = panel.bars.map(\.value).filter { $0 > 0 }
            let largest = values.max() ?? 1, smallest = values.min() ?? 1
            let logarithmic = largest / smallest > 50
            let scale = logarithmic ? " (log scale)" : ""
            body.append(text("\(panel.title), \(panel.unit) — \(panel.better)\(scale)", x: 10, y: y, size: 13, weight: "bold"))
            y += 8
            for bar in panel.bars {
                let length: Double
                if bar.value <= 0 {
                    length = 0
                } else if logarithmic {
                    let low = log10(smallest) - 0.3, high = log10(largest)
                    length = max(2, plotWidth * (log10(bar.value) - low) / (high - low))
                } else {
                    length = max(2, plotWidth * bar.value / largest)
                }
                body.append(text(bar.label, x: Self.labelWidth - 8, y: y + Self.barHeight * 0.7, size: 12, anchor: "end"))
                body.append(#"<rect x="\#(format(Self.labelWidth))" y="\#(format(y))" width="\#(format(length))" height="\#(format(Self.barHeight))" fill="\#(bar.source.colour)"><title>\#(Self.escape(bar.label)): \#(Self.figure(bar.value)) \#(Self.escape(panel.unit))</title></rect>"#)
                body.append(text("\(Self.figure(bar.value)) \(panel.unit)", x: Self.labelWidth + length + 6, y: y + Self.barHeight * 0.7, size: 12))
                y += Self.barHeight + Self.barGap
            }
        }
        y += 16
        let height = format(y)
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(format(Self.width))" height="\(height)" viewBox="0 0 \(format(Self.width)) \(height)" font-family="Helvetica, Arial, sans-serif">
            <rect width="100%" height="100%" fill="#ffffff"/>
            \(body.joined(separator: "\n"))
            </svg>

            """
    }

    /// Writes the chart to `path`, creating its folder.
    func write(to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(render().utf8).write(to: url, options: .atomic)
    }

    /// A figure as the chart prints it: three significant digits, thousands separated.
    static func figure(_ value: Double) -> String {
        if value >= 1000 {
            let rounded = Int(value.rounded())
            var digits = String(rounded)
            var grouped = ""
            while digits.count > 3 {
                grouped = "," + digits.suffix(3) + grouped
                digits.removeLast(3)
            }
            return digits + grouped
        }
        if value >= 100 { return String(format: "%.0f", value) }
        if value >= 10 { return String(format: "%.1f", value) }
        if value >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.3g", value)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private func text(_ content: String, x: Double, y: Double, size: Int, weight: String = "normal", fill: String = "#1a202c", anchor: String = "start") -> String {
        #"<text x="\#(format(x))" y="\#(format(y))" font-size="\#(size)" font-weight="\#(weight)" fill="\#(fill)" text-anchor="\#(anchor)">\#(Self.escape(content))</text>"#
    }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }
}

/// The peer figures recorded in `docs/benchmarks.md` and the issues, measured on this
/// machine (Loro 1.17 and Yrs through their Python bindings, py-lmdb) on automerge-paper
/// and the tree scenario.
enum PeerFigures {
    static let loroImportMs = 28.0
    static let yrsImportMs = 14.0
    static let loroHistoryBytes = 251_462.0
    static let yrsHistoryBytes = 311_038.0
    static let loroSnapshotLoadMs = 0.8
    static let loroKeystrokeBytes = 89.5
    static let yrsKeystrokeBytes = 24.2
    static let pyLMDBDurableCommitMs = 0.46
    static let pyLMDBNoSyncCommitMs = 0.009
    static let loroLocalMoveUs = 10.0
    static let loroTreeMergeMs = 9_200.0
}

extension ToolContext {
    /// Writes `chart` as `directory/name` and says so on standard error (standard output
    /// may be carrying `--json` lines).
    func writeChart(_ chart: SVGChart, named name: String, in directory: String?) throws {
        guard let directory else { return }
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        try chart.write(to: path)
        errorOutput.writeLine("wrote \(path)")
    }
}

extension Option {
    /// `--svg DIR`, shared by the benchmarks that draw charts.
    static let svg = Option.value("svg", placeholder: "DIR", help: "Also write SVG bar charts of the figures into DIR.")
}
