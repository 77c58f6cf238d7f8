import Foundation
import QuireCore

/// Reads editing traces in Joseph Gentle's JSON format (`.json` or gzip-compressed
/// `.json.gz`) into ``EditingTrace``s.
enum TraceFile {
    /// A trace file that cannot be used, and why.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private struct Document: Decodable {
        var kind: String?
        var startContent: String?
        var endContent: String
        var txns: [Transaction]
    }

    private struct Transaction: Decodable {
        var parents: [Int]?
        var agent: Int?
        var patches: [Patch]
    }

    private struct Patch: Decodable {
        var position: Int
        var deleteCount: Int
        var text: String

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            position = try container.decode(Int.self)
            deleteCount = try container.decode(Int.self)
            text = try container.decode(String.self)
        }
    }

    /// Loads and parses the trace at `path`.
    ///
    /// - Throws: ``Failure`` naming the file and the problem (unreadable, corrupt gzip,
    ///   malformed JSON, a transaction with a missing or later parent).
    static func load(_ path: String) throws -> EditingTrace {
        let raw: [UInt8]
        do {
            raw = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw Failure(description: "cannot read \(path): \(error.localizedDescription)")
        }
        let json: [UInt8]
        do {
            json = Gzip.isCompressed(raw) ? try Gzip.decompress(raw) : raw
        } catch {
            throw Failure(description: "\(path): \(error)")
        }
        return try parse(json, name: path)
    }

    /// Parses trace JSON.
    static func parse(_ json: [UInt8], name: String) throws -> EditingTrace {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(json))
        } catch let error as Swift.DecodingError {
            throw Failure(description: "\(name) is not an editing trace: \(describe(error))")
        } catch {
            throw Failure(description: "\(name) is not an editing trace: \(error)")
        }
        let concurrent = document.kind == "concurrent"
        var transactions: [EditingTrace.Transaction] = []
        transactions.reserveCapacity(document.txns.count)
        for (index, transaction) in document.txns.enumerated() {
            let parents: [Int]
            if concurrent {
                guard let given = transaction.parents, let agent = transaction.agent, agent >= 0 else {
                    throw Failure(description: "\(name): transaction \(index) lacks parents or agent")
                }
                guard given.allSatisfy({ $0 >= 0 && $0 < index }) else {
                    throw Failure(description: "\(name): transaction \(index) has a parent that is not an earlier transaction")
                }
                parents = given
            } else {
                parents = index == 0 ? [] : [index - 1]
            }
            transactions.append(EditingTrace.Transaction(
                parents: parents, agent: concurrent ? transaction.agent ?? 0 : 0,
                patches: transaction.patches.map {
                    EditingTrace.Patch(position: $0.position, deleteCount: $0.deleteCount, text: $0.text)
                }))
        }
        return EditingTrace(
            startContent: document.startContent ?? "", endContent: document.endContent,
            isConcurrent: concurrent, transactions: transactions)
    }

    private static func describe(_ error: Swift.DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
            .valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
