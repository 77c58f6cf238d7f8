import Foundation
import Testing

/// Finds the ```swift blocks of the Markdown docs and checks that each appears, verbatim
/// up to whitespace, in the compiled snippet sources (`Tests/*/Docs/*.swift`).
///
/// Normal form: each line trimmed, blank lines and `import` lines dropped (a snippet's
/// imports are its file's). Blockquoted blocks (`> ```swift`) lose their `>` markers.
/// A block is exempt when its fence is ```` ```swift-nocompile ```` or the line just above
/// it (blank lines aside) is `<!-- not compiled: reason -->`.
enum DocSnippetChecker {
    /// One ```swift block of a doc.
    struct Snippet: Equatable {
        /// The doc's path, relative to the package root.
        var doc: String
        /// The 1-based line of the opening fence.
        var line: Int
        /// The block's lines in normal form.
        var lines: [String]
    }

    /// The compilable ```swift blocks of `markdown`, in order.
    static func snippets(in markdown: String, doc: String) -> [Snippet] {
        var snippets: [Snippet] = []
        var open: (line: Int, depth: Int, lines: [String])?
        var previous = ""   // the last non-blank line outside a block, without quote markers
        for (index, raw) in markdown.components(separatedBy: "\n").enumerated() {
            let (depth, text) = unquoted(raw)
            if var block = open {
                if text.hasPrefix("```") {
                    snippets.append(Snippet(doc: doc, line: block.line, lines: normalised(block.lines)))
                    open = nil
                } else {
                    block.lines.append(unquoted(raw, atMost: block.depth))
                    open = block
                }
                continue
            }
            if text == "```swift", !previous.hasPrefix("<!-- not compiled:") {
                open = (index + 1, depth, [])
            }
            if !text.isEmpty { previous = text }
        }
        return snippets
    }

    /// The problems found: a line per block not in `sources` (file contents).
    static func problems(docs: [(path: String, markdown: String)], sources: [String]) -> [String] {
        let haystacks = sources.map { "\n" + normalised($0.components(separatedBy: "\n")).joined(separator: "\n") + "\n" }
        var problems: [String] = []
        for (path, markdown) in docs {
            for snippet in snippets(in: markdown, doc: path) {
                let needle = "\n" + snippet.lines.joined(separator: "\n") + "\n"
                guard !snippet.lines.isEmpty, !haystacks.contains(where: { $0.contains(needle) }) else { continue }
                problems.append(
                    "\(snippet.doc):\(snippet.line): the ```swift block starting `\(snippet.lines[0])` is not in the "
                        + "compiled snippets (Tests/*/Docs/*.swift): copy it there verbatim, inside a function that "
                        + "gives it its context, or mark it <!-- not compiled: reason --> if it cannot compile")
            }
        }
        return problems
    }

    /// Lines trimmed; blank and `import` lines dropped.
    static func normalised(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    /// The number of blockquote markers at the start of `line`, and the rest trimmed.
    private static func unquoted(_ line: String) -> (depth: Int, text: String) {
        var depth = 0
        var text = line.trimmingCharacters(in: .whitespaces)
        while text.hasPrefix(">") {
            depth += 1
            text = String(text.dropFirst()).trimmingCharacters(in: .whitespaces)
        }
        return (depth, text)
    }

    /// `line` without up to `depth` blockquote markers.
    private static func unquoted(_ line: String, atMost depth: Int) -> String {
        var text = Substring(line)
        for _ in 0..<depth {
            let trimmed = text.drop { $0 == " " }
            guard trimmed.hasPrefix(">") else { break }
            text = trimmed.dropFirst()
        }
        return String(text)
    }
}

@Suite("Doc snippets are compiled")
struct DocSnippetCheckTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func docs() throws -> [(path: String, markdown: String)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted()
        return try (["README.md"] + names.map { "docs/" + $0 }).map { path in
            (path, try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8))
        }
    }

    /// `Tests/*/Docs/*.swift`, this file aside.
    static func sources() throws -> [String] {
        let tests = root.appendingPathComponent("Tests")
        var sources: [String] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: tests.path).sorted() {
            let docs = tests.appendingPathComponent(target).appendingPathComponent("Docs")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: docs.path) else { continue }
            for name in names.sorted() where name.hasSuffix(".swift") && name != "DocSnippetCheckTests.swift" {
                sources.append(try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8))
            }
        }
        return sources
    }

    @Test("every ```swift block of README.md and docs/*.md is in a compiled test source")
    func everySnippetIsCompiled() throws {
        let docs = try Self.docs()
        let counts = Dictionary(uniqueKeysWithValues: docs.map {
            ($0.path, DocSnippetChecker.snippets(in: $0.markdown, doc: $0.path).count)
        })
        // The checker finds the blocks at all (a parsing slip would pass everything).
        #expect(counts["README.md"] == 1)
        #expect(counts["docs/store.md", default: 0] >= 29)
        #expect(counts["docs/architecture.md"] == 1)
        #expect(counts["docs/text.md"] == 2)
        let problems = DocSnippetChecker.problems(docs: docs, sources: try Self.sources())
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("a block missing from the sources is reported with its doc, line and first line; whitespace, blank lines, imports and exempt blocks are not")
    func reportsMissingSnippet() {
        let doc = """
            # Made up

            ```swift
            import Quire
            let a = 1

            let b = a + 1
            ```

            > ```swift
            > let quoted = 2
            > ```

            <!-- not compiled: pseudo-code -->
            ```swift
            anything at all
            ```

            ```swift-nocompile
            nor this
            ```

              ```swift
              let c = 3
              print(c)
              ```
            """
        let source = """
            func f() {
                let a = 1
                    let b = a + 1
                let quoted = 2
                let c = 3
                print(d)
            }
            """
        let snippets = DocSnippetChecker.snippets(in: doc, doc: "docs/made-up.md")
        #expect(snippets.map(\.line) == [3, 10, 23])
        #expect(snippets.map(\.lines) == [["let a = 1", "let b = a + 1"], ["let quoted = 2"], ["let c = 3", "print(c)"]])
        let problems = DocSnippetChecker.problems(docs: [("docs/made-up.md", doc)], sources: [source])
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("docs/made-up.md:23: the ```swift block starting `let c = 3`") == true, "\(problems)")
        #expect(DocSnippetChecker.problems(docs: [("docs/made-up.md", doc)], sources: [source + "\nlet c = 3\nprint(c)"]).isEmpty)
    }
}
