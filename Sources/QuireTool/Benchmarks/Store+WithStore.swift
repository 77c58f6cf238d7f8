import Quire

/// The benchmarks' stores: opened for one measurement, closed after it.
extension Store {
    /// Opens the store at `path`, runs `body`, and closes the store (also when `body` throws).
    static func withStore<R>(at path: String, options: Options, _ body: (Store) throws -> R) throws -> R {
        let store = try Store(directory: path, options: options)
        do {
            let result = try body(store)
            try store.close()
            return result
        } catch {
            try? store.close()
            throw error
        }
    }
}
