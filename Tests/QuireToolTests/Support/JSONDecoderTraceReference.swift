import Foundation
import QuireCore
@testable import QuireTool

/// The trace parser the tool used before ``TraceJSONReader``: Foundation's
/// `JSONDecoder` over `Decodable` mirrors of the format. Kept here only as the reference
/// the reader's results are compared with.
enum JSONDecoderTraceReference {
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

    /// `json` decoded by `JSONDecoder`, in the reader's form.
    static func decode(_ json: [UInt8]) throws -> TraceJSONReader.Document {
        let document = try JSONDecoder().decode(Document.self, from: Data(json))
        return TraceJSONReader.Document(
            kind: document.kind, startContent: document.startContent, endContent: document.endContent,
            transactions: document.txns.map { transaction in
                TraceJSONReader.Transaction(
                    parents: transaction.parents, agent: transaction.agent,
                    patches: transaction.patches.map {
                        EditingTrace.Patch(position: $0.position, deleteCount: $0.deleteCount, text: $0.text)
                    })
            })
    }
}
