import Foundation
import QuireCore

/// A name as a delta file writes it: spelled out, or the position of a name the
/// change's replica used before (see ``ReplicaNames``).
enum NameReference: Hashable, Sendable {
    case spelled(String)
    case position(Int)
}

/// A change as a delta file carries it: names as references into its replica's name
/// table, resolved (``resolved(with:)``) only when the change is applied — by then every
/// earlier change of its replica has been, so the table is complete.
///
/// ```
/// change     flags · [replica (8 bytes LE) · first counter]   unless from the sender
///            · lamport − first counter (signed)
///            · [time (see DeltaTime)]                          if flagged (128)
///            · [replicas: n, n × replica (8 bytes LE)]         if flagged; index 0 is the
///                                                                change's own replica
///            · [dependencies: k, k × (replica index · counter)] if flagged
///            · [operation count]                               unless flagged single
///            · operations
/// flags      1 from the sender · 2 replica table · 4 dependencies · 8 single operation,
///            whose kind is then in bits 4–5 instead of a kind byte
/// operation  kind byte (unless single), then
///            0 fields  record · name (type) · j, j × (name · value, length-prefixed)
///            1 text    record · name (field) · text operations (length-prefixed, except
///                      in the last operation of the last change of a file, which runs
///                      to its end; sharing the replica table; counters from the
///                      replica's next counter in that text, which the receiver knows
///                      when it applies the change — so they are decoded only then)
///            2 tree    tree operation
/// record     replica index · counter
/// name       varint (position << 1 | 1), or (UTF-8 length << 1) then the UTF-8
/// ```
struct DeltaChange: Hashable, Sendable {
    var id: ChangeID
    var lamport: UInt64
    var dependencies: VersionVector
    /// The replicas the change refers to by index, its own first.
    var table: [ReplicaID]
    var operations: [Operation]
    /// When the change was made, as sent (resolved when applied).
    var time: DeltaTime = .unknown

    enum Operation: Hashable, Sendable {
        case fields(record: RecordID, type: NameReference, values: [FieldValue])
        /// Text operations, encoded: decoded when applied (see ``resolved(with:textBase:)``).
        case text(record: RecordID, field: NameReference, encoded: [UInt8])
        case tree(TreeOperation)
    }

    struct FieldValue: Hashable, Sendable {
        var name: NameReference
        var value: [UInt8]
    }

    /// One counter per operation.
    var count: UInt64 { UInt64(operations.count) }
    var endCounter: UInt64 { id.counter + count }

    private enum Flag {
        // Bits 1, 2 and 4 are the header's (DeltaUnitHeader.Flag).
        static let single: UInt8 = 8
        static let kindShift: UInt8 = 4
    }

    private enum Kind {
        static let fields: UInt8 = 0
        static let text: UInt8 = 1
        static let tree: UInt8 = 2
    }

    init(
        id: ChangeID, lamport: UInt64, dependencies: VersionVector, table: [ReplicaID], operations: [Operation],
        time: DeltaTime = .unknown
    ) {
        self.time = time
        self.id = id
        self.lamport = lamport
        self.dependencies = dependencies
        self.table = table
        self.operations = operations
    }

    // MARK: From and to changes

    /// `change` with its names referenced through `names`, its replica's table (which
    /// knows the change's names already), and its time as a step from `previousTime`,
    /// its replica's previous change's (`nil` when unknown).
    init(_ change: Change, names: ReplicaNames?, previousTime: UInt64?) {
        time = DeltaTime(change.time, previous: previousTime)
        var spelledHere = Set<String>()
        func reference(_ name: String) -> NameReference {
            guard let names, let position = names.position(of: name) else { return .spelled(name) }
            if names.firstUse(at: position) < change.id.counter || !spelledHere.insert(name).inserted {
                return .position(position)
            }
            return .spelled(name)
        }
        id = change.id
        lamport = change.lamport
        dependencies = change.dependencies
        let table = Self.replicaTable(of: change)
        self.table = table
        operations = change.operations.map { operation in
            switch operation {
            case .fields(let record, let type, let values):
                let typeReference = reference(type)
                return .fields(record: record, type: typeReference, values: values.keys.sorted().map {
                    FieldValue(name: reference($0), value: values[$0]!)
                })
            case .text(let text, let textOperations):
                let base = textOperations.first?.id.counter ?? 0
                return .text(record: text.record, field: reference(text.field),
                             encoded: TextOperationCoding.encode(textOperations, sharing: table, counterBase: base))
            case .tree(let move):
                return .tree(move)
            }
        }
    }

    /// Whether `other` is this change, times aside (see ``Change/isSame(as:)``): equal, or
    /// equal once their text operations are decoded, since the encoding spells some
    /// operations two ways (builds before 2026-12-03 flagged a one-character deletion
    /// after another Backspace backward; ``TextDeletion`` has no direction for it).
    func isSame(as other: DeltaChange) -> Bool {
        var other = other
        other.time = time
        if self == other { return true }
        guard id == other.id, lamport == other.lamport, dependencies == other.dependencies, table == other.table,
            operations.count == other.operations.count
        else { return false }
        // Counters are relative to the receiver's next one in the text, the same for both:
        // any base decodes both alike. A high one, so that no target of the change's own
        // replica underflows while its text has fewer than 2^40 counters (a trillion
        // operations; past that, two spellings of one change would compare different).
        let base: UInt64 = 1 << 40
        return zip(operations, other.operations).allSatisfy { mine, theirs in
            guard case .text(let record, let field, let encoded) = mine,
                case .text(record, field, let otherEncoded) = theirs
            else { return mine == theirs }
            guard let decoded = try? TextOperationCoding.decode(encoded, sharing: table, counterBase: base) else { return false }
            return (try? TextOperationCoding.decode(otherEncoded, sharing: table, counterBase: base)) == decoded
        }
    }

    /// The change, its names looked up in `names` (its replica's table as of this change),
    /// its time from `previousTime` (the receiver's time of the replica's previous change)
    /// and its text operations decoded from `textBase` (its replica's next counter in a
    /// text, as the receiver has it).
    ///
    /// - Throws: ``StoreError/invalidChange(_:)`` for a position the table does not have
    ///   or text operations that do not decode.
    func resolved(
        with names: ReplicaNames, previousTime: UInt64?, textBase: (TextID) throws(StoreError) -> UInt64
    ) throws(StoreError) -> Change {
        var known = names
        func name(_ reference: NameReference) throws(StoreError) -> String {
            switch reference {
            case .spelled(let name):
                known.note(name, firstUsedAt: id.counter)
                return name
            case .position(let position):
                guard position < known.count else {
                    throw .invalidChange("change \(id) refers to name \(position), but replica \(id.replica) has used only \(known.count) names")
                }
                return known[position]
            }
        }
        var resolved: [StoreOperation] = []
        var texts = Set<TextID>()
        for operation in operations {
            switch operation {
            case .fields(let record, let type, let values):
                let typeName = try name(type)
                var fields: [String: [UInt8]] = [:]
                for value in values {
                    let field = try name(value.name)
                    guard fields[field] == nil else { throw .invalidChange("change \(id) writes field \(field) twice") }
                    fields[field] = value.value
                }
                resolved.append(.fields(record: record, type: typeName, values: fields))
            case .text(let record, let field, let encoded):
                let text = TextID(record: record, field: try name(field))
                guard texts.insert(text).inserted else {
                    throw .invalidChange("change \(id) carries operations for \(text) twice")
                }
                let base = try textBase(text)
                let textOperations: [TextOperation]
                do {
                    textOperations = try TextOperationCoding.decode(encoded, sharing: table, counterBase: base)
                } catch {
                    throw .invalidChange("change \(id), text \(text): \(error)")
                }
                guard !textOperations.isEmpty, textOperations.allSatisfy({ $0.id.replica == id.replica }) else {
                    throw .invalidChange("change \(id) carries no text operations, or another replica's, for \(text)")
                }
                // One transaction's edits of a text follow each other from the replica's next
                // counter there: operations the text has already, or after a gap, no replica
                // made in one change (and the change log could not read them back).
                var next = base
                for operation in textOperations {
                    guard operation.id.counter == next else {
                        throw .invalidChange("change \(id), text \(text): operation at counter \(operation.id.counter), expected \(next)")
                    }
                    next += UInt64(operation.length)
                }
                resolved.append(.text(text, textOperations))
            case .tree(let move):
                resolved.append(.tree(move))
            }
        }
        return Change(
            id: id, count: count, lamport: lamport, dependencies: dependencies, operations: resolved,
            time: time.resolved(previous: previousTime))
    }

    // MARK: Encoding

    private static func kind(of operation: Operation) -> UInt8 {
        switch operation {
        case .fields: Kind.fields
        case .text: Kind.text
        case .tree: Kind.tree
        }
    }

    /// The replicas `change` refers to, its own first (short: searched linearly).
    private static func replicaTable(of change: Change) -> [ReplicaID] {
        var table = [change.id.replica]
        func note(_ replica: ReplicaID) { if !table.contains(replica) { table.append(replica) } }
        for replica in change.dependencies.counters.keys.sorted() { note(replica) }
        for operation in change.operations {
            switch operation {
            case .fields(let record, _, _): note(record.replica)
            case .text(let text, let textOperations):
                note(text.record.replica)
                TextOperationCoding.replicas(in: textOperations).forEach(note)
            case .tree: break
            }
        }
        return table
    }

    /// Writes the change; a change of `sender` leaves out its replica and first counter
    /// (the file's header gives them).
    ///
    /// - Parameter last: Whether nothing follows the change (then its last text
    ///   operations run to the end, unprefixed).
    func encode(into writer: inout ByteWriter, sender: ReplicaID?, last: Bool) {
        let unitFlags = operations.count == 1 ? Flag.single | Self.kind(of: operations[0]) << Flag.kindShift : 0
        let index = DeltaUnitHeader(id: id, lamport: lamport, table: table, dependencies: dependencies.counters, time: time)
            .encode(into: &writer, sender: sender, unitFlags: unitFlags)
        if operations.count != 1 { writer.write(varint: UInt64(operations.count)) }
        for (position, operation) in operations.enumerated() {
            if operations.count != 1 { writer.write(byte: Self.kind(of: operation)) }
            switch operation {
            case .fields(let record, let type, let values):
                writer.write(record: record, index: index)
                writer.write(name: type)
                writer.write(varint: UInt64(values.count))
                for value in values {
                    writer.write(name: value.name)
                    writer.write(lengthPrefixed: value.value)
                }
            case .text(let record, let field, let encoded):
                writer.write(record: record, index: index)
                writer.write(name: field)
                if last && position == operations.count - 1 {
                    writer.write(raw: encoded)
                } else {
                    writer.write(lengthPrefixed: encoded)
                }
            case .tree(let move):
                move.encode(into: &writer)
            }
        }
    }

    /// Reads a change written by ``encode(into:sender:)``. Every count and length is
    /// checked against the bytes left before anything is allocated for it.
    ///
    /// - Parameters:
    ///   - sender: The file's sender.
    ///   - nextSenderCounter: Where the sender's next change starts; advanced past a
    ///     change from the sender.
    ///   - last: Whether the change is the last thing in its input (see ``encode(into:sender:last:)``).
    static func decode(
        from reader: inout ByteReader, sender: ReplicaID?, nextSenderCounter: inout UInt64, last: Bool
    ) throws(DecodingError) -> DeltaChange {
        let flagsAt = reader.offset
        let flags = try reader.readByte("change flags")
        let kindBits = (flags & ~DeltaUnitHeader.Flag.time) >> Flag.kindShift
        guard flags & Flag.single != 0 || kindBits == 0, kindBits <= Kind.tree else {
            throw .malformed("unknown change flags \(flags)", at: flagsAt)
        }
        let header = try DeltaUnitHeader.decode(
            from: &reader, flags: flags, flagsAt: flagsAt, unit: "change", sender: sender, nextSenderCounter: nextSenderCounter)
        let (id, lamport, table, dependencies) = (header.id, header.lamport, header.table, header.dependencies)
        let operationCount = flags & Flag.single != 0
            ? 1 : try reader.readCount("operation count", limit: Change.maximumCount, minimumElementSize: 2)
        guard operationCount > 0 else { throw .malformed("change \(id) has no operations", at: reader.offset) }
        guard id.counter <= UInt64(Int64.max) - UInt64(operationCount) else {
            throw .malformed("counter range of change \(id) overflows", at: flagsAt)
        }
        var operations: [Operation] = []
        operations.reserveCapacity(operationCount)
        for position in 0..<operationCount {
            let kind = operationCount == 1 ? kindBits : try reader.readByte("operation kind")
            switch kind {
            case Kind.fields:
                let record = try reader.readRecord(in: table)
                let type = try reader.readName("type name")
                let count = try reader.readCount("field count", limit: Change.maximumCount, minimumElementSize: 2)
                var values: [FieldValue] = []
                values.reserveCapacity(count)
                for _ in 0..<count {
                    let name = try reader.readName("field name")
                    let value = Array(try reader.readLengthPrefixed("field value", limit: Change.maximumValueLength))
                    // Every replica writes a field as one JSON value; anything else would make
                    // the record unreadable for good once it won the register.
                    guard (try? JSONSerialization.jsonObject(with: Data(value), options: [.fragmentsAllowed])) != nil else {
                        throw .malformed("a value of record \(record) is not JSON", at: reader.offset - value.count)
                    }
                    values.append(FieldValue(name: name, value: value))
                }
                operations.append(.fields(record: record, type: type, values: values))
            case Kind.text:
                let record = try reader.readRecord(in: table)
                let field = try reader.readName("text field name")
                let bytes = last && position == operationCount - 1
                    ? try reader.readBytes(reader.remaining, "text operations")
                    : try reader.readLengthPrefixed("text operations")
                guard !bytes.isEmpty else { throw .malformed("empty text operations", at: reader.offset) }
                operations.append(.text(record: record, field: field, encoded: Array(bytes)))
            case Kind.tree:
                let move = try TreeOperation.decode(from: &reader)
                guard move.id.replica == id.replica else {
                    throw .malformed("change \(id) carries a tree operation of another replica", at: reader.offset)
                }
                operations.append(.tree(move))
            default:
                throw .malformed("unknown operation kind \(kind)", at: reader.offset - 1)
            }
        }
        if id.replica == sender, flags & DeltaUnitHeader.Flag.fromSender != 0 { nextSenderCounter = id.counter + UInt64(operationCount) }
        return DeltaChange(
            id: id, lamport: UInt64(lamport), dependencies: VersionVector(dependencies), table: table, operations: operations,
            time: header.time)
    }
}

extension ByteWriter {
    mutating func write(name: NameReference) {
        switch name {
        case .position(let position):
            write(varint: UInt64(position) << 1 | 1)
        case .spelled(let name):
            let utf8 = Array(name.utf8)
            write(varint: UInt64(utf8.count) << 1)
            write(raw: utf8)
        }
    }
}

extension ByteReader {
    mutating func readName(_ what: @autoclosure () -> String) throws(DecodingError) -> NameReference {
        let start = offset
        let tag = try readVarint(what())
        if tag & 1 != 0 {
            guard tag >> 1 < UInt64(Change.maximumCount) else { throw .malformed("\(what()) position \(tag >> 1) is too large", at: start) }
            return .position(Int(tag >> 1))
        }
        guard tag >> 1 <= UInt64(Change.maximumNameLength) else {
            throw .malformed("\(what()) of \(tag >> 1) bytes is longer than \(Change.maximumNameLength)", at: start)
        }
        let bytes = try readBytes(Int(tag >> 1), what())
        guard let name = String(validating: bytes, as: UTF8.self) else { throw .malformed("\(what()) is not UTF-8", at: start) }
        return .spelled(name)
    }
}
