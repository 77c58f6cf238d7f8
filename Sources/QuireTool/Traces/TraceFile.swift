import Foundation
import QuireCore

/// Reads editing traces in Joseph Gentle's JSON format (`.json` or gzip-compressed
/// `.json.gz`) into ``EditingTrace``s.
enum TraceFile {
    /// A trace file that cannot be used, and why.
    struct Failure: Error, CustomStringConvertible {
        var description: String
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

    /// Parses trace JSON with ``TraceJSONReader``, then checks the transaction graph.
    ///
    /// - Parameters:
    ///   - json: The (decompressed) bytes of the file.
    ///   - name: The file's name, for error messages.
    /// - Throws: ``Failure`` for JSON that is not an editing trace (naming the byte
    ///   offset and the place, such as `txns[17].patches[3]`), or a concurrent trace's
    ///   transaction with a missing agent or a parent that is not an earlier transaction.
    ///
    /// Complexity: O(n) in the length of `json`.
    static func parse(_ json: [UInt8], name: String) throws -> EditingTrace {
        let document = try TraceJSONReader.read(json, name: name)
        let concurrent = document.kind == "concurrent"
        var transactions: [EditingTrace.Transaction] = []
        transactions.reserveCapacity(document.transactions.count)
        for (index, transaction) in document.transactions.enumerated() {
            let parents: [Int]
            if concurrent {
                guard let given = transaction.parents, let agent = transaction.agent, agent >= 0 else {
                    throw Failure(description: "\(name): transaction \(index) lacks parents or agent")
                }
                // The replay keeps agents as 32-bit numbers.
                guard agent <= Int(Int32.max) else {
                    throw Failure(description: "\(name): transaction \(index) has agent \(agent), above the largest agent number, \(Int32.max)")
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
                patches: transaction.patches))
        }
        return EditingTrace(
            startContent: document.startContent ?? "", endContent: document.endContent,
            isConcurrent: concurrent, transactions: transactions)
    }
}
