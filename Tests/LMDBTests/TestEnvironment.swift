@_spi(Testing) import LMDB
import QuireTestSupport

/// An environment in a fresh temporary directory, removed when the test ends.
final class TestEnvironment: Sendable {
    let directory: TemporaryDirectory
    let environment: Environment
    let faults: FaultInjector

    var path: String { directory.appending("env") }

    /// A long `idleReaderLifetime` leaves kept read transactions open until something
    /// else resets them (a write of this process, a read's check of the latest commit).
    init(
        mapSize: Int = 1 << 20, maximumMapSize: Int? = nil, durability: Environment.Durability = .full,
        idleReaderLifetime: Duration = .milliseconds(10)
    ) throws {
        directory = try TemporaryDirectory()
        faults = FaultInjector()
        var configuration = Environment.Configuration()
        configuration.mapSize = mapSize
        configuration.maximumMapSize = maximumMapSize
        configuration.durability = durability
        configuration.faultInjector = faults
        configuration.idleReaderLifetime = idleReaderLifetime
        environment = try Environment(path: directory.appending("env"), configuration: configuration)
    }

    deinit {
        try? environment.close()  // before the files go
        directory.remove()
    }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

/// Runs `body` and returns the `LMDBError` it threw, or nil if it threw nothing or
/// something else.
func lmdbError(_ body: () throws -> Void) -> LMDBError? {
    do {
        try body()
        return nil
    } catch let error as LMDBError {
        return error
    } catch {
        return nil
    }
}
