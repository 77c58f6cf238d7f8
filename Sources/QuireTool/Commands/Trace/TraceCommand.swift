/// `quire trace`: editing traces.
struct TraceCommand: CommandGroup {
    static let name = "trace"
    static let summary = "Replay editing traces through the text CRDT."
    static let discussion = """
        Traces are Joseph Gentle's editing-trace format (.json or .json.gz), sequential
        or concurrent; see ../shared/traces/README.md.
        """
    static var subcommands: [any Command.Type] { [TraceReplayCommand.self] }
}
