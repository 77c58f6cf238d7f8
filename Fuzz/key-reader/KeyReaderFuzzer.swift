// libFuzzer target: KeyReader on untrusted bytes.
//
// The first byte of the input picks a component sequence; the rest is a key. Decoding
// must never crash or over-read, and whatever decodes must re-encode to exactly the bytes
// it was read from (the encoding is canonical).

@_cdecl("LLVMFuzzerTestOneInput")
public func keyReaderFuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    let plan = input[0]
    let keyBytes = Array(input.dropFirst())
    var reader = KeyReader(keyBytes)
    var rebuilt = Key()
    // Up to four components, each chosen by two bits of the plan byte.
    for slot in 0..<4 {
        do {
            switch (plan >> (slot * 2)) & 0b11 {
            case 0: rebuilt.append(try reader.read(UInt64.self))
            case 1: rebuilt.append(try reader.read(Int32.self))
            case 2: rebuilt.append(try reader.read(String.self))
            default: rebuilt.append(try reader.read([UInt8].self))
            }
        } catch {
            return 0  // malformed input is rejected with an error: fine
        }
    }
    let consumed = keyBytes.count - reader.remaining
    guard rebuilt.bytes == Array(keyBytes.prefix(consumed)) else {
        fatalError("re-encoding differs: \(rebuilt.bytes) vs \(keyBytes.prefix(consumed))")
    }
    return 0
}
