import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import QuireTool
import QuireTestSupport
import Testing

/// Collects what an SVG document holds, parsing it as XML.
private final class SVGContents: NSObject, XMLParserDelegate {
    var elements: [String] = []
    var texts: [String] = []
    var rectangles: [[String: String]] = []
    private var current = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        elements.append(name)
        if name == "rect" { rectangles.append(attributes) }
        current = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { current += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "text" || name == "title" { texts.append(current) }
        current = ""
    }

    /// Parses `data`; `nil` when it is not well-formed XML.
    static func parse(_ data: Data) -> SVGContents? {
        let contents = SVGContents()
        let parser = XMLParser(data: data)
        parser.delegate = contents
        return parser.parse() ? contents : nil
    }
}

@Suite("SVG charts of the benchmarks")
struct SVGChartTests {
    @Test("a chart is well-formed SVG with every bar, its value and unit, escaped labels and a legend of the sources used")
    func chart() throws {
        var chart = SVGChart(title: "bench <text> & more", subtitle: "automerge-paper")
        chart.panels = [
            .init(title: "import", unit: "ms", bars: [
                .init(label: "Quire", value: 10.3, source: .quire),
                .init(label: "Loro 1.17", value: 28, source: .peer),
            ]),
            .init(title: "commit", unit: "µs", bars: [
                .init(label: "layer", value: 206, source: .quire),
                .init(label: "bare mdb_*", value: 198, source: .baseline),
            ]),
            .init(title: "merge", unit: "ms", bars: [
                .init(label: "Quire", value: 70.8, source: .quire),
                .init(label: "Loro 1.17", value: 9_200, source: .peer),
            ]),
        ]
        let svg = chart.render()
        let contents = try #require(SVGContents.parse(Data(svg.utf8)), "not well-formed:\n\(svg)")
        #expect(contents.elements.first == "svg")
        #expect(svg.contains(#"xmlns="http://www.w3.org/2000/svg""#))
        #expect(!svg.contains("<script") && !svg.contains("href"))
        #expect(contents.texts.contains("bench <text> & more"))
        for value in ["10.3 ms", "28.0 ms", "206 µs", "198 µs", "70.8 ms", "9,200 ms"] {
            #expect(contents.texts.contains(value), "\(value) missing")
        }
        #expect(contents.texts.contains("Loro 1.17: 9,200 ms"))
        #expect(contents.texts.contains { $0.hasPrefix("merge, ms") && $0.hasSuffix("(log scale)") })
        #expect(contents.texts.contains { $0.hasPrefix("import, ms") && !$0.contains("log scale") })
        #expect(contents.texts.contains("raw LMDB (bare mdb_* calls), this run"))
        // Bars of one linear panel are proportional to their values.
        let bars = contents.rectangles.filter { $0["height"] == "20.0" }
        #expect(bars.count == 6)
        let quire = try #require(Double(bars[0]["width"] ?? "")), loro = try #require(Double(bars[1]["width"] ?? ""))
        #expect(abs(quire / loro - 10.3 / 28) < 0.01)
    }

    @Test("quire bench lmdb --svg DIR writes a chart of the figures it printed, layer beside bare mdb_*")
    func benchWritesChart() throws {
        try withTemporaryDirectory { temp in
            let charts = temp.appending("charts")
            let run = try QuireExecutable.run(["bench", "lmdb", "--runs", "1", "--commits", "5", "--reads", "50", "--entries", "200", "--json", "--svg", charts])
            #expect(run.status == 0, "stderr: \(run.standardError)")
            #expect(run.standardError.contains("wrote \(charts)/bench-lmdb.svg"))
            let figures = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
            let data = try Data(contentsOf: URL(fileURLWithPath: charts + "/bench-lmdb.svg"))
            let contents = try #require(SVGContents.parse(data))
            let commit = try #require(figures["commit_us"] as? Double), raw = try #require(figures["raw_commit_us"] as? Double)
            #expect(contents.texts.contains("LMDB layer: \(SVGChart.figure(commit)) µs"))
            #expect(contents.texts.contains("bare mdb_*: \(SVGChart.figure(raw)) µs"))
            #expect(contents.texts.contains("py-lmdb durable commit: 460 µs"))
        }
    }

    @Test("figures print with three significant digits and thousands separators")
    func figures() {
        #expect(SVGChart.figure(251_462) == "251,462")
        #expect(SVGChart.figure(1_116.4) == "1,116")
        #expect(SVGChart.figure(206.4) == "206")
        #expect(SVGChart.figure(18.34) == "18.3")
        #expect(SVGChart.figure(1.19) == "1.19")
        #expect(SVGChart.figure(0.0068) == "0.0068")
    }
}
