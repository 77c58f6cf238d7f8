// libFuzzer target: the text CRDT's decoders on untrusted bytes.
//
// The first byte picks the decoder: even → operations (applied to a replica holding a
// small document), odd → a whole state. Decoding must never crash, hang or over-allocate;
// whatever decodes must be usable (read, edited, re-encoded).

@_cdecl("LLVMFuzzerTestOneInput")
public func textDecodingFuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    let payload = Array(input.dropFirst())
    if input[0] % 2 == 0 {
        let text = ReplicatedText(replica: ReplicaID(1))
        try? text.insert("ab😀c", at: 0)
        try? text.delete(1..<2)
        _ = try? text.applyEncoded(payload)
        _ = text.string
        try? text.insert("x", at: text.count)
        _ = text.encodedState()
    } else if let text = try? ReplicatedText(replica: ReplicaID(9), state: payload) {
        _ = text.string
        // The logs stay encoded until used: whatever loaded must decode them, every
        // operation of every replica.
        let history = text.operations(since: VersionVector())
        guard history.reduce(0, { $0 + $1.length }) == text.version.counters.values.reduce(0, { $0 + Int($1) }) else {
            fatalError("a loaded state's logs do not give back its operations")
        }
        try? text.insert("x", at: text.count)
        try? text.delete(0..<min(1, text.count))
        let again = text.encodedState()
        guard let reloaded = try? ReplicatedText(replica: ReplicaID(9), state: again), reloaded.string == text.string else {
            fatalError("a state that loaded does not survive a save and load")
        }
    }
    return 0
}
