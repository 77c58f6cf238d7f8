import Foundation
import Quire
import QuireCore
import QuireTestSupport
import Testing

private struct Draft: Record {
    static let typeName = "draft"
    var name: String
}

/// A fresh store with one record; the text edited is its "content".
private func makeStore(_ directory: TemporaryDirectory) throws -> (Store, TextID) {
    let store = try Store(directory: directory.appending("store"))
    let id = try store.write { tx in try tx.insert(Draft(name: "Ode")) }
    return (store, id.text("content"))
}

@Suite("Text editing session")
struct TextEditingSessionTests {
    @Test("durable mode: every call is one committed change, visible before the call returns")
    func durableCommitsEachCall() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, content) = try makeStore(directory)
        let session = TextEditingSession(store: store, text: content)
        let before = try store.changes().count
        try session.insert("Hi", at: 0)
        #expect(try store.read { tx in try tx.string(of: content) } == "Hi")
        try session.insert("😀", at: 2, unit: .utf16)
        try session.replace(0..<1, with: "h")
        try session.delete(1..<2)
        #expect(try store.changes().count == before + 4)
        #expect(try session.string == "h😀")
        #expect(try session.length(in: .utf16) == 3)
        try session.close()
        try store.close()
        let reopened = try Store(directory: directory.appending("store"))
        #expect(try reopened.read { tx in try tx.string(of: content) } == "h😀")
    }

    @Test("durable mode: an invalid edit throws from the call and changes nothing")
    func durableInvalidEdit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, content) = try makeStore(directory)
        let session = TextEditingSession(store: store, text: content)
        try session.insert("abc", at: 0)
        #expect(throws: StoreError.self) { try session.insert("x", at: 9) }
        #expect(try session.string == "abc")
    }

    @Test("coalescing: keystrokes within the window become one change on flush")
    func coalescedFlush() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, content) = try makeStore(directory)
        let session = TextEditingSession(store: store, text: content, coalescing: .standard)
        let before = try store.changes().count
        for (offset, character) in "Hello".enumerated() { try session.insert(String(character), at: offset) }
        try session.delete(4..<5)
        #expect(try store.changes().count == before)  // still buffered
        try session.flush()
        #expect(try store.changes().count == before + 1)
        #expect(try store.read { tx in try tx.string(of: content) } == "Hell")
        try session.flush()  // nothing buffered: no empty change
        #expect(try store.changes().count == before + 1)
    }

    @Test("coalescing: reading the text commits the buffered keystrokes first")
    func readFlushes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, content) = try makeStore(directory)
        let session = TextEditingSession(store: store, text: content, coalescing: .milliseconds(300))
        try session.insert("ab", at: 0)
        try session.insert("c", at: try session.length)
        #expect(try session.string == "abc")
        #expect(try store.read { tx in try tx.string(of: content) } == "abc")
    }

    @Test("coalescing: the timer commits the burst as one change when the window expires")
    func timerCommits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, content) = try makeStore(directory)
        let session = TextEditingSession(store: store, text: content, coalescing: .milliseconds(20))
        let events = store.events(for: content)
        let before = try store.changes().count
        try session.insert("a", at: 0)
        try session.insert("b", at: 1)
        try session.insert("c", at: 2)
        // Wait for the commit's event: the timer, not this task, made it.
        var iterator = events.makeAsyncIterator()
        let event = await iterator.next()
        #expect(event?.changes.count == 1)
        #expect(try store.changes().count == before + 1)
        #expect(try store.read { tx in try tx.string(of: content) } == "abc")
        withExtendedLifetime(session) {}
    }

    @Test("coalescing: an invalid buffered edit keeps the edits before it and reports the drop on the next call")
    func timerErrorIsKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, content) = try makeStore(directory)
        let session = TextEditingSession(store: store, text: content, coalescing: .milliseconds(10))
        let events = store.events(for: content)
        try session.insert("ab", at: 0)
        try session.insert("x", at: 7)  // out of range: only found at commit time
        try session.insert("c", at: 2)
        var iterator = events.makeAsyncIterator()
        _ = await iterator.next()  // the valid prefix was committed by the timer
        #expect(try store.read { tx in try tx.string(of: content) } == "ab")
        do {
            try session.insert("z", at: 0)
            Issue.record("the kept error was not thrown")
        } catch let error as AutosaveError {
            guard case .editsDropped(let count, _, let reason) = error else { throw error }
            #expect(count == 2)
            #expect(reason is StoreError)
        }
        // Reported once; the session works again.
        try session.insert("d", at: 2)
        #expect(try session.string == "abd")
    }

    @Test("closing commits the buffer; later calls throw; deinit commits too")
    func closeAndDeinit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, content) = try makeStore(directory)
        let session = TextEditingSession(store: store, text: content, coalescing: .standard)
        try session.insert("kept", at: 0)
        try session.close()
        #expect(try store.read { tx in try tx.string(of: content) } == "kept")
        #expect(throws: AutosaveError.self) { try session.insert("x", at: 0) }
        try session.close()  // twice: nothing

        do {
            let dropped = TextEditingSession(store: store, text: content, coalescing: .standard)
            try dropped.insert("!", at: 4)
        }
        #expect(try store.read { tx in try tx.string(of: content) } == "kept!")
    }

    @Test("the coalescing window is clamped to 1…300 ms")
    func windowClamp() {
        #expect(TextEditingSession.Coalescing.milliseconds(5_000).window == .milliseconds(300))
        #expect(TextEditingSession.Coalescing.milliseconds(0).window == .milliseconds(1))
        #expect(TextEditingSession.Coalescing.standard.window == .milliseconds(300))
    }
}
