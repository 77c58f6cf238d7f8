import Foundation
import QuireTestSupport
import Testing

/// One Syncthing instance on 127.0.0.1 with its own home, for end-to-end tests of the sync
/// folder through a real engine (Debian package `syncthing`). Configured through its
/// config file (addresses, no discovery, relays or reporting) and its REST API (devices,
/// folders, pausing); stopped by ``stop()``.
final class SyncthingDevice {
    static let executable = "/usr/bin/syncthing"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    static let apiKey = "quire-test-key"
    static let folderID = "quire"

    let home: String
    let folder: String
    let guiPort: Int
    let listenPort: Int
    let deviceID: String
    private var process: Process?
    private var eventID = 0

    /// Generates a home under `directory` and the folder `directory/folder`.
    init(in directory: String, guiPort: Int, listenPort: Int) throws {
        home = directory + "/home"
        folder = directory + "/folder"
        self.guiPort = guiPort
        self.listenPort = listenPort
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try Self.run([Self.executable, "generate", "--home=\(home)", "--no-default-folder"])
        deviceID = try Self.run([Self.executable, "--home=\(home)", "--device-id"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let path = home + "/config.xml"
        var config = try String(contentsOfFile: path, encoding: .utf8)
        config = config.replacingOccurrences(of: "<address>127.0.0.1:8384</address>", with: "<address>127.0.0.1:\(guiPort)</address>")
        config = config.replacingOccurrences(of: #"<apikey>[^<]*</apikey>"#, with: "<apikey>\(Self.apiKey)</apikey>", options: .regularExpression)
        config = config.replacingOccurrences(
            of: "<listenAddress>default</listenAddress>", with: "<listenAddress>tcp://127.0.0.1:\(listenPort)</listenAddress>")
        for option in ["globalAnnounceEnabled", "localAnnounceEnabled", "relaysEnabled", "natEnabled", "startBrowser", "crashReportingEnabled"] {
            config = config.replacingOccurrences(of: "<\(option)>true</\(option)>", with: "<\(option)>false</\(option)>")
        }
        config = config.replacingOccurrences(of: "<urAccepted>0</urAccepted>", with: "<urAccepted>-1</urAccepted>")
        config = config.replacingOccurrences(of: #"<autoUpgradeIntervalH>[0-9]+</autoUpgradeIntervalH>"#, with: "<autoUpgradeIntervalH>0</autoUpgradeIntervalH>", options: .regularExpression)
        try config.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Starts the instance and returns once its REST API listens (it says so on its output).
    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["serve", "--home=\(home)", "--no-browser", "--no-restart", "--no-upgrade"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        self.process = process
        var seen = ""
        while !seen.contains("GUI and API listening on") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw Failure("syncthing exited before its API listened: \(seen)") }
            seen += String(decoding: data, as: UTF8.self)
        }
        // Keep draining its output so it never blocks on a full pipe.
        output.fileHandleForReading.readabilityHandler = { handle in _ = handle.availableData }
    }

    /// Stops the instance this object started.
    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Shares the folder with `peer` (which must share it back).
    func share(with peer: SyncthingDevice) throws {
        _ = try request("POST", "/rest/config/devices", body: [
            "deviceID": peer.deviceID, "addresses": ["tcp://127.0.0.1:\(peer.listenPort)"],
        ])
        _ = try request("POST", "/rest/config/folders", body: [
            "id": Self.folderID, "label": Self.folderID, "path": folder, "type": "sendreceive",
            "devices": [["deviceID": deviceID], ["deviceID": peer.deviceID]],
            "fsWatcherEnabled": true, "fsWatcherDelayS": 1, "rescanIntervalS": 3600,
        ])
    }

    /// Pauses or resumes the connection to `peer`.
    func setPaused(_ paused: Bool, peer: SyncthingDevice) throws {
        _ = try request("POST", "/rest/system/\(paused ? "pause" : "resume")?device=\(peer.deviceID)")
    }

    /// Asks the instance to scan the folder now (rather than when its watcher fires).
    func scan() throws { _ = try request("POST", "/rest/db/scan?folder=\(Self.folderID)") }

    /// Returns once `condition` holds, waiting on this instance's event stream (a long
    /// poll that returns when something happens, or after a second) between checks.
    func wait(upTo seconds: Double = 30, for what: String, until condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() {
            guard Date() < deadline else { throw Failure("syncthing did not deliver within \(Int(seconds)) s: \(what)") }
            let text = try request("GET", "/rest/events?since=\(eventID)&timeout=1")
            if let events = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] {
                eventID = events.compactMap { $0["id"] as? Int }.max() ?? eventID
            }
        }
    }

    private func request(_ method: String, _ path: String, body: [String: Any]? = nil) throws -> String {
        var arguments = ["/usr/bin/curl", "-sS", "--fail", "-X", method, "-H", "X-API-Key: \(Self.apiKey)"]
        if let body {
            arguments += ["-H", "Content-Type: application/json", "--data-binary", String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)]
        }
        return try Self.run(arguments + ["http://127.0.0.1:\(guiPort)\(path)"])
    }

    /// Runs a command to its end; its standard output, or a failure with its output.
    @discardableResult
    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw Failure("\(arguments.joined(separator: " ")) failed: \(text)") }
        return text
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
